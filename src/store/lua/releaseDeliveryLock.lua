--[[
  Releases a bare-token lock (the notifier's per-operation lock, the card claim) only while it is still the
  caller's (see extendDeliveryLock.lua for why this is not releaseLease).

  Input:
    KEYS[1]  lock               {p}:notifier:lock:<id> or {p}:notifier:card:<id>   the holder's token

    ARGV[1]  token

  Output: 1 released, 0 expired or held by someone else
]]

if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
