--[[
  Freezes a target unless it is already frozen, and records the freeze in the audit stream.

  Input:
    KEYS[1]  freezes            {p}:freezes       hash target key -> JSON {target, by, reason, at}
    KEYS[2]  audit stream       {p}:audit

    ARGV[1]  target key (hash field)
    ARGV[2]  the freeze JSON
    ARGV[3]  target JSON (audit field)
    ARGV[4]  by
    ARGV[5]  reason
    ARGV[6]  at (ms)
    ARGV[7]  audit min id (ms): older audit entries may be trimmed (MINID ~)
    ARGV[8]  now (ms): the audit entry's id

  Output:
    {'ok'}
    {'exists', existing freeze JSON}
]]
-- @include nextStreamId

if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return {'exists', redis.call('HGET', KEYS[1], ARGV[1])}
end
redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[7], nextStreamId(KEYS[2], ARGV[8]),
  'what', 'freeze', 'target', ARGV[3], 'by', ARGV[4], 'reason', ARGV[5], 'at', ARGV[6])
return {'ok'}
