"""What the table and each player are told after a step, as outbox messages, worded for each chat's channel.

A chat's channel is read from its id: ``sms:<number>`` is SMS, a numeric id (``"-100123"``, ``"-100123/7"`` for a
forum topic, ``"42"`` for a private chat) is Telegram, anything else (``console:you``, test chats) is plain text.

Telegram (`service.channels.telegram_ui`)
    * one private **turn message** per seat and turn, slot ``<game>:p<turn>``: sent new when the turn first has
      something for the seat (its decision, with the inline keyboard), then edited in place by the turn's later
      windows, its private results (kept in ``news["private"]``), and the "locked in" screen after an answer
      (`refresh_messages`). So a player gets one new message — one notification — per turn, when it is time
      to act;
    * one living **status message** in the group per reveal, slot ``<game>:s<turn of the reveal>`` (``s0`` from
      the game's start to the first reveal): the **reveal** is sent as a new message (people are notified), and
      that message then lives on, edited by every later step and after every accepted answer (who has answered,
      never what), through the rest of the turn and the next turn's first windows, until the next reveal. It
      shows the news since its reveal (kept in the snapshot field ``news["segment"]``, written by the same
      commit), then where the game is now. The **end of the game** comes with its reveal, or as a new message;
      notices (a seat handed to a bot) are lines of the news. So a turn costs the group one new message, and
      edits.
    A private chat of a player who blocked the bot (``tg:blocked:<user>``) gets nothing until they press Start.
SMS (`service.channels.sms_messages`): one standalone text per number per step, or none.
Plain text (the sandbox's console): readable lines (`service.i18n.events`), the question with the typed commands.

Every message of a slot carries ``seq`` (version × 100, + answers counted for a refresh): the outbox skips a
message older than one already delivered to the same slot, so deliveries that overtake each other never leave a
stale status on screen.

Hidden information stays hidden: an event with ``visible_to`` reaches only those seats' private chats; only public
events (``visible_to`` None) reach the group (or, in a game without a group, every player). The decision screen of
a seat shows that seat's own hand only.
"""

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from service import i18n, wording
from service.channels import sms_messages
from service.channels import telegram_ui as ui
from service.channels.sms_directory import Directory
from service.i18n.events import line, seat_name as display_name

log = logging.getLogger(__name__)

MAX_TEXT = 4000  # Telegram allows 4096 characters
MAX_NEWS_LINES = 40  # a status message keeps the last this many result lines
_TELEGRAM_CHAT = re.compile(r"^-?\d+(/\d+)?$")


def channel_of(chat: str | None) -> str:
    """"sms", "telegram" or "text" for a chat id."""
    if not chat:
        return "none"
    if chat.startswith("sms:"):
        return "sms"
    return "telegram" if _TELEGRAM_CHAT.match(chat) else "text"


