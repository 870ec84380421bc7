--[[
  Commits one change of an operation record atomically: compare-and-set on the record's version, the new
  history entries appended to the event stream (trimmed by age), the indexes, the target's FIFO order, and the
  audit events of the change appended to the audit chain (docs/audit.md#where-the-chain-is-kept), so there is no
  operation event without its audit event.

  Input:
    KEYS[1]  record             {p}:op:<id>            JSON; always starts with '{"version":<n>,'
    KEYS[2]  event stream       {p}:events
    KEYS[3]  recent index       {p}:ops:recent         zset createdAt -> id
    KEYS[4]  target index       {p}:ops:target:<t>     zset createdAt -> id
    KEYS[5]  active index       {p}:ops:active         hash id -> state, non-terminal operations only
    KEYS[6]  expiry index       {p}:ops:expiry         zset expiresAt -> id, AWAITING_APPROVAL only
    KEYS[7]  namespace index    {p}:ops:namespaces     zset last write -> namespace
    KEYS[8]  target order       {p}:order:<t>          zset ticket -> id
    KEYS[9]  order tickets      {p}:order-seq          counter
    KEYS[10] audit chain        {p}:audit:chain
    KEYS[11] audit head         {p}:audit:head
    KEYS[12] webhook position   {p}:audit:webhook:position

    ARGV[1]  expected version ('0': the record must not exist yet)
    ARGV[2]  the new record JSON, version first; without firstQueuedSeq when ARGV[10] is 'join'
    ARGV[3]  operation id
    ARGV[4]  now (ms)
    ARGV[5]  events min id (ms): older stream entries may be trimmed (MINID ~)
    ARGV[6]  index min score (ms): older index entries are removed
    ARGV[7]  retention (ms): TTL of terminal records and of the target index
    ARGV[8]  the new state
    ARGV[9]  '1' when the new state is terminal
    ARGV[10] order: 'join' (new ticket), 'leave' or 'stay'
    ARGV[11] expiresAt (ms) while AWAITING_APPROVAL, else ''
    ARGV[12] createdAt (ms)
    ARGV[13] namespace of the target
    ARGV[14] number of history entries n, followed by n groups of: seq, type, name, actor, at, detail (JSON)
    then     the audit head the events were sealed after (seq, '0' for none; hash), the audit age cutoff (ms), the
             number of audit events m, followed by m groups of: seq, hash, sealed event JSON, at (ms)

  Output:
    {'ok', ticket}   ticket: the order ticket when ARGV[10] is 'join', else -1
    {'exists'}       creating, but the id is taken
    {'missing'}      the record is gone
    {'conflict'}     the version moved: re-read and decide again
    {'auditConflict'} the audit head moved: read it again, reseal the events and commit again
]]
-- @include nextStreamId
-- @include auditSeek
-- @include auditChain

local id = ARGV[3]
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if current then return {'exists'} end
else
  if not current then return {'missing'} end
  if string.match(current, '^{"version":(%d+),') ~= ARGV[1] then return {'conflict'} end
end

local n = tonumber(ARGV[14])
local a = 15 + n * 6
local m = tonumber(ARGV[a + 3])
if m > 0 and not auditHeadIs(KEYS[11], ARGV[a], ARGV[a + 1]) then return {'auditConflict'} end

local record = ARGV[2]
local ticket = -1
if ARGV[10] == 'join' then
  ticket = redis.call('INCR', KEYS[9])
  redis.call('ZADD', KEYS[8], ticket, id)
  local comma = string.find(record, ',', 1, true)
  record = string.sub(record, 1, comma) .. '"firstQueuedSeq":' .. ticket .. ',' .. string.sub(record, comma + 1)
elseif ARGV[10] == 'leave' then
  redis.call('ZREM', KEYS[8], id)
end

redis.call('SET', KEYS[1], record)
if ARGV[9] == '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
  redis.call('HDEL', KEYS[5], id)
else
  redis.call('HSET', KEYS[5], id, ARGV[8])
end

if ARGV[11] ~= '' then
  redis.call('ZADD', KEYS[6], ARGV[11], id)
else
  redis.call('ZREM', KEYS[6], id)
end

local stale = '(' .. ARGV[6]
redis.call('ZADD', KEYS[3], ARGV[12], id)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', stale)
redis.call('ZADD', KEYS[4], ARGV[12], id)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', stale)
redis.call('PEXPIRE', KEYS[4], ARGV[7])
redis.call('ZADD', KEYS[7], ARGV[4], ARGV[13])
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', stale)

for i = 0, n - 1 do
  local b = 15 + i * 6
  redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[5], nextStreamId(KEYS[2], ARGV[b + 4]),
    'op', id, 'seq', ARGV[b], 'type', ARGV[b + 1], 'name', ARGV[b + 2], 'actor', ARGV[b + 3],
    'at', ARGV[b + 4], 'detail', ARGV[b + 5])
end

for i = 0, m - 1 do
  local b = a + 4 + i * 4
  auditAdd(KEYS[10], KEYS[11], KEYS[12], ARGV[b], ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[a + 2])
end

return {'ok', ticket}
