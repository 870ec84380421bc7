--[[
  Lifts a target's freeze and records who lifted it (with the freeze's reason) in the audit stream.

  Input:
    KEYS[1]  freezes            {p}:freezes       hash target key -> JSON {target, by, reason, at, until?}
    KEYS[2]  audit stream       {p}:audit

    ARGV[1]  target key (hash field)
    ARGV[2]  target JSON (audit field)
    ARGV[3]  by
    ARGV[4]  at (ms): now; a freeze whose `until` is not after it has ended by itself (dropped, not-frozen)
    ARGV[5]  audit min id (ms): older audit entries may be trimmed (MINID ~)

  Output:
    {'ok', the lifted freeze JSON}
    {'not-frozen'}
]]
-- @include nextStreamId

local was = redis.call('HGET', KEYS[1], ARGV[1])
if not was then return {'not-frozen'} end
redis.call('HDEL', KEYS[1], ARGV[1])
local ends = cjson.decode(was)['until']
if type(ends) == 'number' and ends <= tonumber(ARGV[4]) then return {'not-frozen'} end
redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[5], nextStreamId(KEYS[2], ARGV[4]),
  'what', 'unfreeze', 'target', ARGV[2], 'by', ARGV[3], 'reason', cjson.decode(was).reason, 'at', ARGV[4])
return {'ok', was}