def when(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%a %d %b %H:%M:%S UTC")


def names_of(meta: dict) -> dict[int, str]:
    return {int(seat): p.get("name") or "" for seat, p in meta.get("players", {}).items()}


def seat_name(meta: dict, seat: int, lang: str = "en") -> str:
    return display_name(names_of(meta), seat, lang)


def _t(lang: str):
    return i18n.translator(lang).gettext


# ---------------------------------------------------------------------------------------------- who reads what


@dataclass
class Readers:
    """Languages and reachability of a game's chats (a few Redis reads, done once per step)."""

    redis: object
    meta: dict

    def chat(self, seat: int) -> str | None:
        return self.meta["players"].get(str(seat), {}).get("chat")

    def user(self, seat: int) -> str | None:
        return self.meta["players"].get(str(seat), {}).get("user")

    def group_lang(self) -> str:
        return self.meta.get("lang") or i18n.DEFAULT_LANG

    def lang(self, seat: int) -> str:
        """The seat's language: its own choice on Telegram, else the one recorded when it joined, else the
        game's."""
        player = self.meta["players"].get(str(seat), {})
        chosen = None
        if channel_of(player.get("chat")) == "telegram" and player.get("user") and self.redis is not None:
            raw = self.redis.get(f"tg:lang:{player['user']}")
            chosen = raw.decode() if raw else None
        return i18n.choose(chosen, player.get("lang") or self.group_lang())

    def blocked(self, seat: int) -> bool:
        """A Telegram player who blocked the bot (or never started it): nothing is sent to them."""
        user = self.user(seat)
        if self.redis is None or channel_of(self.chat(seat)) != "telegram" or not user:
            return False
        return bool(self.redis.exists(f"tg:blocked:{user}"))


# ---------------------------------------------------------------------------------------------- mail


class Mail:
    """Collects lines per chat, then turns them into at most one plain message per chat (split if long)."""

    def __init__(self, meta: dict):
        self.meta = meta
        self.lines: dict[str, list[str]] = {}
        self.info: dict[str, dict] = {}

    def to_chat(self, chat: str, line_: str, info: dict) -> None:
        self.lines.setdefault(chat, []).append(line_)
        self.info[chat] = info

    def messages(self) -> list[dict]:
        out = []
        for chat, lines in self.lines.items():
            for text in _chunks(lines):
                out.append({"chat": chat, "text": text, "buttons": None, **self.info[chat]})
        return out


def _chunks(lines: list[str]) -> list[str]:
    chunks, current = [], ""
    for text in lines:
        text = text[:MAX_TEXT]
        if current and len(current) + 1 + len(text) > MAX_TEXT:
            chunks.append(current)
            current = ""
        current = f"{current}\n{text}" if current else text
    return chunks + ([current] if current else [])


def _message(chat: str, text: str, seat: int | None, group: bool, buttons=None, slot: str | None = None,
             seq: int | None = None) -> dict:
    out = {"chat": chat, "text": text[:MAX_TEXT], "buttons": buttons, "seat": seat, "group": group}
    if slot:
        out.update(slot=slot, seq=seq)
    return out


# ---------------------------------------------------------------------------------------------- notices


def notice_text(notice: dict, meta: dict, lang: str, bot_username: str = "") -> str:
    """A structured notice (``{"type": "_notice", "kind": ...}``) in ``lang``."""
    _ = _t(lang)
    kind = notice["kind"]
    if kind == "start":
        return _("A game of Not Alone begins: {n} players, {seconds} s per step.").format(
            n=notice["players"], seconds=notice["seconds"])
    who = seat_name(meta, notice["seat"], lang)
    if kind == "bot":
        return _("{who} missed {n} deadlines in a row: a bot plays for them until they answer again.").format(
            who=who, n=notice["misses"])
    if kind == "unreachable":
        bot = f"@{bot_username}" if bot_username else _("the bot")
        return _("{who} cannot get my private messages (the bot is blocked or was never started): a bot plays "
                 "for them for now. {who}, open {bot} and press Start to get your seat back.").format(
            who=who, bot=bot)
    return kind


def bot_notice(meta: dict, seat: int, misses: int) -> dict:
    return {"type": "_notice", "kind": "bot", "seat": seat, "misses": misses}


def start_notice(meta: dict) -> dict:
    return {"type": "_notice", "kind": "start", "players": len(meta["players"]),
            "seconds": meta["deadline_seconds"]}


def unreachable_messages(meta: dict, seat: int, bot_username: str) -> list[dict]:
    """The group (or, without one, every other player) is told that ``seat`` cannot be reached and how to fix it."""
    readers = Readers(None, meta)
    group = meta.get("group")
    if group:
        lang = readers.group_lang()
        return [_message(group, "⚠️ " + notice_text({"kind": "unreachable", "seat": seat}, meta, lang, bot_username),
                         None, True)]
    out = []
    for other in map(int, meta.get("players", {})):
        chat = readers.chat(other)
        if other != seat and chat and channel_of(chat) != "sms":
            text = notice_text({"kind": "unreachable", "seat": seat}, meta, readers.lang(other), bot_username)
            out.append(_message(chat, text, other, False))
    return out


# ---------------------------------------------------------------------------------------------- news of a turn


def empty_news(turn: int = 0) -> dict:
    return {"turn": turn, "items": []}


def _news_lines(items: list[dict], meta: dict, lang: str, bot_username: str) -> list[str]:
    names = names_of(meta)
    out = []
    for item in items:
        if item["type"] == "_notice":
            out.append("ℹ️ " + notice_text(item, meta, lang, bot_username))
        elif item["type"] == "reveal":
            out.append(ui.reveal(item, names, lang))
        elif item["type"] == "turn":
            out.append("⏭ " + _t(lang)("Turn {n}").format(n=item["turn"]))
        else:
            text = line(item, names, lang)
            if text:
                out.append(text)
    return out[-MAX_NEWS_LINES:]


@dataclass
class TurnPart:
    """The public items of one turn that a step touched: those already known, and those this step added."""

    turn: int
    before: list[dict]
    added: list[dict] = field(default_factory=list)
    ended: bool = False

    @property
    def items(self) -> list[dict]:
        return self.before + self.added


def split_turns(news: dict, events: list[dict], notices: list[dict]) -> list[TurnPart]:
    """The step's public events (and notices) cut at the engine's ``turn`` events: one part per turn touched."""
    parts = [TurnPart(news["turn"], list(news["items"]))]
    for event in events:
        if event.get("visible_to") is not None or event["type"] == "locked_in":
            continue
        if event["type"] == "turn":
            parts[-1].ended = True
            parts.append(TurnPart(event["turn"], []))
            continue
        parts[-1].added.append(event)
    parts[-1].added += notices
    return parts


@dataclass
class Segment:
    """The group's living status message: it starts at a reveal (``start``: the turn of that reveal; 0 before
    the first one) and lives until the next reveal. ``items`` are the public events since that reveal."""

    start: int
    items: list[dict]

    def to_news(self) -> dict:
        return {"start": self.start, "items": self.items[-MAX_NEWS_LINES:]}


def _segment(news: dict) -> dict:
    return news.get("segment") or {"start": 0, "items": []}


def next_segments(news: dict, events: list[dict], notices: list[dict]) -> tuple[Segment, Segment | None]:
    """(the living status message after the step, the one the step's reveal closed or None). A reveal opens a
    new message holding everything public of its step (the Creature's tokens come with the reveal)."""
    segment = _segment(news)
    turn = news.get("turn", 0)
    added, revealed_in = [], None
    for event in events:
        if event.get("visible_to") is not None or event["type"] == "locked_in":
            continue
        if event["type"] == "turn":
            turn = event["turn"]
        elif event["type"] == "reveal" and revealed_in is None:
            revealed_in = turn
        added.append(event)
    added += notices
    if revealed_in is None:
        return Segment(segment["start"], segment["items"] + added), None
    return Segment(revealed_in, added), Segment(segment["start"], list(segment["items"]))


# ---------------------------------------------------------------------------------------------- a step


@dataclass
class Step:
    """One committed step, as the messages need it."""

    game_id: str
    meta: dict
    game: object  # service.game.Game after the step
    events: list[dict]
    notices: list[dict]
    asked: list[int]
    deadline: float
    version: int  # the version this step's commit creates
    news: dict  # the current turn's news before the step


def step_messages(ctx, step: Step) -> tuple[list[dict], dict]:
    """(the step's outgoing messages, the news of the current turn after it)."""
    readers = Readers(ctx.store.redis if ctx is not None else None, step.meta)
    parts = split_turns(step.news, step.events, step.notices)
    segment, closed = next_segments(step.news, step.events, step.notices)
    news_after = {"turn": parts[-1].turn, "items": parts[-1].items[-MAX_NEWS_LINES:], "private": {},
                  "segment": segment.to_news()}
    private = {seat: private_turns(step.news, step.events, seat) for seat in map(int, step.meta["players"])
               if channel_of(readers.chat(seat)) == "telegram"}
    for seat, parts_of_seat in private.items():  # what each Telegram seat's turn message shows so far
        if parts_of_seat[-1].items:
            news_after["private"][str(seat)] = parts_of_seat[-1].items[-MAX_NEWS_LINES:]
    out: list[dict] = []
    group = step.meta.get("group")
    channel = channel_of(group)
    bot_username = getattr(ctx.settings, "bot_username", "") if ctx is not None else ""
    if channel == "telegram":
        out += _guarded(lambda: _telegram_group(step, segment, closed, readers, bot_username),
                        lambda: _text_table(step, parts, readers, [group], bot_username), "group")
    elif channel == "text":
        out += _text_table(step, parts, readers, [group], bot_username)
    elif channel == "sms":
        pass  # an SMS "group" is not a thing: every SMS seat gets its own texts below
    if not group:  # no table chat: every player is told what the table would be, in their own chat
        for seat in map(int, step.meta["players"]):
            chat = readers.chat(seat)
            if chat and channel_of(chat) in ("telegram", "text") and not readers.blocked(seat):
                out += _text_table(step, parts, readers, [chat], bot_username, seat=seat)
    for seat in map(int, step.meta["players"]):
        chat = readers.chat(seat)
        kind = channel_of(chat)
        if kind == "telegram" and not readers.blocked(seat):
            out += _guarded(lambda: _telegram_private(step, seat, chat, readers, private[seat]),
                            lambda: _text_private(step, seat, chat, readers), f"seat {seat}")
        elif kind == "text":
            out += _text_private(step, seat, chat, readers)
    if any(channel_of(p.get("chat")) == "sms" for p in step.meta["players"].values()):
        out += _guarded(lambda: sms_messages.step_messages(step.meta, step.game, step.events, step.asked,
                                                           step.deadline, _directory(ctx), step.game_id),
                        lambda: [], "sms")
    return _merge_plain(out), news_after


def _guarded(render, fallback, what: str) -> list[dict]:
    """A channel's rendering, or the plain-text fallback when it fails: a wording bug must never stop a game
    (the resolution would fail, and be retried, forever)."""
    try:
        return render()
    except Exception:
        log.exception("rendering the %s messages failed; sending plain text", what)
        try:
            return fallback()
        except Exception:
            log.exception("the plain-text fallback for %s failed too", what)
            return []


def _directory(ctx) -> Directory:
    tz = getattr(ctx.settings, "sms_default_tz", "Europe/Prague")
    return Directory(ctx.store.redis, default_tz=tz)


def _merge_plain(messages: list[dict]) -> list[dict]:
    """Plain messages (no buttons, no slot) to the same chat are joined, in order, into as few as fit."""
    out, plain_at = [], {}
    for m in messages:
        key = m["chat"]
        if m.get("buttons") or m.get("slot") or key not in plain_at:
            if not m.get("buttons") and not m.get("slot"):
                plain_at[key] = len(out)
            out.append(dict(m))
            continue
        first = out[plain_at[key]]
        joined = f"{first['text']}\n{m['text']}"
        if len(joined) <= MAX_TEXT:
            first["text"] = joined
        else:
            plain_at[key] = len(out)
            out.append(dict(m))
    return out


def _status(view: dict, names: dict[int, str], asked: list[int], answered: set[int], deadline: float | None,
            lang: str, news: list[str], tz: str | None = None) -> str:
    """The news since the last reveal (in order: what happened), then `telegram_ui.status` (where the game is
    now), with the Artemia spaces (spaces of the Rescue track, not places: the ui would look them up as place
    cards) given as a line of their own."""
    spaces = view.get("artemia_spaces") or []
    extra = [_t(lang)("Artemia spaces (side {side}): {places}.").format(
        side=view["side"], places=", ".join(map(str, spaces)))] if spaces else []
    block = ui.status({**view, "artemia_spaces": []}, names, asked, answered, deadline, lang, extra, tz)
    return "\n\n".join(["\n".join(news), block]) if news else block


def step_seq(version: int) -> int:
    """The ``seq`` of a living message written by the step that created ``version``; a refresh after an answer
    adds the answers counted (fewer than 100), so every later step outranks it."""
    return version * 100


def _status_slot(game_id: str, start: int) -> str:
    """The group's status message that started at the reveal of turn ``start`` (0: at the game's start)."""
    return f"{game_id}:s{start}"


def turn_slot(game_id: str, turn: int) -> str:
    """A seat's private message of one turn (the chat tells the seats apart)."""
    return f"{game_id}:p{turn}"


def _telegram_group(step: Step, segment: Segment, closed: Segment | None, readers: Readers,
                    bot_username: str) -> list[dict]:
    """The living status message; a reveal starts a new one (the news people are notified of), which then
    lives through the rest of that turn and the next turn's first windows. The end of the game is a new message
    unless it came with the reveal."""
    lang, meta, game = readers.group_lang(), step.meta, step.game
    group, names = meta["group"], names_of(meta)
    seq = step_seq(step.version)
    view = game.public_view()
    out = []
    if closed is not None:  # the previous message, no longer waiting for anyone
        past = {**view, "turn": segment.start, "window": None, "winner": None}
        out.append(_message(group, _status(past, names, [], set(), None, lang,
                                           _news_lines(closed.items, meta, lang, bot_username)),
                            None, True, slot=_status_slot(step.game_id, closed.start), seq=seq))
    asked = step.asked if game.window and not game.is_over else []
    text = _status(view, names, asked, set(), step.deadline if asked else None, lang,
                   _news_lines(segment.items, meta, lang, bot_username), meta.get("tz"))
    if game.is_over and closed is not None:
        text = "\n\n".join([text, ui.game_over(view, names, lang)])
    out.append(_message(group, text, None, True, slot=_status_slot(step.game_id, segment.start), seq=seq))
    if game.is_over and closed is None:
        out.append(_message(group, ui.game_over(view, names, lang), None, True))
    return out


def _private_lines(step: Step, seat: int, lang: str) -> list[str]:
    return _lines([e for e in step.events if _sees(e, seat)], names_of(step.meta), lang)


def _sees(event: dict, seat: int) -> bool:
    visible = event.get("visible_to")
    return visible is not None and seat in visible


def _lines(events: list[dict], names: dict[int, str], lang: str) -> list[str]:
    return [text for text in (line(e, names, lang) for e in events) if text]


def _above(lines: list[str], screen: str) -> str:
    """A turn message: the seat's result lines of the turn, a blank line, then the screen (either may be empty)."""
    return "\n\n".join(part for part in ("\n".join(lines), screen) if part)


def private_turns(news: dict, events: list[dict], seat: int) -> list[TurnPart]:
    """A seat's private events cut at the turns, like `split_turns` for the table: what its turn message held
    before the step (``news["private"]``) and what the step adds."""
    before = news.get("private", {}).get(str(seat), []) if news.get("turn") else []
    parts = [TurnPart(news["turn"], list(before))]
    for event in events:
        if event["type"] == "turn" and event.get("visible_to") is None:
            parts[-1].ended = True
            parts.append(TurnPart(event["turn"], []))
        elif _sees(event, seat):
            parts[-1].added.append(event)
    return parts


def _telegram_private(step: Step, seat: int, chat: str, readers: Readers, parts: list[TurnPart]) -> list[dict]:
    """The seat's one living message per turn (slot `turn_slot`), from its `private_turns`: sent new when the
    turn first has something for the seat (its decision, as a rule), then edited for the turn's later windows
    and private results. So a player gets one new message per turn, which is when they have to act."""
    lang, names, game = readers.lang(seat), names_of(step.meta), step.game
    out = []
    for part in parts:
        current = part is parts[-1]
        lines = _lines(part.items, names, lang)
        screen = None
        if current and seat in step.asked and game.window is not None:
            screen = ui.decision(game, seat, ui.Choice(step.game_id, game.window["id"]), step.deadline, lang,
                                 names, tz=step.meta.get("tz"))
        elif not part.added:
            continue  # nothing new for this turn's message
        text = _above(lines, screen.text if screen else "")
        if text:
            out.append(_message(chat, text, seat, False, buttons=screen.keyboard if screen else None,
                                slot=turn_slot(step.game_id, part.turn), seq=step_seq(step.version)))
    return out


def _text_table(step: Step, parts: list[TurnPart], readers: Readers, chats: list[str], bot_username: str,
                seat: int | None = None) -> list[dict]:
    lang = readers.lang(seat) if seat is not None else readers.group_lang()
    _ = _t(lang)
    names = names_of(step.meta)
    lines = []
    for part in parts:
        lines += _news_lines(part.added, step.meta, lang, bot_username)
        if part.ended and part is not parts[-1]:
            lines.append(_("Turn {n} begins.").format(n=parts[parts.index(part) + 1].turn))
    game = step.game
    if game.is_over:
        lines.append(ui.game_over(game.public_view(), names, lang))
    elif step.asked and game.window:
        who = ", ".join(display_name(names, s, lang) for s in step.asked)
        lines.append(_("Waiting for {who} (turn {turn}, step {step}) until {time}.").format(
            who=who, turn=game.turn, step=game.window["id"], time=when(step.deadline)))
    return [_message(chat, text, seat, seat is None) for chat in chats for text in _chunks(lines)]


def _text_private(step: Step, seat: int, chat: str, readers: Readers) -> list[dict]:
    lang = readers.lang(seat)
    lines = _private_lines(step, seat, lang)
    game = step.game
    if seat in step.asked and game.window is not None:
        _ = _t(lang)
        lines.append(_("Your move (turn {turn}, step {step}), answer by {time}:").format(
            turn=game.turn, step=game.window["id"], time=when(step.deadline)))
        lines.append(wording.options(game, seat, lang))
        lines.append(_("(send help for more)"))
    return [_message(chat, text, seat, False) for text in _chunks(lines)]


# ---------------------------------------------------------------------------------------------- reminders


def reminder_messages(ctx, game_id: str, meta: dict, game, seats: list[int], window: int,
                      deadline: float) -> list[dict]:
    """A reminder to each of ``seats`` (those that have not answered), in their channel and language."""
    readers = Readers(ctx.store.redis if ctx is not None else None, meta)
    out = []
    for seat in seats:
        chat = readers.chat(seat)
        kind = channel_of(chat)
        lang = readers.lang(seat)
        _ = _t(lang)
        if kind == "telegram" and not readers.blocked(seat):
            out.append(_message(chat, "⏰ " + _("Reminder: please answer the question above by {time}; after that "
                                                "a move is played for you.").format(
                time=ui.when(deadline, lang, meta.get("tz"))), seat, False))
        elif kind == "text":
            out.append(_message(chat, _("Reminder: step {step} needs your answer by {time}; after that a move is "
                                        "played for you.").format(step=window, time=when(deadline)), seat, False))
    if any(channel_of(readers.chat(s)) == "sms" for s in seats):
        out += sms_messages.reminder_messages(meta, game, seats, deadline, _directory(ctx), game_id)
    return out


# ---------------------------------------------------------------------------------------------- after an answer


def refresh_messages(ctx, game_id: str, snap, meta: dict, news: dict, answers: dict[int, list[dict]],
                     expected: set[int], seat: int) -> list[dict]:
    """After an accepted answer that did not close the window: the group's status message with the new tick,
    and the answering seat's turn message showing its answer "locked in" (Telegram only; other channels got
    their reply from the ingest)."""
    from service.game import Game

    readers = Readers(ctx.store.redis, meta)
    game = Game.from_json(snap.json)
    answered = set(answers) & expected
    seq = step_seq(snap.version) + len(answered)
    out = []
    group = meta.get("group")
    if channel_of(group) == "telegram" and game.window is not None:
        lang = readers.group_lang()
        segment = _segment(news)
        news_lines = _news_lines(segment["items"], meta, lang, ctx.settings.bot_username)
        text = _status(game.public_view(), names_of(meta), sorted(expected), answered, snap.deadline, lang,
                       news_lines, meta.get("tz"))
        out.append(_message(group, text, None, True, slot=_status_slot(game_id, segment["start"]), seq=seq))
    chat = readers.chat(seat)
    if channel_of(chat) == "telegram" and seat in answers and not readers.blocked(seat):
        lang = readers.lang(seat)
        screen = ui.locked_in(ui.Choice(game_id, snap.window), answers[seat], snap.deadline, lang, tz=meta.get("tz"))
        lines = _lines(news.get("private", {}).get(str(seat), []), names_of(meta), lang) \
            if news.get("turn") == game.turn else []
        out.append(_message(chat, _above(lines, screen.text), seat, False, buttons=screen.keyboard,
                            slot=turn_slot(game_id, game.turn), seq=seq))
    return out


def load_news(raw: str | None) -> dict:
    return json.loads(raw) if raw else empty_news()
