"""The Lua scripts behind every atomic step of the pipeline (run with EVALSHA via ``register_script``).

Each script validates first and writes last (Redis rolls nothing back), touches only keys of one game (one
hash tag), or only global keys (the rate limits; one Telegram update's mark and its user's: `TELEGRAM_ADMISSION`),
and is O(players). They run the same on redis-server and on fakeredis with lupa.
"""

# Marks message ``index`` of the batch at key ``batch`` done (`MARK_DONE`). -> 1 when that deleted the batch.
MARK_IN_BATCH = """
local function mark_in_batch(batch, index, state, keep)
  if redis.call('EXISTS', batch) == 0 then return 0 end
  if keep ~= '1' then redis.call('HDEL', batch, index) end
  redis.call('HSET', batch, 'd' .. index, state)
  if keep == '1' then return 0 end
  for _, field in ipairs(redis.call('HKEYS', batch)) do
    if string.sub(field, 1, 1) ~= 'd' then return 0 end
  end
  redis.call('DEL', batch)
  return 1
end
"""

# Every script that writes outgoing messages also queues them, in the same step, on the lane of their chat
# (``{g:G}:lane:<chat>``): the order in which a chat's messages were written is the order they are sent in
# (`service.pipeline.outbox`). ``keys[offset + i]`` is the lane of the i-th entry ("<batch>|<index>|<slot>|<seq>").
# A version of a living message queued behind the lane's head that the new entry supersedes is taken off the lane
# and marked sent in its batch as it is queued: the deliverer would skip it anyway (`outbox.superseded`, the same
# rule), and a group short of budget (20 messages a minute) would otherwise keep every version it was written,
# with its batch, until the lane reached it. The head is left alone: a deliverer may be sending it.
PUSH_LANES = (
    MARK_IN_BATCH
    + """
local function parse_entry(entry)
  local batch, index, slot, seq = string.match(entry, '^([^|]*)|(%d+)|([^|]*)|(%-?%d*)$')
  return batch, index, slot, seq
end

local function supersedes(new_seq, old_seq)
  if new_seq == '' then return old_seq == '' end
  return old_seq == '' or tonumber(new_seq) >= tonumber(old_seq)
end

local function drop_superseded(lane, entry, keep)
  local _, _, slot, seq = parse_entry(entry)
  if slot == '' then return end
  local at = string.find(lane, '}:lane:', 1, true)
  local outbox = string.sub(lane, 1, at) .. ':out:'
  local queued = redis.call('LRANGE', lane, 1, -1)
  for _, old in ipairs(queued) do
    local batch, index, old_slot, old_seq = parse_entry(old)
    if old_slot == slot and supersedes(seq, old_seq) then
      redis.call('LREM', lane, 1, old)
      mark_in_batch(outbox .. batch, index, 'sent', keep)
    end
  end
end

local function push_lanes(keys, offset, entries, ttl, keep)
  for i, entry in ipairs(entries) do
    drop_superseded(keys[offset + i], entry, keep)
    redis.call('RPUSH', keys[offset + i], entry)
    redis.call('EXPIRE', keys[offset + i], ttl)
  end
end
"""
)

