"""Redis key names, and the shard of a game. Every key of one game carries the hash tag ``{g:<id>}`` so a game
lives in one slot.

Sharded (``ARTEMIA_REDIS_SHARDS``), the keys of a game live on its shard (`shard_of`), and so do ``artemia:due``
and ``artemia:heartbeat`` (each shard has its own due set and sweeper, as it has its own RQ queues: the commit
script writes the due set and the RQ registry of the game's timers in one step, on one server); every other
global key lives on the index Redis (``REDIS_URL``).

Per game ``G``:
    {g:G}:snap            hash  version, window, status, deadline, opened, closed, followed, json
    {g:G}:exp             set   seats the open window waits for (fixed when it opened)
    {g:G}:ans             hash  seat -> JSON list of actions answered for the open window
    {g:G}:auto            hash  seat -> deadline auto-plays in a row (>= the limit: bot-played)
    {g:G}:meta            hash  players, group chat, deadline seconds, bots, language
    {g:G}:log             list  "<version>:<resolved window>" per commit: the audit trail of resolutions
    {g:G}:actions         list  the config JSON, then one JSON ``[seat, action]`` per applied action, appended by
                                the same commit as the resolution (replayable: `service.replay`)
    {g:G}:out:<batch>     hash  index -> outgoing message JSON (a batch per commit or reminder) until it is sent,
                                then "d<index>" -> "sent" | "failed"; deleted once every message of it is done
    {g:G}:seq             hash  "<chat>|<slot>" -> the newest ``seq`` delivered to that living message (older
                                ones are skipped); one hash per game, compact in Redis's listpack encoding
    {g:G}:lane:<chat>     list  the chat's messages still to send, in the order they were written
                                ("<batch>|<index>|<slot>|<seq>"): the outbox sends a chat's messages in this order
    {g:G}:lanelock:<chat>       held by the one deliverer draining that lane
    {g:G}:lanes           hash  "<chat>" -> "<entry>|<failures>|<not before>" of a lane whose head failed
    {g:G}:shown           hash  "<chat>|<slot>" -> digest of what that living message shows (an identical
                                version is not sent again)
    {g:G}:tg:slots        hash  "<chat>|<slot>" -> Telegram message id of a living message (telegram_send)
    {g:G}:tg:boards       hash  picture digest -> Telegram file_id of the latest board picture uploaded
    {g:G}:refreshes             counter naming the status-refresh batches
    {g:G}:refresh               set while a status-refresh job is queued and has not started (one at a time)
    {g:G}:refreshing      set   seats whose answer the next status refresh shows
    {g:G}:dedup           set   idempotency ids of the open window's answers (emptied by each commit)
    {g:G}:ansat           hash  seat -> when it first answered the open window (emptied by each commit)
    {g:G}:tally           hash  "asked:<seat>", "missed:<seat>" counts and "times:<seat>" (answer times in seconds,
                                space-separated) of the seats a window asked in person (written by the commits)
    {g:G}:away            hash  seat -> until when its player is away (the bot plays it; answering ends it)
    {g:G}:pause           hash  until, since: the table is paused (deadlines shifted by the pause)
    {g:G}:pausevotesecs   hash  seat -> seconds: the players' votes for a pause (a majority pauses)
Per shard (with a single Redis, on it):
    artemia:due           zset  game -> when the sweeper should look at it next
    artemia:heartbeat           last time the sweeper ran (downtime detection)
    artemia:replicated          a counter written before each replication barrier's WAIT (Store.replicated)
    artemia:ready         zset  "<game> <window>" -> when it was closed: windows waiting for a resolving job
    artemia:resolver:<n>        held by the n-th resolving job that drains ``artemia:ready`` (a lease)
    rq:*                        the RQ queues, registries and jobs of the shard's games
Global (not per game; on the index Redis):
    artemia:games:<u>     zset  game -> when it began, for every game a player plays
    artemia:lobby:*, artemia:place:*, artemia:opened:*   the lobby's tables (service.pipeline.lobby)
    artemia:tables:<address>    zset  the tables an address opened -> when they expire (at most a few open)
    artemia:chat:<c>            the game played in a chat
    artemia:watch:<token>       the game whose watch page is /w/<token> (the token is in its meta: "watch")
    artemia:rl:*                send-rate token buckets and the global pause
    artemia:rl:in:<address>     inbound flood bucket of one sender (service.pipeline.floods); expires when full
    artemia:rl:dropped:<address>  how many of its texts the bucket dropped unread since it last read one (a day)
    artemia:rl:in-strangers     the shared bucket of replies to senders who play nothing
    artemia:rl:reply:<chat>:<digest>  a webhook reply waiting for its chat's budget (one per chat and text)
    artemia:record:<u>    hash  a player's record across tables (service.pipeline.records)
    artemia:record:<u>:times list the player's answer times (seconds), the newest `RECORD_TIMES` kept
    artemia:norecord:<u>        the player said /stats off: nothing is recorded for them
    artemia:recorded      set   the finished games already folded into the records (each is folded once)
    artemia:history:<place>  list  finished games of a group or forum topic (JSON, newest first)
    artemia:standin:<token>  hash  game, seat: a seat offered to a stand-in (expires; taken once)
    artemia:link:<address>      the home address a linked SMS or WhatsApp number plays as (LINK)
    artemia:links:<address> set the addresses linked to a home; artemia:linkcode:<code> a LINK code waiting
                                (15 minutes); artemia:linktries:<address> wrong codes sent in the last hour
"""

