"""The news in plain lines, for chat channels: the console's whole rendering, and Telegram's where it has no
living message to edit (a game without a group tells each player what the table would be) or as its fallback.

Shared by the channels (which never import each other); worded with `service.i18n.events`.
"""

from datetime import UTC, datetime

from service import commands
from service.i18n import translator
from service.i18n.events import game_over, line, notice_text, reveal, seat_name
from service.pipeline.news import MAX_NEWS_LINES, StepNews, Unreachable, message, names_of, sees

MAX_TEXT = 4000  # Telegram allows 4096 characters


def when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%a %d %b %H:%M:%S UTC")


def chunks(lines: list[str]) -> list[str]:
    """``lines`` joined into as few texts of at most `MAX_TEXT` characters as they fit in."""
    out, current = [], ""
    for text in lines:
        text = text[:MAX_TEXT]
        if current and len(current) + 1 + len(text) > MAX_TEXT:
            out.append(current)
            current = ""
        current = f"{current}\n{text}" if current else text
    return out + ([current] if current else [])


def news_lines(items: list[dict], meta: dict, lang: str, bot_username: str) -> list[str]:
    """The public items of the news (events, notices, reveals, turn marks) as lines, the last `MAX_NEWS_LINES`."""
    names = names_of(meta)
    out = []
    for item in items:
        if item["type"] == "_notice":
            out.append("ℹ️ " + notice_text(item, names, lang, bot_username))
        elif item["type"] == "reveal":
            out.append(reveal(item, names, lang))
        elif item["type"] == "turn":
            out.append("⏭ " + translator(lang).gettext("Turn {n}").format(n=item["turn"]))
        else:
            text = line(item, names, lang)
            if text:
                out.append(text)
    return out[-MAX_NEWS_LINES:]


def lines(events: list[dict], names: dict[int, str], lang: str) -> list[str]:
    return [text for text in (line(e, names, lang) for e in events) if text]


def table(news: StepNews, chat: str, seat: int | None = None) -> list[dict]:
    """What the table is told of a step, to the group (``seat`` None) or to one player's own chat."""
    step, readers = news.step, news.readers
    lang = readers.lang(seat) if seat is not None else readers.group_lang()
    _ = translator(lang).gettext
    names = names_of(step.meta)
    out = []
    for part in news.parts:
        out += news_lines(part.added, step.meta, lang, news.bot_username)
        if part.ended and part is not news.parts[-1]:
            out.append(_("Turn {n} begins.").format(n=news.parts[news.parts.index(part) + 1].turn))
    game = step.game
    if game.is_over:
        out.append(game_over(game.public_view(), names, lang))
    elif step.asked and game.window:
        who = ", ".join(seat_name(names, s, lang) for s in step.asked)
        out.append(_("Waiting for {who} (turn {turn}, step {step}) until {time}.").format(
            who=who, turn=game.turn, step=game.window["id"], time=when(step.deadline)))
    return [message(chat, text, seat, seat is None) for text in chunks(out)]


def private(news: StepNews, seat: int, chat: str) -> list[dict]:
    """A seat's own news of a step and, when it is asked, its question with the typed answers."""
    step, lang = news.step, news.readers.lang(seat)
    out = lines([e for e in step.events if sees(e, seat)], names_of(step.meta), lang)
    game = step.game
    if seat in step.asked and game.window is not None:
        _ = translator(lang).gettext
        out.append(_("Your move (turn {turn}, step {step}), answer by {time}:").format(
            turn=game.turn, step=game.window["id"], time=when(step.deadline)))
        out.append("\n".join(commands.summary(game, seat, lang)))
        out.append(_("(send help for more)"))
    return [message(chat, text, seat, False) for text in chunks(out)]


def unreachable(notice: Unreachable, chat: str, seat: int | None, lang: str) -> dict:
    text = notice_text({"kind": "unreachable", "seat": notice.seat}, names_of(notice.meta), lang,
                       notice.bot_username)
    return message(chat, "⚠️ " + text if seat is None else text, seat, seat is None)
