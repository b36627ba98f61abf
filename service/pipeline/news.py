"""The news of a game, channel-neutral: what a step, a reminder, a refresh after an answer or an unreachable seat
has to tell, and to whom; each channel (the `Channel` protocol) words it for its own chats. `service.pipeline.telling`
asks every channel of a context for its messages.

The model
    * **parts of turns** (`TurnPart`): the public events of a step cut at the engine's ``turn`` events, with what
      the current turn already held (``news["items"]``);
    * the group's **segment** (`Segment`): the public events since the last reveal — a chat channel's living
      status message shows them; a reveal closes one segment and opens the next;
    * each seat's **private parts** (`private_turns`): its own secret events of the turn, kept in
      ``news["private"]`` for the seats of a channel with living messages (Telegram: the turn message shows them).
    The news after a step is stored with the snapshot by the same commit (``news`` of the snapshot).

Hidden information stays hidden: an event with ``visible_to`` reaches only those seats; only public events
(``visible_to`` None) reach the group (or, in a game without a group, every player). A channel's words cannot
break a game: a channel that fails to render is logged and skipped (the step still commits).

Every message of a living slot carries ``seq`` (`step_seq`): the outbox skips a message older than one already
delivered to the same slot, so deliveries that overtake each other never leave a stale status on screen.
"""

import json
import logging
from dataclasses import dataclass, field
from typing import Protocol, cast

import redis

from service import i18n
from service.game import Game
from service.pipeline.chats import ChatKind, chat_kind
from service.store import Snapshot, keys

log = logging.getLogger(__name__)

MAX_TEXT = 4000  # the longest outgoing text (Telegram allows 4096 characters)
MAX_NEWS_LINES = 40  # a status message keeps the last this many items
LIVING_MESSAGES: tuple[ChatKind, ...] = ("telegram",)  # channels whose turn message shows a seat's private news


def refreshable(meta: dict, seat: int) -> bool:
    """Whether an accepted answer of ``seat`` changes a living message: the group's status message (its tick) or
    the seat's own turn message ("locked in"). In a game with neither, nothing is refreshed."""
    chats = (meta.get("group"), meta.get("players", {}).get(str(seat), {}).get("chat"))
    return any(chat_kind(chat) in LIVING_MESSAGES for chat in chats)


def names_of(meta: dict) -> dict[int, str]:
    return {int(seat): p.get("name") or "" for seat, p in meta.get("players", {}).items()}


@dataclass
class Readers:
    """Who reads a game's chats, in which language (a few Redis reads, done once per step)."""

    redis: redis.Redis | None  # None: no Redis reads (a player's own language and blocks are not looked up)
    meta: dict

    def seats(self) -> list[int]:
        return [int(seat) for seat in self.meta["players"]]

    def chat(self, seat: int) -> str | None:
        return self.meta["players"].get(str(seat), {}).get("chat")

    def kind(self, seat: int) -> ChatKind:
        return chat_kind(self.chat(seat))

    def user(self, seat: int) -> str | None:
        return self.meta["players"].get(str(seat), {}).get("user")

    def group(self) -> str | None:
        return self.meta.get("group")

    def group_lang(self) -> str:
        return self.meta.get("lang") or i18n.DEFAULT_LANG

    def lang(self, seat: int) -> str:
        """The seat's language: its own choice on Telegram, else the one recorded when it joined, else the
        game's."""
        player = self.meta["players"].get(str(seat), {})
        chosen = None
        if chat_kind(player.get("chat")) == "telegram" and player.get("user") and self.redis is not None:
            raw = cast(bytes | None, self.redis.get(keys.telegram_lang(player["user"])))
            chosen = raw.decode() if raw else None
        return i18n.choose(chosen, player.get("lang") or self.group_lang())

    def unreachable(self, seat: int) -> bool:
        """A Telegram player we know cannot get our messages (blocked the bot, or never started it): nothing is
        sent to them until they press Start (`keys.telegram_blocked`)."""
        user = self.user(seat)
        if self.redis is None or self.kind(seat) != "telegram" or not user:
            return False
        return bool(self.redis.exists(keys.telegram_blocked(user)))


# ---------------------------------------------------------------------------------------------- notices


# A table without deadlines (the sandbox's, unless it sets one: meta "deadline_seconds" 0) still has a deadline
# for each window, as every snapshot does, but one nobody meets: a year.
UNTIMED_WAIT = 365 * 86400


def timed(meta: dict) -> bool:
    """Whether the table's windows have deadlines (every table but an untimed sandbox)."""
    return bool(meta.get("deadline_seconds"))