import re
import zlib

GAME_ID = re.compile(r"^[A-Za-z0-9_]{1,64}$")


def check_game_id(game_id: str) -> str:
    """Game ids are job-id safe (RQ allows [A-Za-z0-9_-]) and '-' is kept as our separator."""
    if not GAME_ID.match(game_id):
        raise ValueError(f"bad game id {game_id!r}: use 1-64 letters, digits or '_'")
    return game_id


def shard_of(game_id: str, shards: int) -> int:
    """The shard of a game among ``shards``: a stable hash of its id (CRC-32), so the web and every worker route a
    game the same way without asking anyone, and a game never moves while the shard list stays as it is. (Not a
    shard named in the id: a game's id is its table's join code, which players type.)"""
    return zlib.crc32(game_id.encode()) % shards if shards > 1 else 0


def _g(game_id: str) -> str:
    return "{g:" + game_id + "}"


def snap(game_id: str) -> str:
    return _g(game_id) + ":snap"


def expected(game_id: str) -> str:
    return _g(game_id) + ":exp"


def answers(game_id: str) -> str:
    return _g(game_id) + ":ans"


def autoplays(game_id: str) -> str:
    return _g(game_id) + ":auto"


def meta(game_id: str) -> str:
    return _g(game_id) + ":meta"


def log(game_id: str) -> str:
    return _g(game_id) + ":log"


def actions(game_id: str) -> str:
    return _g(game_id) + ":actions"


def refresh_counter(game_id: str) -> str:
    return _g(game_id) + ":refreshes"


def refresh_mark(game_id: str) -> str:
    return _g(game_id) + ":refresh"


def refresh_seats(game_id: str) -> str:
    return _g(game_id) + ":refreshing"


def slot_seqs(game_id: str) -> str:
    return f"{_g(game_id)}:seq"


def lane(game_id: str, chat: str) -> str:
    return f"{_g(game_id)}:lane:{chat}"


def lane_lock(game_id: str, chat: str) -> str:
    return f"{_g(game_id)}:lanelock:{chat}"


def lane_failures(game_id: str) -> str:
    return f"{_g(game_id)}:lanes"


def shown(game_id: str) -> str:
    return f"{_g(game_id)}:shown"


def outbox(game_id: str, batch: str) -> str:
    return f"{_g(game_id)}:out:{batch}"


def dedup(game_id: str) -> str:
    return f"{_g(game_id)}:dedup"


