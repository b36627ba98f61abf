"""Ending a game before its end: by the operator (``python -m service.admin cancel``) or by the player who
opened its table (``/cancel`` in the Telegram group). The game is marked over in one script (a resolution
running meanwhile loses its compare-and-set), leaves the due set, and the table and its players are told. The
living messages say it too: the group's status message and each Telegram seat's turn message (its buttons gone)
are edited to the cancellation notice, so no screen still waits for an answer.
"""

from service.i18n import DEFAULT_LANG, N_, translator
from service.pipeline import news, notices, scheduling
from service.pipeline.chats import chat_kind
from service.pipeline.context import Context
from service.store import keys

BY_OPERATOR = N_("This game of Not Alone was cancelled by the operator{reason}. Thank you for playing.")
BY_PLAYER = N_("{who} cancelled this game of Not Alone{reason}. Thank you for playing.")
BATCH = "cancel"

# KEYS: snap, exp, ans      ARGV: now, reason
# -> "CANCELLED" | "NOGAME" | "OVER".
CANCEL = """
local st = redis.call('HMGET', KEYS[1], 'version', 'status')
if not st[1] then return 'NOGAME' end
if st[2] == 'over' then return 'OVER' end
redis.call('HSET', KEYS[1], 'status', 'over', 'window', '', 'cancelled', ARGV[1], 'cancel_reason', ARGV[2])
redis.call('DEL', KEYS[2], KEYS[3])
return 'CANCELLED'
"""


class NoSuchGame(LookupError):
    pass


def cancel(
    ctx: Context,
    game_id: str,
    reason: str = "",
    notify: bool = True,
    by: str | None = None,
    told_already: str | None = None,
) -> str:
    """-> "cancelled" | "over" (it had ended already). ``by``: the player's name (else the operator did it);
    ``told_already``: a chat that hears it otherwise (the group the /cancel was typed in). Raises NoSuchGame."""
    store, now = ctx.store, ctx.clock()
    asked = store.expected(game_id)  # their turn messages hold the question's buttons (the script forgets them)
    script = store.redis.register_script(CANCEL)
    result = script(
        keys=[keys.snap(game_id), keys.expected(game_id), keys.answers(game_id)],
        args=[repr(now), reason],
        client=store.at(game_id),
    ).decode()
    if result == "NOGAME":
        raise NoSuchGame(game_id)
    if result == "OVER":
        return "over"
    store.set_due(game_id, now + ctx.settings.finished_compact_after_seconds)  # to compact it (`upkeep.compact`)
    snap, meta = store.load_with_meta(game_id)
    group = meta.get("group")
    if group and store.redis.get(keys.chat_game(group)) == game_id.encode():
        store.redis.delete(keys.chat_game(group))
    outgoing = [m for m in cancel_messages(meta, reason, by) if m["chat"] != told_already] if notify else []
    if notify and snap is not None:
        outgoing += living_messages(game_id, snap.version, news.load_news(snap.news), meta, asked, reason, by)
    if outgoing:
        store.write_batch(game_id, BATCH, outgoing)
        scheduling.deliveries(ctx, game_id, BATCH)
    return "cancelled"


def living_messages(
    game_id: str, version: int, told: dict, meta: dict, asked: set[int], reason: str, by: str | None
) -> list[dict]:
    """The group's status message and the turn message of each seat the open step asked, in the channels that
    have living messages (Telegram), edited to the notice (their buttons gone)."""
    lang = meta.get("lang") or DEFAULT_LANG
    seq = news.step_seq(version + 1)  # outranks every message of the last version
    out = []
    if chat_kind(meta.get("group")) in news.LIVING_MESSAGES:
        slot = news.status_slot(game_id, news.current_segment(told)["start"])
        out.append(news.message(meta["group"], "🚫 " + _notice(lang, reason, by), None, True, slot=slot, seq=seq))
    for seat, player in sorted(meta.get("players", {}).items()):
        chat = player.get("chat")
        if chat_kind(chat) in news.LIVING_MESSAGES and int(seat) in asked:
            text = "🚫 " + _notice(player.get("lang") or lang, reason, by)
            slot = news.seat_turn_slot(game_id, told, int(seat))
            out.append(news.message(chat, text, int(seat), False, slot=slot, seq=seq))
    return out


def _notice(lang: str, reason: str, by: str | None) -> str:
    said = f" ({reason})" if reason else ""
    return translator(lang).gettext(BY_PLAYER if by else BY_OPERATOR).format(reason=said, who=by)


def cancel_messages(meta: dict, reason: str, by: str | None = None) -> list[dict]:
    """The notice for the table's group, and for each SMS player (Telegram players read it in the group)."""
    return notices.table_messages(meta, lambda lang: _notice(lang, reason, by))
