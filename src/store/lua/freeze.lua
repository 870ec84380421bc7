--[[
  Freezes a target unless it is already frozen, and records the freeze in the audit stream.

  Input:
    KEYS[1]  freezes            {p}:freezes       hash target key -> JSON {target, by, reason, at, until?}
    KEYS[2]  audit stream       {p}:audit

    ARGV[1]  target key (hash field)
    ARGV[2]  the freeze JSON
    ARGV[3]  target JSON (audit field)
    ARGV[4]  by
    ARGV[5]  reason
    ARGV[6]  at (ms)
    ARGV[7]  audit min id (ms): older audit entries may be trimmed (MINID ~)
    ARGV[8]  now (ms): the audit entry's id; a freeze whose `until` is not after it no longer holds and is replaced

  Output:
    {'ok'}
    {'exists', existing freeze JSON}
]]
-- @include nextStreamId

local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local ends = cjson.decode(existing)['until']
  if type(ends) ~= 'number' or ends > tonumber(ARGV[8]) then return {'exists', existing} end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[7], nextStreamId(KEYS[2], ARGV[8]),
  'what', 'freeze', 'target', ARGV[3], 'by', ARGV[4], 'reason', ARGV[5], 'at', ARGV[6])
return {'ok'}