def dedup_previous(game_id: str) -> str:
    """The dedup ids of the window closed last: a retried answer that finds its window resolved is known."""
    return f"{_g(game_id)}:dedup:prev"


def answered_at(game_id: str) -> str:
    return f"{_g(game_id)}:ansat"


def tally(game_id: str) -> str:
    return f"{_g(game_id)}:tally"


def away(game_id: str) -> str:
    return f"{_g(game_id)}:away"


def pause(game_id: str) -> str:
    return f"{_g(game_id)}:pause"


def pause_votes(game_id: str) -> str:
    # votes were in days under the name "pausevotes": a new name, so that none left by then is read as seconds
    return f"{_g(game_id)}:pausevotesecs"


DUE = "artemia:due"
HEARTBEAT = "artemia:heartbeat"
READY = "artemia:ready"


def resolver(n: int) -> str:
    return f"artemia:resolver:{n}"


METRICS_COUNTERS = "artemia:metrics:c"  # hash "<name>|<label>=<value>,..." -> count (service.ops.metrics)


def metrics_histogram(name: str) -> str:
    """Hash of one histogram: "b<bucket>|<labels>", "sum|<labels>", "count|<labels>"."""
    return f"artemia:metrics:h:{name}"


REPLICATION_MARK = "artemia:replicated"  # written before a WAIT that stands for every earlier write (Store.replicated)
RATE_PAUSE = "artemia:rl:pause"
RATE_GLOBAL = "artemia:rl:global"
RATE_QUESTIONS = "artemia:rl:questions"  # until when the groups' sends wait for the seats' (`lua.TAKE_SEND_TOKEN`)
RATE_THROTTLED = "artemia:rl:throttled"  # zset chat bucket -> when it was last answered 429 (the last seconds only)


def player_games(user: str) -> str:
    """Zset game -> when it began: every game a player plays. ``user`` is meta's "user": a Telegram user's bare
    id, an SMS player's address (``sms:+<E.164>``)."""
    return f"artemia:games:{user}"


def old_player_indexes(user: str) -> list[tuple[str, str]]:
    """The three player indexes that `player_games` replaced (format of 5bd7425), as (kind, key): a set of games
    by user, and the lobby's zset of games by address with its hash game -> seat. Read once, then deleted
    (`Store.games_of_user`)."""
    address = f"tg:{user}" if user.isdigit() else user
    return [
        ("set", f"artemia:user:{user}"),
        ("zset", f"artemia:joined:{address}"),
        ("hash", f"artemia:seats:{address}"),
    ]


def lobby_table(code: str) -> str:
    """JSON of a table (a TTL until it begins; kept afterwards to answer late joins)."""
    return f"artemia:lobby:{code.upper()}"


def lobby_place(place: str) -> str:
    """The code of the table of a Telegram group ("<chat id>") or forum topic ("<chat>/<topic>")."""
    return f"artemia:place:{place}"


def lobby_opened(address: str) -> str:
    """The code of the last table an address opened (a bare ``GO``)."""
    return f"artemia:opened:{address}"


def lobby_tables_of(address: str) -> str:
    """Zset code -> expiry time of the tables an address opened (their count is capped)."""
    return f"artemia:tables:{address}"


RECORDED = "artemia:recorded"


def player_record(user: str) -> str:
    return f"artemia:record:{user}"


def player_times(user: str) -> str:
    return f"artemia:record:{user}:times"


def no_record(user: str) -> str:
    return f"artemia:norecord:{user}"


def standin(token: str) -> str:
    return f"artemia:standin:{token}"


def history(place: str) -> str:
    return f"artemia:history:{place}"


def chat_game(chat: str) -> str:
    return f"artemia:chat:{chat}"


def watch(token: str) -> str:
    """The game of a watch page's unguessable token (`service.pipeline.watch`)."""
    return f"artemia:watch:{token}"


def rate_chat(chat: str) -> str:
    return f"artemia:rl:chat:{chat}"