def bot_notice(meta: dict, seat: int, misses: int) -> dict:
    return {"type": "_notice", "kind": "bot", "seat": seat, "misses": misses}


def start_notice(meta: dict) -> dict:
    return {"type": "_notice", "kind": "start", "players": len(meta["players"]), "seconds": meta["deadline_seconds"]}


# ---------------------------------------------------------------------------------------------- news of a turn


def empty_news(turn: int = 0) -> dict:
    return {"turn": turn, "items": []}


def load_news(raw: str | None) -> dict:
    return json.loads(raw) if raw else empty_news()


@dataclass
class TurnPart:
    """The public items of one turn that a step touched: those already known, and those this step added."""

    turn: int
    before: list[dict]
    added: list[dict] = field(default_factory=list)
    ended: bool = False
    since: int | None = None  # a seat's part: the earlier turn whose message this turn's message goes on editing

    @property
    def items(self) -> list[dict]:
        return self.before + self.added

    @property
    def message_turn(self) -> int:
        """The turn whose slot (`turn_slot`) holds this turn's message."""
        return self.turn if self.since is None else self.since


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


# public events about one seat that its own turn message repeats, so the player reads what happened to them in
# their private chat without looking at the group (which may lag behind)
PERSONAL = frozenset(
    {
        "caught",
        "will",
        "resist",
        "giveup",
        "gave_up",
        "discarded",
        "discarded_cards",
        "took_back",
        "takeback",
        "power",
        "survival",
        "discard_survival",
        "kept_survival",
        "choose_again",
        "shown",
    }
)


def sees(event: dict, seat: int) -> bool:
    visible = event.get("visible_to")
    return visible is not None and seat in visible


def about(event: dict, seat: int) -> bool:
    """The event belongs in the seat's own turn message: shown to it alone, or public and about it (`PERSONAL`)."""
    if event.get("visible_to") is None:
        if event["type"] == "power" and event.get("heal") == seat:
            return True  # another Hunted's Source gave this seat its Will back
        return event["type"] in PERSONAL and event.get("seat") == seat
    return sees(event, seat)


def not_caught_in(items: list[dict], seat: int) -> bool:
    """Whether a turn of these items tells a Hunted it was not caught: it had news, none of it its capture."""
    return seat != 0 and bool(items) and not any(e["type"] == "caught" and e.get("seat") == seat for e in items)


# A private item that stands for an earlier turn, carried on top of a seat's next turn message
# (`carry_turn_ends`): {"type": TURN_OVER, "turn": n, "items": the events that ending added (or, with "whole":
# true, all of that turn's own events), "not_caught": bool}.
TURN_OVER = "turn_over"


def carry_turn_ends(parts: list[TurnPart], seat: int, step: "Step") -> list[TurnPart]:
    """A seat's parts (`private_turns`) with the turns the step ended carried into its next turn message, as a
    ``TURN_OVER`` item on top of it, instead of a last edit of their own messages, when the step asks the seat:

    * a seat that pressed a button of its turn message moments ago (``step.present``, `reading`) is looking at
      its chat: that message goes on into the next turn (the same slot, `TurnPart.since`), the whole turn it
      leaves carried on top. One edit, which the player sees at once, where a last edit of the old message and a
      new message cost two (and the notification of a new message is of no use to someone reading the chat).
      Not in a game without a group: there every step also writes the table's news into the player's chat,
      below the turn message, and the next question must come below them;
    * otherwise, when the window the step closed had not asked the seat (its older message shows no buttons that
      must be taken away), the next turn message is a new one (its notification calls the player back), with the
      ends of the turns on top. The same lines, one call fewer.

    Else the old message gets its last edit and the next turn message is a new one."""
    if len(parts) < 2 or seat not in step.asked or step.game.window is None:
        return parts
    goes_on = seat in step.present and bool(step.meta.get("group"))
    if seat in step.closing and not goes_on:
        return parts
    carried = []
    for part in parts[:-1]:
        if part.items:  # (its message exists: the turn's end tells at least the counters, as its edit would)
            not_caught = not_caught_in(part.items, seat)
            own = [item for item in part.items if item["type"] != TURN_OVER] if goes_on else part.added
            whole = {"whole": True} if goes_on else {}
            carried.append({"type": TURN_OVER, "turn": part.turn, "items": own, "not_caught": not_caught, **whole})
    last, since = parts[-1], parts[0].message_turn if goes_on else None
    return [TurnPart(last.turn, carried + last.before, last.added, last.ended, since)]


