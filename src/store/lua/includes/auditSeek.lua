-- auditFirstAfter(key, after): the id of the audit chain's first held entry whose seq is greater than `after`, or nil.
-- Entry ids are `<ms>-<seq>` with both parts rising along the chain, so the entry is found by a binary search over
-- the ms part (docs/audit.md#where-the-chain-is-kept): the smallest ms at which some entry up to it has a greater seq.
local function auditSeqOf(id) return tonumber(string.match(id, '-(%d+)$')) end
local function auditMsOf(id) return tonumber(string.match(id, '^(%d+)-')) end

local function auditFirstAfter(key, after)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #last == 0 or auditSeqOf(last[1][1]) <= after then return nil end
  local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)
  if auditSeqOf(first[1][1]) > after then return first[1][1] end
  local function reached(ms)
    local upTo = redis.call('XREVRANGE', key, string.format('%.0f', ms), '-', 'COUNT', 1)
    return #upTo > 0 and auditSeqOf(upTo[1][1]) > after
  end
  local lo, hi = auditMsOf(first[1][1]), auditMsOf(last[1][1])
  if reached(lo) then
    hi = lo
  else
    while hi - lo > 1 do
      local mid = math.floor((lo + hi) / 2)
      if reached(mid) then hi = mid else lo = mid end
    end
  end
  local found = redis.call('XRANGE', key, string.format('%.0f-%.0f', hi, after + 1), '+', 'COUNT', 1)
  return found[1][1]
end
