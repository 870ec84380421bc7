-- nextStreamId(key, ms): an explicit stream entry id at `ms` (the writer's clock) that is still greater than the
-- stream's last generated id, so entry ids and `MINID` trimming follow the same clock as the entries' `at`
-- (a clock behind the last id reuses that id's ms with the next sequence number). Works on Redis 6.2.
local function nextStreamId(key, ms)
  local lastMs, lastSeq
  local info = redis.pcall('XINFO', 'STREAM', key)
  if type(info) == 'table' and not info.err then
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then
        local a, b = string.match(info[i + 1], '^(%d+)-(%d+)$')
        lastMs, lastSeq = tonumber(a), tonumber(b)
      end
    end
  end
  if lastMs == nil or tonumber(ms) > lastMs then return ms .. '-0' end
  return string.format('%.0f-%.0f', lastMs, lastSeq + 1)
end