# KEYS: snap, exp, ans, auto, dedup set, due set, away, answered-at, refresh seats, refresh mark
# ARGV: window, seat, answer JSON, dedup id ("" for none), dedup ttl, now, when the sweeper is to resolve it, game id,
#       "1" when the bot answers for the seat's player ("0": the player answers), how long a refresh mark lasts,
#       "1" when the player typed the answer in a chat of living messages ("0": a button, or another channel),
#       when the window is to close if this answer completes it while a seat's question ahead is open ("": at
#       once), "1" when this answer leaves the seat a question ahead open (kept as the snapshot's "ahead:<seat>",
#       which the seat's next answer replaces and the commit drops)
# -> {status, missing, asked, back}: DUP | NOGAME | STALE | CLOSED | ACCEPTED (missing > 0) | HELD (complete, and
# held open until the earliest hold asked of the window, which a later answer neither moves nor ends; one already
# over closes it) | RESOLVE (exactly once); back is 1 when the player's own answer ended an absence
# still running (they said they were away). HELD is answered as ACCEPTED is, and makes the game due for the
# sweeper at the hold's end.
# ACCEPTED also notes that the next status refresh is to show the seat's answer (its tick): the seat joins the
# refresh seats, and asked is 1 when this answer set the refresh mark (no refresh job was pending: the caller
# queues one), else 0.
# RESOLVE also makes the game due for the sweeper in the same step: should the caller fail to queue the
# resolution (killed, or Redis failing over), the window is still resolved, not left until its deadline.
# The player's answer ends the seat's auto-play streak and its player's absence (away), and the first one of the
# window records when it came (the player's answer time: `service.pipeline.records`); the bot's does none of it.
# Whether the player's latest answer of the window was typed is the answered-at field "typed:<seat>" (present:
# typed), for the step's messages (`service.pipeline.news.carry_turn_ends`).
# The dedup set holds the ids of the open window's answers only (the commit empties it): a repeat that comes
# after its window closed is refused as STALE instead, and a game keeps no key per answer.
SUBMIT = """
if ARGV[4] ~= '' and redis.call('SISMEMBER', KEYS[5], ARGV[4]) == 1 then
  redis.call('EXPIRE', KEYS[5], ARGV[5])  -- a write, so that a WAIT after a duplicate covers the first delivery
  return {'DUP', 0}
end
local st = redis.call('HMGET', KEYS[1], 'window', 'status')
if not st[1] then return {'NOGAME', 0} end
if st[1] ~= ARGV[1] then return {'STALE', 0} end
if st[2] ~= 'collecting' then return {'CLOSED', 0} end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
local back = 0
if ARGV[9] ~= '1' then
  local away = redis.call('HGET', KEYS[7], ARGV[2])
  if away and tonumber(away) > tonumber(ARGV[6]) then back = 1 end
  redis.call('HDEL', KEYS[4], ARGV[2])
  redis.call('HDEL', KEYS[7], ARGV[2])
  redis.call('HSETNX', KEYS[8], ARGV[2], ARGV[6])
  if ARGV[11] == '1' then
    redis.call('HSET', KEYS[8], 'typed:' .. ARGV[2], '1')
  else
    redis.call('HDEL', KEYS[8], 'typed:' .. ARGV[2])
  end
end
if ARGV[4] ~= '' then
  redis.call('SADD', KEYS[5], ARGV[4])
  redis.call('EXPIRE', KEYS[5], ARGV[5])
end
local missing = 0
for _, seat in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if redis.call('HEXISTS', KEYS[3], seat) == 0 then missing = missing + 1 end
end
if ARGV[13] == '1' then
  redis.call('HSET', KEYS[1], 'ahead:' .. ARGV[2], '1')
else
  redis.call('HDEL', KEYS[1], 'ahead:' .. ARGV[2])
end
local held = nil
local open_ahead = false
if missing == 0 and ARGV[12] ~= '' then
  for _, seat in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    if redis.call('HEXISTS', KEYS[1], 'ahead:' .. seat) == 1 then open_ahead = true end
  end
end
if open_ahead then
  held = tonumber(ARGV[12])
  local before = redis.call('HGET', KEYS[1], 'held')
  if before and tonumber(before) < held then held = tonumber(before) end
  if held <= tonumber(ARGV[6]) then held = nil end
end
if missing > 0 or held then
  redis.call('SADD', KEYS[9], ARGV[2])
  redis.call('EXPIRE', KEYS[9], ARGV[10])
  local asked = redis.call('SET', KEYS[10], ARGV[1], 'NX', 'EX', ARGV[10])
  if missing > 0 then return {'ACCEPTED', missing, asked and 1 or 0, back} end
  redis.call('HSET', KEYS[1], 'held', tostring(held))
  local due = redis.call('ZSCORE', KEYS[6], ARGV[8])
  if not due or tonumber(due) > held then redis.call('ZADD', KEYS[6], held, ARGV[8]) end
  return {'HELD', 0, asked and 1 or 0, back}
end
redis.call('HSET', KEYS[1], 'status', 'resolving', 'closed', ARGV[6])
redis.call('ZADD', KEYS[6], ARGV[7], ARGV[8])
return {'RESOLVE', 0, 0, back}
"""

