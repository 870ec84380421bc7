--[[
  Writes one field of an operation's Slack delivery hash only while it still holds the value the caller read
  (compare-and-set), so two notifier replicas never overwrite each other's idempotency marks.

  Input:
    KEYS[1]  delivery hash      {p}:notifier:op:<id>   card, permalink, post:<seq>, digest:<phase>:<channel>

    ARGV[1]  field
    ARGV[2]  expected value ('' = absent)
    ARGV[3]  new value
    ARGV[4]  ttl (ms) of the hash

  Output: 1 written, 0 the field no longer holds the expected value
]]

local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
