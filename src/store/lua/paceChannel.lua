--[[
  The installation-wide pace of one Slack channel (docs/lifecycle.md#delivery-and-pacing), or the coalescing window of
  one card's edits: a "turn" that one replica holds while its call is in flight, and the time before which no
  next turn starts. Times come from the Redis server's clock (TIME), never from a replica's, so clock skew between
  replicas cannot make two of them post too close together.

  Input:
    KEYS[1]  pace hash   {p}:notifier:pace:<channel>  (or {p}:notifier:card-edit:<op id>)
             fields: next   (ms, Redis clock) no turn starts before it
                     prev   next as it was before the turn in flight (restored when that turn made no call)
                     holder token of the replica whose call is in flight
                     until  (ms) when that turn lapses if its holder never ends it (a crash)

    ARGV[1]  'acquire' | 'release' | 'hold'
    acquire: ARGV[2] token, ARGV[3] interval (ms, the provisional next after now), ARGV[4] turn ttl (ms),
             ARGV[5] poll (ms, the wait hint while another turn is in flight and its next has passed)
    release: ARGV[2] token, ARGV[3] interval (ms), ARGV[4] '1' the call was made | '0' it was not:
             made: next = at least now + interval (measured from its completion); not made: next as before
    hold:    ARGV[2] ms (Retry-After): next = at least now + ms

  Output: acquire: 0 = the turn is ours, > 0 = ms to wait before asking again; release: 1 = it was ours, 0 = not
          (it lapsed; after a call next is pushed out all the same); hold: the ms until next.
]]

if redis.replicate_commands then redis.replicate_commands() end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local mode = ARGV[1]
local next = tonumber(redis.call('HGET', KEYS[1], 'next') or '0') or 0
local holder = redis.call('HGET', KEYS[1], 'holder')
local untilAt = tonumber(redis.call('HGET', KEYS[1], 'until') or '0') or 0
-- The hash outlives whatever it still decides by a minute; an idle channel leaves nothing behind.
local KEEP_MS = 60000

local function expire(at)
  redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(at, next, untilAt) - now) + KEEP_MS)
end

local function ms(x)
  return string.format('%.3f', x)
end

if mode == 'acquire' then
  local token = ARGV[2]
  if holder and holder ~= token and untilAt > now then
    -- Another replica's call is in flight: it cannot end before now, so its next is at least now + interval.
    return math.max(1, math.ceil(math.max(next - now, tonumber(ARGV[5]))))
  end
  if next > now then return math.max(1, math.ceil(next - now)) end
  untilAt = now + tonumber(ARGV[4])
  redis.call('HSET', KEYS[1], 'holder', token, 'until', ms(untilAt), 'prev', ms(next), 'next', ms(now + tonumber(ARGV[3])))
  next = now + tonumber(ARGV[3])
  expire(next)
  return 0
elseif mode == 'release' then
  local mine = 0
  if holder == ARGV[2] then
    mine = 1
    if ARGV[4] == '0' then
      -- No call was made in this turn: give back the provisional next (a hold since then stays in force).
      local prev = tonumber(redis.call('HGET', KEYS[1], 'prev') or '0') or 0
      local held = tonumber(redis.call('HGET', KEYS[1], 'held') or '0') or 0
      next = math.max(prev, held)
    end
    redis.call('HDEL', KEYS[1], 'holder', 'until', 'prev')
    untilAt = 0
  end
  if ARGV[4] ~= '0' then next = math.max(next, now + tonumber(ARGV[3])) end
  redis.call('HSET', KEYS[1], 'next', ms(next))
  expire(next)
  return mine
elseif mode == 'hold' then
  local held = math.max(tonumber(redis.call('HGET', KEYS[1], 'held') or '0') or 0, now + tonumber(ARGV[2]))
  next = math.max(next, held)
  redis.call('HSET', KEYS[1], 'next', ms(next), 'held', ms(held))
  expire(next)
  return math.ceil(next - now)
end
return redis.error_reply('paceChannel: unknown mode ' .. tostring(mode))