# KEYS: dedup set of the open window, of the window closed last      ARGV: dedup id, dedup ttl
# -> 1 when the id is recorded in either (and touched: a write, so that a WAIT after it covers the first
#    delivery of that answer), else 0.
RECORDED = """
for _, key in ipairs(KEYS) do
  if redis.call('SISMEMBER', key, ARGV[1]) == 1 then
    redis.call('EXPIRE', key, ARGV[2])
    return 1
  end
end
return 0
"""

# KEYS: snap      ARGV: window, now
# -> {'CLOSED'} when this call flipped collecting -> resolving ({'CLOSED', held} when at the end of a hold, before
#    the deadline: `Settings.may_hold_seconds`); {'EARLY', when} while the (possibly extended) deadline, or the
#    hold's end, is still ahead; {'NOOP'} when the window is not open any more.
CLOSE_AT_DEADLINE = """
local st = redis.call('HMGET', KEYS[1], 'window', 'status', 'deadline', 'held')
if st[1] ~= ARGV[1] or st[2] ~= 'collecting' then return {'NOOP'} end
local closes = st[3]
if st[4] and tonumber(st[4]) < tonumber(closes) then closes = st[4] end
if tonumber(ARGV[2]) < tonumber(closes) then return {'EARLY', closes} end
redis.call('HSET', KEYS[1], 'status', 'resolving', 'closed', ARGV[2])
if closes ~= st[3] then return {'CLOSED', closes} end
return {'CLOSED'}
"""