def reading(
    told: dict, answered_at: dict[int, float], typed: set[int], now: float, within: float
) -> tuple[dict[int, float], frozenset[int], frozenset[int]]:
    """Who is reading their chat at a step, from the news ``told`` before it and the answers in person of the window
    it closes (``answered_at``; ``typed``: those of them typed, not pressed). -> (when each seat last answered in
    person, the seats whose latest such answer was typed, the seats reading: those that answered less than
    ``within`` seconds ago by pressing a button of their turn message. A typed answer's reply came below that
    message, so its next question should too.)"""
    seen = {**{int(seat): at for seat, at in told.get("seen", {}).items()}, **answered_at}
    last_typed = (set(told.get("typed", [])) - set(answered_at)) | (typed & set(answered_at))
    present = frozenset(s for s, at in seen.items() if now - at < within and s not in last_typed)
    return seen, frozenset(last_typed), present


def private_turns(news: dict, events: list[dict], seat: int) -> list[TurnPart]:
    """A seat's own events (`about`) cut at the turns, like `split_turns` for the table: what its turn message
    held before the step (``news["private"]``) and what the step adds."""
    before = news.get("private", {}).get(str(seat), []) if news.get("turn") else []
    parts = [TurnPart(news["turn"], list(before), since=message_since(news, seat))]
    for event in events:
        if event["type"] == "turn" and event.get("visible_to") is None:
            parts[-1].ended = True
            parts.append(TurnPart(event["turn"], []))
        elif about(event, seat):
            parts[-1].added.append(event)
    return parts


@dataclass
class Segment:
    """The group's living status message: it starts at a reveal (``start``: the turn of that reveal; 0 before
    the first one) and lives until the next reveal. ``items`` are the public events since that reveal."""

    start: int
    items: list[dict]

    def to_news(self) -> dict:
        return {"start": self.start, "items": self.items[-MAX_NEWS_LINES:]}


def current_segment(news: dict) -> dict:
    return news.get("segment") or {"start": 0, "items": []}


def next_segments(news: dict, events: list[dict], notices: list[dict]) -> tuple[Segment, Segment | None]:
    """(the living status message after the step, the one the step's reveal closed or None). A reveal opens a
    new message holding everything public of its step (the Creature's tokens come with the reveal)."""
    segment = current_segment(news)
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


# ---------------------------------------------------------------------------------------------- what is told


@dataclass
class Step:
    """One committed step, as the messages need it."""

    game_id: str
    meta: dict
    game: Game  # after the step
    events: list[dict]
    notices: list[dict]
    asked: list[int]
    deadline: float
    version: int  # the version this step's commit creates
    news: dict  # the current turn's news before the step
    closing: tuple[int, ...] = ()  # the seats the window this step closed had asked
    # what the seats that answered that window in person said: a living message still showing their question, or
    # their answer with a way to change it, shows it locked in for good when the step has nothing else for it
    answered: dict[int, list[dict]] = field(default_factory=dict)
    # when each seat last answered in person (its first answer of a window, as the window recorded it), this
    # step's window included; and the seats reading their chat (`reading`, `carry_turn_ends`)
    seen: dict[int, float] = field(default_factory=dict)
    present: frozenset[int] = frozenset()
    typed: frozenset[int] = frozenset()  # the seats whose latest answer in person was typed (`reading`)
    # the seats the new window asks without waiting for them (`Game.may_answer`: a question ahead, the Creature's
    # phase-1 card under strict secrecy)
    optional: tuple[int, ...] = ()


@dataclass
class StepNews:
    """A step with its news cut for the readers: what every channel renders from."""

    step: Step
    readers: Readers
    parts: list[TurnPart]  # the table's public items, per turn the step touched
    segment: Segment  # the group's living status after the step
    closed: Segment | None  # the status the step's reveal closed
    private: dict[int, list[TurnPart]]  # each seat's private items, per turn the step touched
    bot_username: str


@dataclass
class Reminder:
    """A window's reminder to the seats that have not answered."""

    game_id: str
    meta: dict
    game: Game
    seats: list[int]
    window: int
    deadline: float
    readers: Readers


@dataclass
class Refresh:
    """After an accepted answer that did not close the window: who has answered now, and the seat's answer."""

    game_id: str
    snap: Snapshot
    game: Game
    meta: dict
    news: dict
    answers: dict[int, list[dict]]
    expected: set[int]
    seat: int
    readers: Readers
    bot_username: str

    @property
    def answered(self) -> set[int]:
        return set(self.answers) & self.expected

    @property
    def seq(self) -> int:
        return step_seq(self.snap.version) + len(self.answered)


