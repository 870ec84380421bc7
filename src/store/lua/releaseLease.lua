--[[
  Releases a lease only while it is still the caller's (token-checked).

  Input:
    KEYS[1]  lease              {p}:lease:<t>     JSON {target, opId, token, since}
    KEYS[2]  lease index        {p}:leases        set of lease keys

    ARGV[1]  token

  Output: 1 released, 0 expired or held by someone else
]]

local current = redis.call('GET', KEYS[1])
if not current or cjson.decode(current).token ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], KEYS[1])
return 1
