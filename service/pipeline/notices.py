"""A notice to a whole table, outside its steps: a cancellation, a player away, a pause. The group hears it
(its Telegram players read it there) and so does each SMS and WhatsApp player; a table without a group tells every
player. Each reader gets it in their language (`words(lang)`), as one outbox batch written whole and delivered. A
notice of a player's own request (away, back, leaving) is not sent to that player's chat: the request's reply told
them."""

from collections.abc import Callable

from service.i18n import DEFAULT_LANG, translator
from service.i18n.clock import when
from service.pipeline import scheduling
from service.pipeline.chats import NO_GROUP, chat_kind
from service.pipeline.context import Context


def marked(emoji: str, text: str, chat: str) -> str:
    """``text`` led by ``emoji``, but in an SMS: an emoji makes the whole text UCS-2 (70 characters a segment
    instead of 160), and an SMS is paid by the segment."""
    return f"{emoji} {text}" if emoji and chat_kind(chat) != "sms" else text


def table_messages(meta: dict, words: Callable[[str], str], skip: str | None = None, emoji: str = "") -> list[dict]:
    """The notice for the table's group, and for each SMS or WhatsApp player (every player when there is no
    group), led by ``emoji`` (`marked`); not to ``skip`` (a chat that hears it otherwise)."""
    lang = meta.get("lang") or DEFAULT_LANG
    out, chats = [], {skip}
    if meta.get("group") and meta["group"] != skip:
        text = marked(emoji, words(lang), meta["group"])
        out.append({"chat": meta["group"], "text": text, "buttons": None, "seat": None, "group": True})
    chats.add(meta.get("group"))
    for seat, player in sorted(meta.get("players", {}).items()):
        chat = player.get("chat")
        if chat and chat not in chats and (not meta.get("group") or chat_kind(chat) in NO_GROUP):
            chats.add(chat)
            text = marked(emoji, words(player.get("lang") or lang), chat)
            out.append({"chat": chat, "text": text, "buttons": None, "seat": int(seat), "group": False})
    return out


def tell_table(
    ctx: Context,
    game_id: str,
    batch: str,
    meta: dict,
    words: Callable[[str], str],
    emoji: str = "",
    by: str | None = None,
) -> bool:
    """Write the notice as batch ``batch`` (once: a batch of that name stored already is not written again) and
    deliver it; ``by``: the chat of the player whose own request it tells, who is not sent it. -> False when
    there was nobody to tell or it was written before."""
    outgoing = table_messages(meta, words, skip=by, emoji=emoji)
    if not outgoing:
        return False
    written = ctx.store.write_batch(game_id, batch, outgoing)
    scheduling.deliveries(ctx, game_id, batch)  # also when an earlier run wrote it and died before queueing it
    return written


def words(template: str, until: float | None = None, tz: str | None = None, **params: str):
    """A notice in a reader's language: ``template`` (marked with N_) formatted with ``params``, and ``time``:
    ``until`` in the table's time zone ``tz``."""

    def in_lang(lang: str) -> str:
        time = when(until, lang, tz) if until is not None else ""
        return translator(lang).gettext(template).format(time=time, **params)

    return in_lang
