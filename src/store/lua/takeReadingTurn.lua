--[[
  The turn to read one job's Flink REST (docs/alerts.md#cost): the first caller within the interval takes it, every
  other caller gets the last reading put, in one step.

  Input:
    KEYS[1]  the turn     {p}:readings:turn:<key>    string, expires after the interval
    KEYS[2]  the reading  {p}:readings:value:<key>   string, JSON {at, value}

    ARGV[1]  the interval, ms

  Output:
    {1} when the caller took the turn, else {0, the reading's JSON or false}
]]

if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return {1} end
return {0, redis.call('GET', KEYS[2])}
