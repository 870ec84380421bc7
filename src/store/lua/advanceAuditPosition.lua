--[[
  Moves the webhook's delivery position forward; a seq not above the stored one changes nothing
  (docs/audit.md#where-the-chain-is-kept).

  Input:
    KEYS[1]  webhook position   {p}:audit:webhook:position   string: last acknowledged seq

    ARGV[1]  seq

  Output: the stored position after the call
]]
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then return current end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
