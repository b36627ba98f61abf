"""WhatsApp's words for the news: what each WhatsApp seat of a game is sent after a step, as outbox messages.

A WhatsApp player reads no group, so each step's news comes to their own chat, the table's and their own in the
order they happened (`plain.chronicle`). A seat that is asked gets its question as Telegram asks it
(`ui.decision`: the same words and the typed commands), its buttons as a list to tap (`taps`: at most
`MAX_ITEMS`, paged with a "More" item), and the step's news before it; a seat that is not asked gets the news
held, to ride on its next question (`service.pipeline.outbox.hold`, counted in characters), or alone at the
deadline. A step that reveals the places played carries the board as a picture (sent as media, once). Every
message that must reach a player whose 24-hour window may have closed names the approved template that stands
in for it (``template``: the turn, a reminder, the end), which `service.channels.sms.wa_sender` sends instead
when it must.
"""

import os
import re

from service import board
from service.channels import plain, ui
from service.i18n import translator
from service.i18n.events import AGAIN_BY_MESSAGE
from service.pipeline.news import Refresh, Reminder, StepNews, Unreachable, message, names_of

MAX_ITEMS = 10  # a list to tap (Twilio's list-picker)
MAX_TITLE = 24  # an item's title
MAX_BODY = 1024  # the text above a list; a longer question goes as a text of its own first
MAX_TEXT = 1600  # a WhatsApp text
MORE = "p"
SEP = "\n\n"  # between a message's parts: its code, its news, its question
SHARED_MIN = 2  # a "More" item: ``p<offset>|<the screen's data>``


def head(code: str) -> str:
    """What every message of a game starts with: its code, "*K7QX*" (WhatsApp shows *…* in bold)."""
    return f"*{code}*"


def title(text: str) -> str:
    """A button's words as a list item's title: without what it says in brackets when that is too long ("Give up
    (all cards and …)" -> "Give up"), then cut to `MAX_TITLE` characters (the question says them whole)."""
    if len(text) > MAX_TITLE:
        text = re.sub(r"\s*\([^)]*\)", "", text)
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1].rstrip() + "…"


def shared_start(texts: list[str]) -> str:
    """The words every one of ``texts`` starts with ("Creature token → " of "Creature token → 1 Lair", …)."""
    if len(texts) < 2:
        return ""
    common = os.path.commonprefix(texts)
    return common[: common.rfind(" ") + 1] if " " in common else ""


def taps(keyboard: ui.Keyboard | None, screen: ui.Choice, lang: str, offset: int = 0) -> list[dict]:
    """A screen's buttons as items to tap, ``{"text", "data"}``, from the ``offset``-th: at most `MAX_ITEMS`, the
    last of them "More" (``p<next offset>|<screen data>``) when there are more. When some are too long for a title,
    the words that `SHARED_MIN` or more choices of places start with are left out of their titles ("1 Lair" for
    "Creature token → 1 Lair": the question above says it)."""
    buttons = [dict(b) for row in keyboard or [] for b in row if b.get("data")]
    if any(len(b["text"]) > MAX_TITLE for b in buttons):
        groups: dict[str, list[dict]] = {}
        for b in buttons:
            groups.setdefault(b["text"].split(" ", 1)[0], []).append(b)
        for group in groups.values():
            start = shared_start([b["text"] for b in group]) if len(group) >= SHARED_MIN else ""
            if start and all(b["text"][len(start) :][:1].isdigit() for b in group):  # "3 River", never "Dodge"
                for b in group:
                    b["text"] = b["text"][len(start) :]
    page = buttons[offset : offset + MAX_ITEMS]
    if len(buttons) > offset + MAX_ITEMS:
        page = buttons[offset : offset + MAX_ITEMS - 1]
        more = translator(lang).gettext("More…")
        page.append({"text": more, "data": f"{MORE}{offset + len(page)}|{screen.data()}"})
    return [{"text": title(b["text"]), "data": b["data"]} for b in page]


def more_of(data: str) -> tuple[int, str] | None:
    """(offset, the screen's data) of a "More" item's data; None when ``data`` is not one."""
    if not data.startswith(MORE) or "|" not in data:
        return None
    offset, _, screen = data[len(MORE) :].partition("|")
    return (int(offset), screen) if offset.isdigit() and len(offset) <= 3 else None


def template(
    name: str | None, code: str, lang: str, meta: dict, deadline: float | None = None, said: str = "", ask: str = ""
) -> dict:
    """What stands in for a message outside the player's 24-hour window: the approved template ``name`` (its
    variables: the game's code, then the deadline or what the end says; None: no template, the message only
    waits), and what of the message waits for the player's return: all but ``ask``, the question it ends with
    (asked afresh then) and its first line, ``*<code>*``."""
    second = plain.when(deadline, lang, meta) if deadline is not None else said
    return {"name": name, "lang": lang, "vars": [code, second or "—"], "head": head(code), "ask": ask}


def parked(text: str, stand_in: dict | None) -> str:
    """What of a message waits for the player's return (`template`): its news, without its code and question."""
    if stand_in is None:
        return text
    ask, top = stand_in.get("ask") or "", stand_in.get("head") or ""
    kept = text[: -len(ask)] if ask and text.endswith(ask) else text
    return kept.removeprefix(top).strip()


