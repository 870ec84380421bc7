--[[
  Raises the seq of the last rendered card, never lowers it (two replicas may render out of order).

  Input:
    KEYS[1]  delivery hash      {p}:notifier:op:<id>   field `card`

    ARGV[1]  seq
    ARGV[2]  ttl (ms) of the hash

  Output: the seq `card` held before (0 when absent)
]]

local current = tonumber(redis.call('HGET', KEYS[1], 'card') or '0')
if tonumber(ARGV[1]) > current then
  redis.call('HSET', KEYS[1], 'card', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return current
