--[[
  Takes a target's lease for the head of the target's FIFO order, never for a later operation.

  Input:
    KEYS[1]  lease              {p}:lease:<t>     JSON {target, opId, token, since}
    KEYS[2]  target order       {p}:order:<t>     zset ticket -> id
    KEYS[3]  lease index        {p}:leases        set of lease keys (for `locks`)

    ARGV[1]  operation id
    ARGV[2]  the lease JSON to store
    ARGV[3]  ttl (ms)

  Output:
    {'acquired'}
    {'not-head', head or '', current lease JSON or ''}
    {'held', current lease JSON}
]]

local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
local current = redis.call('GET', KEYS[1])
if head ~= ARGV[1] then return {'not-head', head or '', current or ''} end
if current then
  -- A holder that left the order (terminal, or back to approval) lost its authority with that transition.
  local holder = cjson.decode(current).opId
  if redis.call('ZSCORE', KEYS[2], holder) then return {'held', current} end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SADD', KEYS[3], KEYS[1])
return {'acquired'}