# KEYS: snap, exp, ans, auto, log, outbox batch, action log, dedup set, the previous window's dedup set,
#       answered-at, tally, the due set, away, then the lane of each outgoing message, then the scheduled-job
#       registry and the hash of each job to drop (none: no keys), then (with ARGV[21]) the refresh mark, the
#       refresh seats, the refresh queue and the refresh job's hash
# ARGV: [1] version the snapshot must have ("0": the game must not exist yet), [2] window being resolved,
#       [3] engine JSON, [4] new window id, [5] new status, [6] deadline, [7] now,
#       [8] JSON expected seats, [9] JSON {seat: answer JSON} pre-filled for bot-played seats,
#       [10] JSON {seat: auto-plays in a row}, [11] JSON list of outgoing messages, [12] outbox TTL,
#       [13] JSON list of action-log lines to append (the config line first, then "[seat, action]" lines),
#       [14] JSON {field: string} of extra snapshot fields (e.g. the status message's news),
#       [15] JSON list of the outgoing messages' lane entries (pushed on KEYS[13 + i], see `push_lanes`),
#       [16] JSON {tally field: count to add}, [17] JSON {tally field: text to append},
#       [18] when the sweeper is to look at the game next ("": as it was), [19] game id (its member in the due set),
#       [20] JSON list of the ids of the scheduled jobs to drop (the resolved window's deadline and reminders),
#       [21] the id of the resolved window's status refresh job ("": none), [22] keep ("1": delivered messages
#       stay, `MARK_DONE`)
# -> {the new version, the auto-play streaks and the away seats after it (flat hashes)}: the seats the bot plays
# in the new window, read in the same step; or 0 when the compare-and-set failed (another resolution won). The
# due time is set in the
# same step, so that a process that dies after the commit, before its follow-ups, leaves the game to the sweeper.
# A scheduled job is dropped with its hash only if this removed it from the registry: whoever removes it owns it
# (the scheduler may have moved it to its queue meanwhile; it then runs, and finds nothing to do). So is the
# window's refresh job, if the refresh mark is still the window's and this removed the job from its queue (a job a
# worker has taken runs, and finds the window closed); the mark and the seats go with it, so that an answer to the
# next window queues a refresh of its own.
COMMIT = (
    PUSH_LANES
    + """
local cur = redis.call('HMGET', KEYS[1], 'version', 'window', 'status')
if ARGV[1] == '0' then
  if cur[1] then return 0 end
elseif cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] or cur[3] ~= 'resolving' then
  return 0
end
local v = tonumber(ARGV[1]) + 1
redis.call('HSET', KEYS[1], 'version', v, 'window', ARGV[4], 'status', ARGV[5], 'deadline', ARGV[6],
           'opened', ARGV[7], 'closed', ARGV[5] == 'resolving' and ARGV[7] or '', 'json', ARGV[3])
redis.call('HDEL', KEYS[1], 'held', 'ahead:0', 'ahead:1', 'ahead:2', 'ahead:3', 'ahead:4', 'ahead:5', 'ahead:6')
redis.call('DEL', KEYS[2], KEYS[3], KEYS[9], KEYS[10])
if redis.call('EXISTS', KEYS[8]) == 1 then redis.call('RENAME', KEYS[8], KEYS[9]) end
for _, seat in ipairs(cjson.decode(ARGV[8])) do redis.call('SADD', KEYS[2], seat) end
for seat, answer in pairs(cjson.decode(ARGV[9])) do redis.call('HSET', KEYS[3], seat, answer) end
for seat, n in pairs(cjson.decode(ARGV[10])) do
  if n == 0 then redis.call('HDEL', KEYS[4], seat) else redis.call('HSET', KEYS[4], seat, n) end
end
for i, message in ipairs(cjson.decode(ARGV[11])) do redis.call('HSET', KEYS[6], i - 1, message) end
redis.call('EXPIRE', KEYS[6], ARGV[12])
local lanes = cjson.decode(ARGV[15])
push_lanes(KEYS, 13, lanes, ARGV[12], ARGV[22])
for field, n in pairs(cjson.decode(ARGV[16])) do redis.call('HINCRBY', KEYS[11], field, n) end
for field, text in pairs(cjson.decode(ARGV[17])) do
  redis.call('HSET', KEYS[11], field, (redis.call('HGET', KEYS[11], field) or '') .. text)
end
for _, entry in ipairs(cjson.decode(ARGV[13])) do redis.call('RPUSH', KEYS[7], entry) end
for field, value in pairs(cjson.decode(ARGV[14])) do redis.call('HSET', KEYS[1], field, value) end
redis.call('RPUSH', KEYS[5], v .. ':' .. ARGV[2])
if ARGV[18] ~= '' then redis.call('ZADD', KEYS[12], ARGV[18], ARGV[19]) end
local registry = 13 + #lanes + 1
for i, job_id in ipairs(cjson.decode(ARGV[20])) do
  if redis.call('ZREM', KEYS[registry], job_id) == 1 then redis.call('DEL', KEYS[registry + i]) end
end
if ARGV[21] ~= '' then
  local r = #KEYS - 3
  if redis.call('GET', KEYS[r]) == ARGV[2] and redis.call('LREM', KEYS[r + 2], 1, ARGV[21]) == 1 then
    redis.call('DEL', KEYS[r], KEYS[r + 1], KEYS[r + 3])
  end
end
return {v, redis.call('HGETALL', KEYS[4]), redis.call('HGETALL', KEYS[13])}
"""
)

