"""The news in plain lines, for chat channels: the console's whole rendering, and Telegram's where it has no
living message to edit (a game without a group tells each player what the table would be) or as its fallback.

Shared by the channels (which never import each other); worded with `service.i18n.events`.
"""

from service.commands.writing import describe, summary
from service.game import Game
from service.i18n import N_, clock, translator
from service.i18n.events import AGAIN_BY_COMMAND, game_over, line, notice_text, reveal
from service.i18n.names import cards_text, seat_name
from service.pipeline.ingest import Reason, Status, SubmitResult
from service.pipeline.news import (
    MAX_NEWS_LINES,
    MAX_TEXT,
    StepNews,
    Unreachable,
    message,
    names_of,
    sees,
    timed,
)

# The table setting "secrecy" in words (service/game/rules/secrecy.py).
SECRECY_WORDS = {
    "strict": N_("strict (nobody can tell who holds a card)"),
    "fast": N_("fast (only players holding a card are waited for)"),
}
# The levels of the bots a table adds (service/game/search.py), in words.
BOT_LEVEL_WORDS = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}


PRECISE_BELOW = 600  # steps shorter than this many seconds show their times to the second


def clock_of(meta: dict) -> dict:
    """How a game's times are shown (the ``tz`` and ``precise`` arguments of `service.i18n.clock.when`): in the
    table's time zone, to the second when its steps are shorter than `PRECISE_BELOW`."""
    return {"tz": meta.get("tz"), "precise": 0 < meta.get("deadline_seconds", PRECISE_BELOW) < PRECISE_BELOW}


def whatsapp_link(sender: str, code: str) -> str:
    """The wa.me link that opens a chat with our WhatsApp ``sender`` ("whatsapp:+1415…") with "JOIN <code>"
    typed, ready to send."""
    digits = "".join(ch for ch in sender if ch.isdigit())
    return f"https://wa.me/{digits}?text=JOIN%20{code}"


def deadline_shown(meta: dict, deadline: float) -> float | None:
    """The deadline a screen shows: none at a table without deadlines."""
    return deadline if timed(meta) else None


def when(ts: float, lang: str, meta: dict) -> str:
    """A deadline as every channel words it (`service.i18n.clock.when`), as the table shows its times."""
    return clock.when(ts, lang, **clock_of(meta))


def submitted(result: SubmitResult, game: Game | None, seat: int, lang: str, sep: str = "\n") -> str:
    """The reply to an answer (`service.pipeline.ingest.submit`'s result) in the player's language. ``game``: the
    game the answer was checked against (the options shown after a refused move); ``sep`` joins the options."""
    _, ngettext = translator(lang).gettext, translator(lang).ngettext
    said = ", ".join(_describe(a, lang) for a in result.actions)
    if result.stored:
        if result.status is Status.RESOLVE:
            return _("Locked in: {actions} — everyone has answered.").format(actions=said)
        return ngettext(
            "Locked in: {actions} — waiting for {n} more answer.",
            "Locked in: {actions} — waiting for {n} more answers.",
            result.waiting,
        ).format(actions=said, n=result.waiting)
    params, reason = result.params, result.reason
    if reason is Reason.INCOMPLETE:
        options = _options(summary(params["game"], seat, lang), sep)
        return _("Not complete yet, you still need to answer: {options}").format(options=options)
    if reason is Reason.TOO_MANY:
        return ngettext(
            "Too many moves: the step is complete after the first {n} move.",
            "Too many moves: the step is complete after the first {n} moves.",
            params["n"],
        ).format(n=params["n"])
    if reason in (Reason.ILLEGAL, Reason.MALFORMED):
        move = _describe(params["action"], lang) if reason is Reason.ILLEGAL else ""
        head = _("Not possible now: {move}.").format(move=move) if move else _("Not understood.")
        legal = summary(game, seat, lang) if game is not None and not game.is_over else []
        return head + (" " + _("You may now: {options}").format(options=_options(legal, sep)) if legal else "")
    if reason is Reason.EXPIRED:
        return _("That choice has expired: step {window} is over (now at step {now}).").format(**params)
    return {
        Reason.DUP: _("Already got that one."),
        Reason.NO_GAME: _("There is no such game."),
        Reason.OVER: _("This game is over."),
        Reason.MOVED_ON: _("That choice has expired: the step moved on."),
        Reason.RESOLVING: _("Too late: this step is being resolved."),
        Reason.EMPTY: _("Nothing to record: send a move."),
    }[reason or Reason.NO_GAME]


