--[[
  Compares what a worker sees wrong with a job now against the job's open incident, in one step
  (docs/alerts.md#one-incident-per-job): opens one, updates it, recovers it, or leaves it. Only a change bumps the
  version and appends ONE entry to the alert stream, so replicas that observe the same thing change it once.

  Input:
    KEYS[1]  alerts        {p}:alerts          hash  <incident id>         -> incident JSON
                                                     target:<cluster>:<tk> -> current incident id
                                                     message:<incident id> -> posted message JSON
    KEYS[2]  alerts index  {p}:alerts:index    zset  incident id -> ms it goes (+inf while open)
    KEYS[3]  alert events  {p}:alerts:events   stream of changes for the notifier

    ARGV[1]  target field  target:<cluster>:<target key>
    ARGV[2]  id for a new incident (inc-<10 base-36>), used only when one opens
    ARGV[3]  observation JSON {cluster, target, rule, channel, mention?, signals: [{kind, since, summary, source}]}
             (signals one per kind, in the port's kind order)
    ARGV[4]  now (ms)
    ARGV[5]  retention (ms) of a recovered incident
    ARGV[6]  target key (stream field)
    ARGV[7]  events min id (ms): older stream entries may be trimmed (MINID ~)

  Output:
    {'changed', incident JSON} | {'same', incident JSON} | {'none'} | {'taken'} (ARGV[2] already names an incident)
]]
-- @include nextStreamId

local now = tonumber(ARGV[4])
-- A bounded number of expired incidents goes at each call, so no call ever does unbounded work.
local PURGE_BATCH = 20

local function purge()
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, PURGE_BATCH)
  for _, id in ipairs(gone) do
    local json = redis.call('HGET', KEYS[1], id)
    if json then
      local old = cjson.decode(json)
      local field = 'target:' .. old.cluster .. ':' .. old.targetKey
      if redis.call('HGET', KEYS[1], field) == id then redis.call('HDEL', KEYS[1], field) end
    end
    redis.call('HDEL', KEYS[1], id, 'message:' .. id)
    redis.call('ZREM', KEYS[2], id)
  end
end

local function signals(list)
  -- cjson turns an empty array into an empty object; the reader (store/alerts.ts) reads either as [].
  if type(list) ~= 'table' then return {} end
  return list
end

local function sameSignals(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i].kind ~= b[i].kind or a[i].summary ~= b[i].summary or a[i].source ~= b[i].source then return false end
  end
  return true
end

local function record(incident)
  local json = cjson.encode(incident)
  redis.call('HSET', KEYS[1], incident.id, json, ARGV[1], incident.id)
  redis.call('XADD', KEYS[3], 'MINID', '~', ARGV[7], nextStreamId(KEYS[3], ARGV[4]),
    'incident', incident.id, 'version', tostring(incident.version), 'cluster', incident.cluster, 'target', ARGV[6])
  return {'changed', json}
end

purge()
local seen = cjson.decode(ARGV[3])
local now_signals = signals(seen.signals)
local current_id = redis.call('HGET', KEYS[1], ARGV[1])
local current_json = current_id and redis.call('HGET', KEYS[1], current_id)
local current = current_json and cjson.decode(current_json)
local open = current and current.recoveredAt == nil

if not open then
  if #now_signals == 0 then return {'none'} end
  if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then return {'taken'} end
  local kinds = {}
  for i, s in ipairs(now_signals) do kinds[i] = s.kind end
  local incident = {
    id = ARGV[2], cluster = seen.cluster, target = seen.target, targetKey = ARGV[6], rule = seen.rule,
    channel = seen.channel, mention = seen.mention, openedAt = now, updatedAt = now, signals = now_signals,
    seen = kinds, version = 1,
  }
  redis.call('ZADD', KEYS[2], '+inf', incident.id)
  return record(incident)
end

local before = signals(current.signals)
if #now_signals == 0 then
  current.signals = {}
  current.recoveredAt = now
  current.updatedAt = now
  current.version = current.version + 1
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), current.id)
  return record(current)
end

-- A kind already open keeps the time it was first seen in this incident.
local since = {}
for _, s in ipairs(before) do since[s.kind] = s.since end
for _, s in ipairs(now_signals) do
  if since[s.kind] ~= nil then s.since = since[s.kind] end
end
if sameSignals(before, now_signals) then return {'same', current_json} end

local known = {}
for _, kind in ipairs(current.seen) do known[kind] = true end
for _, s in ipairs(now_signals) do
  if not known[s.kind] then
    table.insert(current.seen, s.kind)
    known[s.kind] = true
  end
end
current.signals = now_signals
current.updatedAt = now
current.version = current.version + 1
return record(current)
