-- The audit chain's append (docs/audit.md#where-the-chain-is-kept), shared by appendAudit.lua and
-- commitOperation.lua; needs auditSeek. auditHeadIs checks that the head is the one the events were sealed after;
-- auditAdd files one sealed event under `<ms>-<seq>` and moves the head to it.
local function auditHeadIs(headKey, seq, hash)
  local head = redis.call('HMGET', headKey, 'seq', 'hash')
  local headSeq = head[1] or '0'
  return headSeq == seq and (headSeq == '0' or head[2] == hash)
end

local function auditIdBelow(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  return tonumber(am) < tonumber(bm) or (tonumber(am) == tonumber(bm) and tonumber(as) < tonumber(bs))
end

-- The ms part never goes back, even when the writer's clock does: max(at, the last id's ms).
local function auditEntryId(chainKey, seq, atMs)
  local ms = tonumber(atMs)
  local info = redis.pcall('XINFO', 'STREAM', chainKey)
  if type(info) == 'table' and not info.err then
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then
        local lastMs = tonumber(string.match(info[i + 1], '^(%d+)-'))
        if lastMs > ms then ms = lastMs end
      end
    end
  end
  return string.format('%.0f-%s', ms, seq)
end

-- What may go: ids below the age cutoff, never the first entry after the position, never the new one.
local function auditTrimId(chainKey, positionKey, id, cutoff)
  local oldest = redis.call('XRANGE', chainKey, '-', '+', 'COUNT', 1)
  if #oldest == 0 or auditMsOf(oldest[1][1]) >= tonumber(cutoff) then return nil end
  local minId = cutoff .. '-0'
  local position = redis.call('GET', positionKey)
  if position then
    local keep = auditFirstAfter(chainKey, tonumber(position)) or id
    if auditIdBelow(keep, minId) then minId = keep end
  end
  if auditIdBelow(id, minId) then minId = id end
  return minId
end

local function auditAdd(chainKey, headKey, positionKey, seq, hash, json, atMs, cutoff)
  local id = auditEntryId(chainKey, seq, atMs)
  local minId = auditTrimId(chainKey, positionKey, id, cutoff)
  if minId then
    redis.call('XADD', chainKey, 'MINID', '~', minId, id, 'event', json)
  else
    redis.call('XADD', chainKey, id, 'event', json)
  end
  redis.call('HSET', headKey, 'seq', seq, 'hash', hash)
  return id
end
