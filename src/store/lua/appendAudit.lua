--[[
  Appends one sealed audit event after the chain's head, only if the head is still the one it was sealed after
  (docs/audit.md#where-the-chain-is-kept); trims the chain by age, never past the webhook's position.

  Input:
    KEYS[1]  chain              {p}:audit:chain              stream, entry id <ms>-<seq>, field `event`
    KEYS[2]  head               {p}:audit:head               hash seq, hash
    KEYS[3]  webhook position   {p}:audit:webhook:position   string: last acknowledged seq

    ARGV[1]  expected head seq ('0': no event yet)
    ARGV[2]  expected head hash
    ARGV[3]  the event's seq
    ARGV[4]  the event's hash
    ARGV[5]  the sealed event JSON
    ARGV[6]  the event's `at` (ms)
    ARGV[7]  age cutoff (ms): older entries may be trimmed (MINID ~), unless after the position

  Output:
    {'ok', entry id}
    {'conflict'}        the head moved: read it again and reseal
]]
-- @include auditSeek
-- @include auditChain

if not auditHeadIs(KEYS[2], ARGV[1], ARGV[2]) then return {'conflict'} end
return {'ok', auditAdd(KEYS[1], KEYS[2], KEYS[3], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])}
