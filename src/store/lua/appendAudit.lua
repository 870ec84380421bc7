--[[
  Appends one sealed audit event after the chain's head, only if the head is still the one it was sealed after
  (docs/audit.md#where-the-chain-is-kept); trims the chain by age, never past the webhook's position.

  Input:
    KEYS[1]  chain              {p}:audit:chain              stream, entry id <ms>-<seq>, field `event`
    KEYS[2]  head               {p}:audit:head               hash seq, hash
    KEYS[3]  webhook position   {p}:audit:webhook:position   string: last acknowledged seq

    ARGV[1]  expected head seq ('0': no event yet)
    ARGV[2]  expected head hash
    ARGV[3]  the event's seq
    ARGV[4]  the event's hash
    ARGV[5]  the sealed event JSON
    ARGV[6]  the event's `at` (ms)
    ARGV[7]  age cutoff (ms): older entries may be trimmed (MINID ~), unless after the position

  Output:
    {'ok', entry id}
    {'conflict'}        the head moved: read it again and reseal
]]
-- @include auditSeek

local head = redis.call('HMGET', KEYS[2], 'seq', 'hash')
local headSeq = head[1] or '0'
if headSeq ~= ARGV[1] or (headSeq ~= '0' and head[2] ~= ARGV[2]) then return {'conflict'} end

-- The ms part never goes back, even when the writer's clock does: max(at, the last id's ms).
local ms = tonumber(ARGV[6])
local info = redis.pcall('XINFO', 'STREAM', KEYS[1])
if type(info) == 'table' and not info.err then
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      local lastMs = tonumber(string.match(info[i + 1], '^(%d+)-'))
      if lastMs > ms then ms = lastMs end
    end
  end
end
local id = string.format('%.0f-%s', ms, ARGV[3])

-- What may go: ids below the age cutoff, never the first entry after the position, never the new one.
local function below(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  return tonumber(am) < tonumber(bm) or (tonumber(am) == tonumber(bm) and tonumber(as) < tonumber(bs))
end
local minId
local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #oldest > 0 and auditMsOf(oldest[1][1]) < tonumber(ARGV[7]) then
  minId = ARGV[7] .. '-0'
  local position = redis.call('GET', KEYS[3])
  if position then
    local keep = auditFirstAfter(KEYS[1], tonumber(position)) or id
    if below(keep, minId) then minId = keep end
  end
  if below(id, minId) then minId = id end
end

if minId then
  redis.call('XADD', KEYS[1], 'MINID', '~', minId, id, 'event', ARGV[5])
else
  redis.call('XADD', KEYS[1], id, 'event', ARGV[5])
end
redis.call('HSET', KEYS[2], 'seq', ARGV[3], 'hash', ARGV[4])
return {'ok', id}