def _options(lines: list[str], sep: str) -> str:
    """The summary lines of what may be answered, joined by ``sep`` (each on its own line after a newline)."""
    return ("\n" if sep == "\n" else "") + sep.join(lines)


def _describe(action: dict, lang: str) -> str:
    """The action as a command; "" for one that cannot be written (a malformed or forged action)."""
    try:
        return describe(action, lang)
    except (AttributeError, KeyError, IndexError, TypeError, ValueError):
        return ""


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


def said_once(items: list[dict]) -> list[dict]:
    """``items`` without what another of them says more fully: how many cards a seat discarded, when which
    cards is told too ("discards 1 card." before "discards: 1 Lair.")."""
    named = {item.get("seat") for item in items if item["type"] == "discarded_cards"}
    return [item for item in items if not (item["type"] == "discarded" and item.get("seat") in named)]


def news_lines(items: list[dict], meta: dict, lang: str, bot_username: str) -> list[str]:
    """The public items of the news (events, notices, reveals, turn marks) as lines, the last `MAX_NEWS_LINES`.
    A table read by one player (``meta["reader"]``: the sandbox) words that player's events in the second person."""
    names, me = names_of(meta), meta.get("reader")
    out = []
    for item in said_once(items):
        if item["type"] == "turn":
            out.append("⏭ " + translator(lang).gettext("Turn {n}").format(n=item["turn"]))
        elif text := item_line(item, names, lang, me, bot_username):
            out.append(text)
    return out[-MAX_NEWS_LINES:]


def item_line(item: dict, names: dict[int, str], lang: str, me: int | None, bot_username: str) -> str | None:
    """One item of the news (an engine event, a reveal, a pipeline notice) as a line; ``me``: the reader's seat."""
    if item["type"] == "_notice":
        return "ℹ️ " + notice_text(item, names, lang, bot_username)
    if item["type"] == "reveal":
        return reveal(item, names, lang, me)
    return line(item, names, lang, me)


def lines(events: list[dict], names: dict[int, str], lang: str, me: int | None = None) -> list[str]:
    """Events as lines; ``me``: the reader's seat (its events in the second person)."""
    return [text for text in (line(e, names, lang, me) for e in said_once(events)) if text]


def table(news: StepNews, chat: str, seat: int | None = None, again: str = AGAIN_BY_COMMAND) -> list[dict]:
    """What the table is told of a step, to the group (``seat`` None) or to one player's own chat; ``again``: the
    last line of the end-of-game message (`service.i18n.events.game_over`)."""
    step, readers = news.step, news.readers
    lang = readers.lang(seat) if seat is not None else readers.group_lang()
    _ = translator(lang).gettext
    out = []
    for part in news.parts:
        out += news_lines(part.added, step.meta, lang, news.bot_username)
        if part.ended and part is not news.parts[-1]:
            out.append(_("Turn {n} begins.").format(n=news.parts[news.parts.index(part) + 1].turn))
    return [message(chat, text, seat, seat is None) for text in chunks(out + where_now(news, lang, again))]


def chronicle(news: StepNews, chat: str, seat: int, again: str = AGAIN_BY_COMMAND, where: bool = True) -> list[dict]:
    """A step as one player reads a game in one chat with no group beside it (the sandbox, WhatsApp): the table's
    news and their own in the order they happened (two lists, the table's then theirs, would put "you will be
    asked later" after the reveal that came later), then where the game is now (unless not ``where``: a question
    follows that says it)."""
    step, lang = news.step, news.readers.lang(seat)
    names = names_of(step.meta)
    items = [e for e in step.events if (e.get("visible_to") is None and e["type"] != "locked_in") or sees(e, seat)]
    items += [item for item in news.parts[-1].added if item["type"] == "_notice"]
    out = [text for item in said_once(items) if (text := item_line(item, names, lang, seat, news.bot_username))]
    return [message(chat, text, seat, False) for text in chunks(out + (where_now(news, lang, again) if where else []))]