def _question(news: StepNews, seat: int, chat: str, told: str, code: str) -> dict | None:
    step, game, lang = news.step, news.step.game, news.readers.lang(seat)
    # a question nothing waits for is a message of its own: only the Creature's phase-1 card is sent (its only
    # chance); a Hunted's question ahead comes with the reply to its answer, or is asked when its time comes
    if game.window is None or (seat not in step.asked and not (seat == 0 and seat in step.optional)):
        return None
    first = ui.Choice(step.game_id, game.window["id"], seat)
    deadline = plain.deadline_shown(step.meta, step.deadline)
    screen = ui.decision(game, seat, first, deadline, lang, names_of(step.meta), **ui.clock_of(step.meta))
    top = head(code)
    out = message(chat, "\n\n".join(p for p in (top, told, screen.text) if p), seat, False, limit=MAX_TEXT)
    out["buttons"] = taps(screen.keyboard, first, lang)
    out.update(fold_at=len(top), fold_room=MAX_TEXT - len(out["text"]), fold_gsm=False, fold_sep=SEP)
    # a question ahead waits for nobody: it does not wake a player up
    name = "turn" if seat in step.asked else None
    out["template"] = template(name, code, lang, step.meta, step.deadline, ask=screen.text)
    return out


def _news(chat: str, seat: int, told: str, top: str, deadline: float) -> dict:
    """News alone: held for the seat's next question (or sent alone at ``deadline``)."""
    text = f"{top}{SEP}{told}"[:MAX_TEXT]
    out = message(chat, text, seat, False, limit=MAX_TEXT)
    out.update(fold_at=len(top), fold_room=MAX_TEXT - len(text), fold_gsm=False, fold_sep=SEP)
    out.update(hold_until=deadline, fold_text=told, fold_size=len(told))
    return out


class WhatsAppChannel:
    """The pipeline's `Channel` for WhatsApp numbers (``wa:<E.164>`` chats): no living messages and no refresh
    (the reply to a tap says "locked in"), no unreachable notice (STOP is the player's own choice)."""

    kind = "whatsapp"

    def step_messages(self, news: StepNews) -> list[dict]:
        step, readers, out = news.step, news.readers, []
        code = step.meta.get("code", step.game_id)
        revealed = any(e["type"] == "reveal" for e in step.events)
        for seat in readers.seats():
            chat = readers.chat(seat)
            if readers.kind(seat) != "whatsapp" or chat is None:
                continue
            lang = readers.lang(seat)
            over = step.game.is_over
            told = "\n".join(m["text"] for m in plain.chronicle(news, chat, seat, AGAIN_BY_MESSAGE, where=over))
            top = head(code)
            question = None if over else _question(news, seat, chat, told, code)
            if question is not None:
                sent = question
            elif told:
                sent = _news(chat, seat, told, top, step.deadline)
            else:
                out.append({**message(chat, top, seat, False), "hold_until": step.deadline, "keep": True})
                continue
            if over:
                sent = message(chat, f"{top}{SEP}{told}", seat, False, limit=MAX_TEXT)
                sent.update(fold_at=len(top), fold_room=MAX_TEXT - len(sent["text"]), fold_gsm=False, fold_sep=SEP)
                ending = next((line for line in told.splitlines() if line.startswith("🏁")), "")
                sent["template"] = template("over", code, lang, step.meta, said=ending)
            # every message carries the board as the step left it, shown after a reveal: news held and folded
            # into a later message shows the latest board (`outbox.fold_into`)
            view = step.game.public_view()
            sent["picture"] = {
                **board.payload(step.game_id, view, names_of(step.meta), lang, step.version),
                "reveal": revealed,
            }
            out.append(sent)
        return out

    def reminder_messages(self, reminder: Reminder) -> list[dict]:
        readers, out = reminder.readers, []
        code = reminder.meta.get("code", reminder.game_id)
        game = reminder.game
        for seat in reminder.seats:
            chat = readers.chat(seat)
            if readers.kind(seat) != "whatsapp" or chat is None or game.window is None:
                continue
            lang = readers.lang(seat)
            first = ui.Choice(reminder.game_id, game.window["id"], seat)
            deadline = plain.deadline_shown(reminder.meta, reminder.deadline)
            names = names_of(reminder.meta)
            screen = ui.decision(game, seat, first, deadline, lang, names, **ui.clock_of(reminder.meta))
            said = (
                translator(lang)
                .gettext("Reminder: step {step} needs your answer by {time}; after that a move is played for you.")
                .format(step=reminder.window, time=plain.when(reminder.deadline, lang, reminder.meta))
            )
            text = SEP.join([head(code), "⏰ " + said, screen.text])
            sent = message(chat, text, seat, False, buttons=taps(screen.keyboard, first, lang), limit=MAX_TEXT)
            sent["template"] = template("reminder", code, lang, reminder.meta, reminder.deadline, ask=screen.text)
            out.append(sent)
        return out

    def refresh_messages(self, refresh: Refresh) -> list[dict]:
        return []

    def unreachable_messages(self, notice: Unreachable) -> list[dict]:
        return []
