--[[
  The held audit entries whose seq is greater than ARGV[1], oldest first, at most ARGV[2]
  (docs/audit.md#where-the-chain-is-kept).

  Input:
    KEYS[1]  chain   {p}:audit:chain   stream, entry id <ms>-<seq>, field `event`

    ARGV[1]  after (seq)
    ARGV[2]  limit

  Output: XRANGE's reply ({} when no entry is after the seq)
]]
-- @include auditSeek

local start = auditFirstAfter(KEYS[1], tonumber(ARGV[1]))
if not start then return {} end
return redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', ARGV[2])