def where_now(news: StepNews, lang: str, again: str) -> list[str]:
    """The end of a step's news: how the game ended, or whom the open window waits for (and until when)."""
    step, game = news.step, news.step.game
    _ = translator(lang).gettext
    names = names_of(step.meta)
    out = []
    if game.is_over:
        out.append(game_over(game.public_view(), names, lang, again))
    elif game.window and shown(game, step.asked):
        who = waited_names(shown(game, step.asked), names, lang, step.meta.get("reader"))
        where = {"who": who, "turn": game.turn, "step": game.window["id"]}
        if timed(step.meta):
            time = when(step.deadline, lang, step.meta)
            out.append(_("Waiting for {who} (turn {turn}, step {step}) until {time}.").format(**where, time=time))
        else:
            out.append(_("Waiting for {who} (turn {turn}, step {step}).").format(**where))
        if cards_pending(game):
            out.append(_("A card may still be played (nobody is named: cards are secret)."))
    elif game.window and cards_pending(game):
        out.append(_("A card may still be played (nobody is named: cards are secret)."))
        if timed(step.meta):
            out[-1] += " " + _("Answer by {time}.").format(time=when(step.deadline, lang, step.meta))
    return out


def waited_names(seats: list[int], names: dict[int, str], lang: str, reader: int | None) -> str:
    """The seats a step waits for, as the object of "Waiting for …": the table's reader (the sandbox's player) is
    "you" (Czech "tebe", not the name "Ty")."""
    you = translator(lang).pgettext("waiting for", "you")
    return ", ".join(you if seat == reader else seat_name(names, seat, lang) for seat in seats)


def private(news: StepNews, seat: int, chat: str) -> list[dict]:
    """A seat's own news of a step and, when it is asked, its question with the typed answers."""
    step, lang = news.step, news.readers.lang(seat)
    out = lines([e for e in step.events if sees(e, seat)], names_of(step.meta), lang, seat)
    game = step.game
    if (seat in step.asked or seat in step.optional) and game.window is not None:
        _ = translator(lang).gettext
        out.append(
            _("Your move (turn {turn}, step {step}), answer by {time}:").format(
                turn=game.turn, step=game.window["id"], time=when(step.deadline, lang, step.meta)
            )
        )
        out.append("\n".join(summary(game, seat, lang)))
        out.append(_("(send help for more)"))
    return [message(chat, text, seat, False) for text in chunks(out)]


def unreachable(notice: Unreachable, chat: str, seat: int | None, lang: str) -> dict:
    text = notice_text({"kind": "unreachable", "seat": notice.seat}, names_of(notice.meta), lang, notice.bot_username)
    return message(chat, "⚠️ " + text if seat is None else text, seat, seat is None)


def shown(game: Game, asked: list[int]) -> list[int]:
    """Of the seats a window asked (as the pipeline stored them when it opened, ``game`` as it was then), those the
    table is told it waits for: under strict secrecy never a seat asked only about its cards (the game's
    rules/secrecy.py; the public view names them)."""
    window = game.public_view()["window"]
    return [seat for seat in asked if window is not None and seat in window["waiting"]]


def cards_pending(game: Game) -> bool:
    """Whether the open window may wait for a card the table is not told of (strict secrecy): "a card may still
    be played", by nobody named."""
    window = game.public_view()["window"]
    return bool(window and window["cards_pending"])


def situation(game: Game, seat: int, lang: str) -> str:
    """What the seat holds: its Hunt cards (the Creature), else its hand, Survival cards and Will."""
    _ = translator(lang).gettext
    you = game.view(seat)["you"]
    if seat == 0:
        return _("Your Hunt cards: {cards}").format(cards=cards_text(you["hunt_cards"], lang) or "—")
    will = next(h["will"] for h in game.view(seat)["hunted"] if h["seat"] == seat)
    parts = [
        _("Your hand: {cards}").format(cards=cards_text(sorted(you["hand"]), lang) or "—"),
        _("Survival: {cards}").format(cards=cards_text(you["survival"], lang) or "—"),
        _("Will: {n}").format(n=will),
    ]
    return " · ".join(parts)