@dataclass
class Unreachable:
    """A seat whose chat refuses our messages: the table is told how to fix it."""

    meta: dict
    seat: int
    readers: Readers
    bot_username: str


class Channel(Protocol):
    """A channel's words: the outgoing messages of a step, a reminder, a refresh after an answer and an
    unreachable seat's notice, for the chats of its kind. A message is ``{"chat", "text", "buttons", "seat",
    "group"}`` (+ ``"slot"``, ``"seq"`` for a living message)."""

    def step_messages(self, news: StepNews) -> list[dict]: ...

    def reminder_messages(self, reminder: Reminder) -> list[dict]: ...

    def refresh_messages(self, refresh: Refresh) -> list[dict]: ...

    def unreachable_messages(self, notice: Unreachable) -> list[dict]: ...


def step_seq(version: int) -> int:
    """The ``seq`` of a living message written by the step that created ``version``; a refresh after an answer
    adds the answers counted (fewer than 100), so every later step outranks it."""
    return version * 100


def status_slot(game_id: str, start: int) -> str:
    """The group's status message that started at the reveal of turn ``start`` (0: at the game's start)."""
    return f"{game_id}:s{start}"


def turn_slot(game_id: str, turn: int) -> str:
    """A seat's private message of one turn (the chat tells the seats apart)."""
    return f"{game_id}:p{turn}"


def message_since(told: dict, seat: int) -> int | None:
    """The earlier turn whose message the seat's message of the news' current turn goes on from, or None."""
    return told.get("since", {}).get(str(seat))


def seat_turn_slot(game_id: str, told: dict, seat: int) -> str:
    """The slot of the seat's message of the current turn of the news ``told``: that of an earlier turn when the
    message goes on from there (`carry_turn_ends`)."""
    since = message_since(told, seat)
    return turn_slot(game_id, told.get("turn", 0) if since is None else since)


def message(
    chat: str,
    text: str,
    seat: int | None,
    group: bool,
    buttons: list | None = None,
    slot: str | None = None,
    seq: int | None = None,
    limit: int = MAX_TEXT,
    news_lines: int | None = None,
    fold: bool = False,
    settle: float = 0.0,
    picture: dict | None = None,
) -> dict:
    """An outbox message (see `service.pipeline.outbox`). A living status message says how many of its first
    lines are news (``news_lines``); ``fold``: its last version, which the outbox may fold into the next message
    of its chat when the chat's send budget is short; ``settle``: the seconds the outbox holds back a version that
    asks its reader nothing (a tick, "locked in", results) in case a newer version soon replaces it;
    ``picture``: a board payload (`service.board.payload`) the message shows as a photo, ``text`` its caption."""
    out: dict = {"chat": chat, "text": text[:limit], "buttons": buttons, "seat": seat, "group": group}
    if slot:
        out.update(slot=slot, seq=seq)
    if news_lines is not None:
        out["news"] = news_lines
    if fold:
        out["fold"] = True
    if settle > 0 and slot:
        out["settle"] = settle
    if picture is not None:
        out["picture"] = picture
    return out


def newest_versions(messages: list[dict]) -> list[dict]:
    """One message per living message (chat and slot): the last of its versions, in the place of the first."""
    last = {(m["chat"], m["slot"]): m for m in messages if m.get("slot")}
    out, placed = [], set()
    for m in messages:
        if not m.get("slot"):
            out.append(m)
        elif (m["chat"], m["slot"]) not in placed:
            placed.add((m["chat"], m["slot"]))
            out.append(last[m["chat"], m["slot"]])
    return out


def merge_plain(messages: list[dict], limit: int = MAX_TEXT) -> list[dict]:
    """Plain messages (no buttons, no slot) to the same chat are joined, in order, into as few as fit."""
    out: list[dict] = []
    plain_at: dict[str, int] = {}
    for m in messages:
        key = m["chat"]
        if m.get("buttons") or m.get("slot") or key not in plain_at:
            if not m.get("buttons") and not m.get("slot"):
                plain_at[key] = len(out)
            out.append(dict(m))
            continue
        first = out[plain_at[key]]
        joined = f"{first['text']}\n{m['text']}"
        if len(joined) <= limit:
            first["text"] = joined
        else:
            plain_at[key] = len(out)
            out.append(dict(m))
    return out