def inbound_bucket(address: str) -> str:
    """The inbound flood bucket of a sender (``sms:+<E.164>``, ``tg:<user id>``)."""
    return f"artemia:rl:in:{address}"


def inbound_dropped(address: str) -> str:
    """How many texts of a sender its flood bucket dropped unread since it last read one."""
    return f"artemia:rl:dropped:{address}"


INBOUND_STRANGERS = "artemia:rl:in-strangers"


# Telegram's global keys (the channel's own state; not per game).
def deferred_reply(chat: str, digest: str) -> str:
    """A webhook reply that waits for its chat's send budget (`service.channels.telegram.budget`): the same reply
    asked for again meanwhile is this one, not another."""
    return f"artemia:rl:reply:{chat}:{digest}"


def telegram_lang(user: str) -> str:
    """A user's own language choice."""
    return f"tg:lang:{user}"


def telegram_update(update_id: int) -> str:
    """A webhook update already handled (dedup, a little over Telegram's 24 h retention)."""
    return f"tg:upd:{update_id}"


def telegram_blocked(user: str) -> str:
    """The user blocked the bot or never started it: nothing is sent to them until they press Start."""
    return f"tg:blocked:{user}"


def telegram_started(user: str) -> str:
    """The user has a private chat with the bot (wrote to it there): the bot may write to them first."""
    return f"tg:started:{user}"


def telegram_moved(chat: str) -> str:
    """Where a group that became a supergroup lives now."""
    return f"tg:moved:{chat}"


def telegram_boards(game_id: str) -> str:
    """Hash picture digest -> Telegram ``file_id`` of the latest board picture of a game uploaded to Telegram
    (`service.channels.telegram.boards`): sent again by its ``file_id``, not drawn twice."""
    return f"{_g(game_id)}:tg:boards"


def telegram_slots(game_id: str) -> str:
    """Hash "<chat>|<slot>" -> Telegram message id of each living message of a game."""
    return f"{_g(game_id)}:tg:slots"


# SMS's global keys.
def sms_number(number: str) -> str:
    """Hash of one phone number's preferences: stopped, ascii, lang, tz."""
    return f"artemia:sms:num:{number}"


def sms_message(message_sid: str) -> str:
    """An inbound message already handled (SET NX, with a TTL)."""
    return f"artemia:sms:sid:{message_sid}"


# Two numbers of one person linked as one player (`service.channels.sms.linking`); addresses are "sms:<E.164>"
# or "wa:<E.164>".
def number_link(address: str) -> str:
    """The address a linked number plays as (its home): the linked number's texts are read as the home's."""
    return f"artemia:link:{address}"


def number_aliases(address: str) -> str:
    """Set of the addresses linked to a home address."""
    return f"artemia:links:{address}"


def link_code(code: str) -> str:
    """A code LINK gave a home, waiting for the other number to send it back (a short TTL)."""
    return f"artemia:linkcode:{code}"


def link_tries(address: str) -> str:
    """Wrong codes an address sent in the last hour (a counter with a TTL)."""
    return f"artemia:linktries:{address}"


# WhatsApp's global keys (its numbers are players apart from the same numbers' SMS).
def whatsapp_number(number: str) -> str:
    """Hash of one WhatsApp number's preferences, as `sms_number`'s, and the time of its last message to us."""
    return f"artemia:wa:num:{number}"


def whatsapp_pending(number: str) -> str:
    """List of what could not be sent to a WhatsApp number outside its 24-hour window (news, a question's
    text), told when the number next writes."""
    return f"artemia:wa:pending:{number}"


def whatsapp_board(number: str) -> str:
    """The latest board picture's payload (JSON) parked with `whatsapp_pending`, shown when the number writes."""
    return f"artemia:wa:pending:{number}:board"


def whatsapp_media(token: str) -> str:
    """A board picture WhatsApp fetches by URL (`service.channels.sms.media`): its payload, compressed."""
    return f"artemia:wa:media:{token}"
