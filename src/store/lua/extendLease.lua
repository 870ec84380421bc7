--[[
  Extends a lease only while it is still the caller's (token-checked).

  Input:
    KEYS[1]  lease              {p}:lease:<t>     JSON {target, opId, token, since}

    ARGV[1]  token
    ARGV[2]  ttl (ms)

  Output: 1 extended, 0 expired or held by someone else
]]

local current = redis.call('GET', KEYS[1])
if not current or cjson.decode(current).token ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
