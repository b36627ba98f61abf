"""A notice to a whole table, outside its steps: a cancellation, a player away, a pause. The group hears it (its
Telegram players read it there) and so does each SMS player; a table without a group tells every player. Each
reader gets it in their language (`words(lang)`), as one outbox batch written whole and delivered."""

from collections.abc import Callable

from service.i18n import DEFAULT_LANG, translator
from service.i18n.clock import when
from service.pipeline import scheduling
from service.pipeline.context import Context


def table_messages(meta: dict, words: Callable[[str], str], skip: str | None = None) -> list[dict]:
    """The notice for the table's group, and for each SMS player (every player when there is no group); not to
    ``skip`` (a chat that hears it otherwise)."""
    lang = meta.get("lang") or DEFAULT_LANG
    out, chats = [], {skip}
    if meta.get("group") and meta["group"] != skip:
        out.append({"chat": meta["group"], "text": words(lang), "buttons": None, "seat": None, "group": True})
    chats.add(meta.get("group"))
    for seat, player in sorted(meta.get("players", {}).items()):
        chat = player.get("chat")
        if chat and chat not in chats and (not meta.get("group") or chat.startswith("sms:")):
            chats.add(chat)
            text = words(player.get("lang") or lang)
            out.append({"chat": chat, "text": text, "buttons": None, "seat": int(seat), "group": False})
    return out


def tell_table(ctx: Context, game_id: str, batch: str, meta: dict, words: Callable[[str], str]) -> bool:
    """Write the notice as batch ``batch`` (once: a batch of that name stored already is not written again) and
    deliver it. -> False when there was nobody to tell or it was written before."""
    outgoing = table_messages(meta, words)
    if not outgoing:
        return False
    written = ctx.store.write_batch(game_id, batch, outgoing)
    scheduling.deliveries(ctx, game_id, batch)  # also when an earlier run wrote it and died before queueing it
    return written


def words(emoji: str, template: str, until: float | None = None, tz: str | None = None, **params: str):
    """A notice in a reader's language: ``template`` (marked with N_) formatted with ``params``, and ``time``:
    ``until`` in the table's time zone ``tz``."""

    def in_lang(lang: str) -> str:
        time = when(until, lang, tz) if until is not None else ""
        return f"{emoji} " + translator(lang).gettext(template).format(time=time, **params)

    return in_lang
