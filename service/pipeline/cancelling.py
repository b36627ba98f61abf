"""Ending a game before its end: by the operator (``python -m service.admin cancel``) or by the player who
opened its table (``/cancel`` in the Telegram group). The game is marked over in one script (a resolution
running meanwhile loses its compare-and-set), leaves the due set, and the table and its players are told.
"""

from service.i18n import DEFAULT_LANG, N_, translator
from service.pipeline import scheduling
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
    script = store.redis.register_script(CANCEL)
    result = script(
        keys=[keys.snap(game_id), keys.expected(game_id), keys.answers(game_id)], args=[repr(now), reason]
    ).decode()
    if result == "NOGAME":
        raise NoSuchGame(game_id)
    if result == "OVER":
        return "over"
    store.drop_due(game_id)
    meta = store.meta(game_id)
    group = meta.get("group")
    if group and store.redis.get(keys.chat_game(group)) == game_id.encode():
        store.redis.delete(keys.chat_game(group))
    outgoing = [m for m in cancel_messages(meta, reason, by) if m["chat"] != told_already] if notify else []
    if outgoing:
        store.write_batch(game_id, BATCH, outgoing)
        scheduling.deliveries(ctx, game_id, BATCH)
    return "cancelled"


def cancel_messages(meta: dict, reason: str, by: str | None = None) -> list[dict]:
    """The notice for the table's group, and for each SMS player (Telegram players read it in the group)."""
    lang = meta.get("lang") or DEFAULT_LANG
    said = f" ({reason})" if reason else ""

    def text(language: str) -> str:
        return translator(language).gettext(BY_PLAYER if by else BY_OPERATOR).format(reason=said, who=by)

    out, chats = [], set()
    if meta.get("group"):
        out.append({"chat": meta["group"], "text": text(lang), "buttons": None, "seat": None, "group": True})
        chats.add(meta["group"])
    for seat, player in sorted(meta.get("players", {}).items()):
        chat = player.get("chat")
        if chat and chat not in chats and (not meta.get("group") or chat.startswith("sms:")):
            chats.add(chat)
            out.append(
                {
                    "chat": chat,
                    "text": text(player.get("lang") or lang),
                    "buttons": None,
                    "seat": int(seat),
                    "group": False,
                }
            )
    return out
