--[[
  Ends a target's after-COMPLETED watch when it is (ARGV[3] = 'own') or is not (ARGV[3] = 'others') the given
  operation's, in one step, so a watch that just started for a newer operation is never ended by an older one.

  Input:
    KEYS[1]  watches of a cluster   {p}:after-completed:<cluster>   hash target key -> JSON {opId, ...}

    ARGV[1]  target key (hash field)
    ARGV[2]  operation id
    ARGV[3]  'own' | 'others'

  Output:
    the ended watch's JSON, or false when nothing was ended
]]

local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return false end
local mine = cjson.decode(current).opId == ARGV[2]
if (ARGV[3] == 'own') ~= mine then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
return current