# KEYS: snap, outbox batch, then the lane of each message      ARGV: window, TTL, once, JSON lane entries,
#       keep ("1": delivered messages stay, `MARK_DONE`), message JSON...
# Writes a batch only while the window is still collecting, and not over a batch of the same name still waiting.
# ``once`` (a reminder's "<window>:<point>", or "" for none) is kept in the snapshot's field ``reminded``: a
# batch is deleted once delivered, so this is what stops the same reminder from being written twice.
# -> 1 written, 0 not.
WRITE_REMINDER = (
    PUSH_LANES
    + """
local st = redis.call('HMGET', KEYS[1], 'window', 'status', 'reminded')
if st[1] ~= ARGV[1] or st[2] ~= 'collecting' then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[3] ~= '' then
  if st[3] == ARGV[3] then return 0 end
  redis.call('HSET', KEYS[1], 'reminded', ARGV[3])
end
for i = 6, #ARGV do redis.call('HSET', KEYS[2], i - 6, ARGV[i]) end
redis.call('EXPIRE', KEYS[2], ARGV[2])
push_lanes(KEYS, 2, cjson.decode(ARGV[4]), ARGV[2], ARGV[5])
return 1
"""
)

# KEYS: outbox batch, then the lane of each message      ARGV: TTL, JSON lane entries, keep, message...
# Writes a whole batch at once, unless it is stored already. -> 1 written, 0 not.
WRITE_BATCH = (
    PUSH_LANES
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 4, #ARGV do redis.call('HSET', KEYS[1], i - 4, ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
push_lanes(KEYS, 1, cjson.decode(ARGV[2]), ARGV[1], ARGV[3])
return 1
"""
)

# KEYS: outbox batch      ARGV: index, state ("sent" | "failed"), keep
# Marks one message done: its body is dropped from the batch and field "d<index>" holds its state; once no body is
# left, the batch is deleted, so a game keeps in Redis only what is still to be sent (``keep`` "1": the bodies
# stay beside their marks and the batch is kept, for audits). A batch already deleted (every message of it done)
# is left alone: no mark is written for it. -> 1 when the batch was deleted.
MARK_DONE = (
    MARK_IN_BATCH
    + """
return mark_in_batch(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
"""
)

# KEYS: snap, pause, pause votes      ARGV: now, until
# Pauses the table until ``until`` unless it is paused already, and shifts the open window's deadline by the
# pause. -> {'PAUSED', deadline or ''} | {'ALREADY', until} | {'NOGAME'} | {'OVER'}.
PAUSE = """
local st = redis.call('HMGET', KEYS[1], 'status', 'deadline')
if not st[1] then return {'NOGAME'} end
if st[1] == 'over' then return {'OVER'} end
local cur = redis.call('HGET', KEYS[2], 'until')
if cur and tonumber(cur) > tonumber(ARGV[1]) then return {'ALREADY', cur} end
redis.call('HSET', KEYS[2], 'until', ARGV[2], 'since', ARGV[1])
redis.call('DEL', KEYS[3])
if st[1] ~= 'collecting' then return {'PAUSED', ''} end
return {'PAUSED', redis.call('HINCRBYFLOAT', KEYS[1], 'deadline', tonumber(ARGV[2]) - tonumber(ARGV[1]))}
"""

# KEYS: snap, pause      ARGV: now, the pause's until ("" = whichever: an early resume)
# Ends the pause; the open window's deadline gives back what is left of it. A scheduled end names its pause,
# so an old job cannot end a newer pause. -> {'RESUMED', deadline or '', the pause's until} | {'NOTPAUSED'}.
RESUME = """
local cur = redis.call('HGET', KEYS[2], 'until')
if not cur or (ARGV[2] ~= '' and cur ~= ARGV[2]) then return {'NOTPAUSED'} end
redis.call('DEL', KEYS[2])
local left = math.max(0, tonumber(cur) - tonumber(ARGV[1]))
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'collecting' or left == 0 then return {'RESUMED', '', cur} end
return {'RESUMED', redis.call('HINCRBYFLOAT', KEYS[1], 'deadline', -left), cur}
"""

# KEYS: snap      ARGV: window, seconds to add -> the new deadline, or false when the window is not open.
EXTEND_DEADLINE = """
local st = redis.call('HMGET', KEYS[1], 'window', 'status')
if st[1] ~= ARGV[1] or st[2] ~= 'collecting' then return false end
return redis.call('HINCRBYFLOAT', KEYS[1], 'deadline', ARGV[2])
"""

# KEYS: heartbeat      ARGV: now
# Beats, and returns the seconds since the previous beat ("0" on the first beat). One caller sees each gap.
HEARTBEAT = """
local last = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
if not last then return '0' end
return tostring(tonumber(ARGV[1]) - tonumber(last))
"""

# KEYS: pause, global bucket, chat bucket, seats' messages waiting (a flag: until when)
# ARGV: now, global rate/s, global capacity, chat rate/s, chat capacity, "1" for a send that goes first (a seat's),
#       the flag's slack (s), the rate's share in a burst's first second
# Takes one token from both buckets, or none; -> "0" when sent may go now, else seconds to wait (string). A pause of
# every send (the pause key) or of the chat's (its bucket's "until": `THROTTLED`) is waited out first. The seats'
# messages go first: one refused for want of a global token raises the flag until it tries again (and the slack),
# and while it is up the other sends (the groups' statuses) take no token and wait, so that a burst of tables'
# questions is not slowed by their statuses.
TAKE_SEND_TOKEN = """
local now = tonumber(ARGV[1])
local pause = tonumber(redis.call('GET', KEYS[1]) or '0')
if pause > now then return tostring(pause - now) end
local first = ARGV[6] == '1'
if not first then
  local flagged = tonumber(redis.call('GET', KEYS[4]) or '0')
  if flagged > now then return tostring(math.max(flagged - now, 1 / tonumber(ARGV[2]))) end
end
-- -> the bucket's level now, and the time it is counted to. Callers' clocks are read before their scripts run, so a
-- ``now`` may be older than the last write: the bucket's time never goes back (it did, and each step back was
-- refilled twice: up to 31 calls in a second at 28 a second, bench/due.py).
local function level(key, rate, cap)
  local b = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(b[1]) or cap
  local ts = tonumber(b[2]) or now
  return math.min(cap, tokens + math.max(0, now - ts) * rate), math.max(ts, now)
end
local chat_pause = tonumber(redis.call('HGET', KEYS[3], 'until') or '0')
if chat_pause > now then return tostring(chat_pause - now) end
local grate, gcap = tonumber(ARGV[2]), tonumber(ARGV[3])
local crate, ccap = tonumber(ARGV[4]), tonumber(ARGV[5])
-- the first second of a burst (no token taken for a second before it) refills at ARGV[8] of the rate: the first
-- calls of a burst reach Telegram later after their tokens than the rest (connections opened again, threads woken),
-- and bunched with those that follow they made 31 in a second
local gb = redis.call('HMGET', KEYS[2], 'since', 'ts')
local since, last = tonumber(gb[1] or '-1e9'), tonumber(gb[2] or '-1e9')
if now - since < 1 then grate = grate * tonumber(ARGV[8]) end
local g, gts = level(KEYS[2], grate, gcap)
local c, cts = level(KEYS[3], crate, ccap)
if g < 1 then
  if first then
    local back = now + (1 - g) / grate + tonumber(ARGV[7])  -- when it tries again, and a moment more
    if back > tonumber(redis.call('GET', KEYS[4]) or '0') then redis.call('SET', KEYS[4], tostring(back), 'EX', 60) end
  end
  return tostring((1 - g) / grate)
end
if c < 1 then return tostring((1 - c) / crate) end
if now - last >= 1 then redis.call('HSET', KEYS[2], 'since', now) end
redis.call('HSET', KEYS[2], 'tokens', g - 1, 'ts', gts)
redis.call('HSET', KEYS[3], 'tokens', c - 1, 'ts', cts)
redis.call('EXPIRE', KEYS[2], 3600)
redis.call('EXPIRE', KEYS[3], 3600)
return '0'
"""

# KEYS: chat bucket, recent 429s (zset chat -> when), pause
# ARGV: now, seconds to wait, window (s), chats
# A chat was answered 429: its sends wait ``seconds``. When 429s came from ``chats`` different chats within the last
# ``window`` seconds, it is the channel's limit for the whole bot, not the chat's: every send waits. -> 1 then, else 0.
THROTTLED = """
local now, seconds = tonumber(ARGV[1]), tonumber(ARGV[2])
local chat_until = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
redis.call('HSET', KEYS[1], 'until', math.max(chat_until, now + seconds))
redis.call('EXPIRE', KEYS[1], math.max(3600, math.ceil(seconds) + 1))
redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
redis.call('EXPIRE', KEYS[2], math.ceil(tonumber(ARGV[3])) + 1)
if redis.call('ZCARD', KEYS[2]) < tonumber(ARGV[4]) then return 0 end
local pause = tonumber(redis.call('GET', KEYS[3]) or '0')
if now + seconds > pause then redis.call('SET', KEYS[3], tostring(now + seconds), 'EX', math.ceil(seconds) + 1) end
return 1
"""

# take_inbound(key, now, refill rate in tokens/s, capacity, whether to warn once): takes a token from an inbound
# bucket (hash tokens, ts, warned) -> "ok"; when empty -> "warn" the first time since the bucket last had a
# token (if warning), else "drop". The key expires once it would be full again (a sender who stopped costs nothing).
TAKE_INBOUND = """
local function take_inbound(key, now, rate, cap, warn)
  local b = redis.call('HMGET', key, 'tokens', 'ts', 'warned')
  local tokens = tonumber(b[1]) or cap
  local ts = tonumber(b[2]) or now
  tokens = math.min(cap, tokens + math.max(0, now - ts) * rate)
  local verdict = 'ok'
  local warned = b[3] or '0'
  if tokens >= 1 then
    tokens = tokens - 1
    warned = '0'
  elseif warn and warned ~= '1' then
    verdict = 'warn'
    warned = '1'
  else
    verdict = 'drop'
  end
  redis.call('HSET', key, 'tokens', tokens, 'ts', now, 'warned', warned)
  redis.call('EXPIRE', key, math.ceil((cap - tokens) / rate) + 1)
  return verdict
end
"""

# KEYS: an inbound bucket      ARGV: now, refill rate (tokens/s), capacity, whether to warn once ("1"/"0")
# -> take_inbound's verdict
TAKE_INBOUND_TOKEN = (
    TAKE_INBOUND
    + """
return take_inbound(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1')
"""
)

# KEYS: the update's "handled" mark, the user's own language choice, their "started" mark, their inbound bucket
# ARGV: how long the started mark is kept (seconds), then the bucket's now, rate, capacity, warn (TAKE_INBOUND_TOKEN)
# A Telegram update of a user in private (a text, a press of our private message's button), admitted in one step:
# -> {0} when the update was handled already (nothing else done); else {1, their language or false, the bucket's
# verdict}, with the started mark set (a private chat with them exists).
TELEGRAM_ADMISSION = (
    TAKE_INBOUND
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
local lang = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[3], 1, 'EX', ARGV[1])
return {1, lang, take_inbound(KEYS[4], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1')}
"""
)

# KEYS: a hash      ARGV: TTL seconds, then field, value pairs
# Writes the fields and makes the key expire in at least TTL seconds (a longer TTL it has is kept; a key
# without one gets it).
HSET_KEEP_LONGER_TTL = """
local ttl = tonumber(ARGV[1])
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2)) end
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('TTL', KEYS[1]) < ttl then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return 1
"""

# KEYS: a lane's lease      ARGV: the deliverer's token, milliseconds
# Renews the lease for that long while the token holds it. -> 1 renewed, 0 lost (ran out, or another holds it).
RENEW_LEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: a lane's lease      ARGV: the deliverer's token
# Gives the lease back while the token holds it (never another deliverer's, taken after this one's ran out).
RELEASE_LEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""

# KEYS: the ready set, then the lease of each resolving job     ARGV: member ("" for none), now, token, lease ms
# Notes a closed window ready to resolve (member "<game> <window>", once while it waits), then takes the first free
# lease of a resolving job for ``token``. -> the lease's index, or -1 when every lease is held (or nothing waits):
# a job holding one takes the window before it ends (`TAKE_READY`).
QUEUE_READY = """
if ARGV[1] ~= '' then redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) end
if redis.call('ZCARD', KEYS[1]) == 0 then return -1 end
for i = 2, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[3], 'NX', 'PX', ARGV[4]) then return i - 2 end
end
return -1
"""

# KEYS: the ready set, the job's lease      ARGV: token, lease ms, "keep" ("1": the job still has work of its own)
# The window that has waited longest, taken off the set: -> {member, when it was noted}, its lease renewed; or {}
# when none waits, its lease given back in the same step, so that a window noted after this finds it free — unless
# "keep": the lease is then renewed, and the job asks again once its own work is done (a window noted meanwhile
# waits for it).
TAKE_READY = """
local held = redis.call('GET', KEYS[2]) == ARGV[1]
local taken = redis.call('ZPOPMIN', KEYS[1])
if held then
  if #taken == 0 and ARGV[3] ~= '1' then redis.call('DEL', KEYS[2]) else redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
end
return taken
"""

# KEYS: slot seqs (hash), what living messages show (hash), Telegram message ids (hash)
# ARGV: "<chat>|<slot>", seq, TTL, how many of a chat's living messages of one kind to keep (0: all)
# Raises the newest seq delivered to a living message; -> 1 when ``seq`` is not older than it, else 0. The first
# delivery to a slot ("<game>:p<turn>", "<game>:s<turn>") forgets the chat's older slots of that kind beyond the
# newest ARGV[4]: a step edits only a chat's current message and the one before it (its last version), and a
# game keeps a few fields per chat, not a few per turn. A slot whose closing version is still owed (its shown
# field "|unclosed") is kept.
RAISE_SEQ = """
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if cur > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
local prefix = string.match(ARGV[1], '^(.*[^%d])%d+$')
if cur >= 0 or not prefix or tonumber(ARGV[4]) == 0 then return 1 end
local found = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, #prefix) == prefix and string.match(string.sub(field, #prefix + 1), '^%d+$') then
    table.insert(found, {tonumber(string.sub(field, #prefix + 1)), field})
  end
end
table.sort(found, function(a, b) return a[1] > b[1] end)
for i = tonumber(ARGV[4]) + 1, #found do
  local field = found[i][2]
  if redis.call('HEXISTS', KEYS[2], field .. '|unclosed') == 0 then
    redis.call('HDEL', KEYS[1], field)
    redis.call('HDEL', KEYS[2], field, field .. '|news', field .. '|prefix')
    redis.call('HDEL', KEYS[3], field, field .. '|picture')
  end
end
return 1
"""

# KEYS: recorded set, the group's history list, then for each player: record hash, times list, no-record flag
# ARGV: game id, history entry JSON ("" for none), history cap, times cap, then for each player JSON
#       {"add": {field: n}, "times": [seconds, ...]}
# Folds a finished game into its players' records once (a game already in the recorded set changes nothing); a
# player who said /stats off (their flag is set) is left out. -> 1 folded, 0 done before.
RECORD_GAME = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= '' then
  redis.call('LPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
end
for i = 5, #ARGV do
  local k = 3 + (i - 5) * 3
  if redis.call('EXISTS', KEYS[k + 2]) == 0 then
    local rec = cjson.decode(ARGV[i])
    for field, n in pairs(rec['add']) do redis.call('HINCRBY', KEYS[k], field, n) end
    for _, t in ipairs(rec['times']) do redis.call('RPUSH', KEYS[k + 1], t) end
    redis.call('LTRIM', KEYS[k + 1], -tonumber(ARGV[4]), -1)
  end
end
return 1
"""
