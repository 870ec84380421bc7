--[[
  Extends a lock whose value is its holder's bare token, only while it is still the caller's: the notifier's
  per-operation lock and the card claim (docs/lifecycle.md#the-sweep). Not extendLease: the value is the bare token
  (`<consumer>:<uuid>`, a uuid), not a lease JSON, and it has no lease index or FIFO order.

  Input:
    KEYS[1]  lock               {p}:notifier:lock:<id> or {p}:notifier:card:<id>   the holder's token

    ARGV[1]  token
    ARGV[2]  ttl (ms)

  Output: 1 extended, 0 expired or held by someone else
]]

if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
