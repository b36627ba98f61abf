"""The outbox: delivering stored outgoing messages through a channel sender, in order per chat, within the shared
send budget.

Messages are written to Redis by the resolution step (``Store.commit``), a reminder, a refresh or a screen before
anything is sent; the same script queues each on its chat's **lane** (``{g:G}:lane:<chat>``), so a chat's lane
holds its messages in the order they were written. A message is ``{"chat", "text", "buttons", "seat", "group"}``
and, for a living message that later messages edit in place, ``"slot"`` and ``"seq"`` (or ``"until"``: a screen
shown only until the slot holds that seq, `service.pipeline.screens`).

`drain` sends a lane's messages one by one from its head, one deliverer per lane at a time (a lock with a lease),
so a chat gets its messages in order whatever waits: the budget, a 429 (every send pauses), a 5xx (the head is
retried with backoff and nothing behind it overtakes it). Before a message costs a send token it is skipped
when nothing a reader sees would change:

* a version of a living message with a newer version of the same slot waiting behind it on the lane (a screen is
  replaced only by a later screen or step; a step's version only by one at least as new);
* a version older (``seq``) than one already delivered to the slot, or a screen made moot by a later question;
* a version whose text and buttons are those the slot already shows (digest in ``{g:G}:shown``).

A version that asks its reader nothing (the group's tick after an answer, a seat's "locked in", a seat's results
with no question under them) is **held** for its ``settle`` seconds (set by its writer from the settings
``tick_settle_seconds``, ``edit_settle_seconds``) when nothing is queued behind it: a newer version of its message
arriving meanwhile replaces it (one edit instead of two), and waits only for the rest of that hold if it asks
nothing either (a stream of versions seconds apart shows one every hold); anything else queued behind it sends it
at once, so a hold never delays another message. Questions are never held. An SMS that only tells news
(``hold_until``) waits, in the same place, to ride on the number's next SMS (`hold`).

A message is marked sent (or failed) once done, in the round trip that takes it off its lane and reads what is
left there; when every message of its batch is, the batch is deleted: Redis holds only what is still to be sent.
At-least-once if a process dies between the send and the mark; a deliverer killed mid-send holds the lane for at
most the lease. No game transition waits on a send.
"""

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol, TypedDict, Unpack, cast

from service.config import Settings
from service.ops import metrics
from service.pipeline.chats import budget_chat
from service.pipeline.news import MAX_TEXT
from service.store import HeadState, LaneEntry, Store


class Shown(TypedDict, total=False):
    """What a message shows beside its text and buttons, passed to a sender only where the message has it (a
    sender without living messages, pictures or WhatsApp's templates ignores them)."""

    slot: str  # a living message's (Telegram edits it in place)
    picture: dict  # a board payload (`service.board.payload`) shown as a photo, the text its caption
    template: dict  # the approved template WhatsApp sends instead outside a player's 24-hour window


class Sender(Protocol):
    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None: ...


class RetryAfter(Exception):
    """The channel asked us to wait (Telegram 429)."""

    def __init__(self, seconds: float):
        super().__init__(f"retry after {seconds}s")
        self.seconds = seconds


class TransientSendError(Exception):
    """A network error or a 5xx: worth retrying with backoff."""


class PermanentSendError(Exception):
    """The recipient cannot be reached (blocked the bot, opted out): do not retry; its seat goes to a bot."""


class RejectedSendError(Exception):
    """The channel refused this one message for good (a 400 that is not "blocked"): do not retry it, but the
    recipient is still reachable."""


@dataclass(frozen=True)
class Outcome:
    # "sent" | "done" (nothing to do) | "superseded" | "unchanged" | "folded" | "failed" | "unreachable" — the head
    # is done;
    # "wait" | "retry" | "held" (after ``delay``) — the head stays; "busy" — another deliverer holds the lane
    status: str
    delay: float = 0.0
    seat: int | None = None  # for "unreachable"
    detail: str = ""  # for "failed": why
    # what the deliverer records as it drops a head that is done (`Store.drop_from_lane`): its state, unless it
    # was marked already, and what its living message shows now (slot, digest, news lines) when it was sent
    mark: str | None = None
    shown: tuple[str, str, int | None] | None = None
    seq: tuple[str, int] | None = None  # (slot, seq): the newest version its living message has been given
    first: bool = False  # for "wait": a message that goes first (a seat's question, or what is ahead of one)


@dataclass
class Drained:
    outcomes: list[Outcome] = field(default_factory=list)
    again: float | None = None  # drain this lane again in that many seconds (None: it is empty)


# A lane's lock outlives any one send (the Bot API client times out after 5 s) but not by much: a deliverer killed
# mid-send leaves it behind, and the lane waits for it to expire. A drain sleeps through short waits (a private
# chat's 1 s) and hands over to a job of its own after DRAIN_SECONDS, so one busy chat never holds a worker long.
LANE_LEASE_SECONDS = 20
LANE_LEASE_MS = LANE_LEASE_SECONDS * 1000
LEASE_RENEWAL_SECONDS = 1.0
SHORT_WAIT = 1.0
DRAIN_SECONDS = 5.0
MIN_SLEEP = 0.01
MAX_FOLDED_LINES = 80  # the most news lines a status message keeps with lines folded into it (the newest)
FOLD_ROOM = 2000  # a fold leaves a message at most this long, so that its later versions still fit
FOLD_ROOM_PICTURE = 900  # the same for a photo's caption, which holds 1024 UTF-16 units (Telegram's limit)
_SENDS = {"mean": 0.0}  # this process's moving mean of a send's seconds (`send_seconds`)


def _note_send(seconds: float) -> None:
    _SENDS["mean"] += 0.1 * (seconds - _SENDS["mean"])


def send_seconds() -> float:
    """How long a send of this process has taken lately (a moving mean over about the last ten): a round trip to
    Telegram's servers, or next to nothing for a local sender."""
    return _SENDS["mean"]


DONE = ("sent", "done", "superseded", "unchanged", "folded", "failed", "unreachable")


def budget(message: dict, settings: Settings) -> tuple[float, float, float, float]:
    """(global rate/s, global burst, chat rate/s, chat burst) for this message's chat."""
    if message.get("group"):
        # a bucket of the burst refilled at the rest of the limit never lets more than the limit through in any
        # minute (Telegram counts a group's messages per minute, not per bucket)
        chat_cap = settings.rate_group_burst
        chat_rate = max(settings.rate_group_per_minute - chat_cap, 1.0) / 60.0
    else:
        chat_rate, chat_cap = settings.rate_private_per_second, settings.rate_private_burst
    # Telegram counts about 30 a second over any second: a bucket holding a whole second's worth let twice that
    # through in the first second of a burst (429s, bench/due.py). It holds ``rate_global_burst`` now, or what
    # refills within the shortest sleep when that is more (an unlimited budget: racing threads never wait).
    global_rate = settings.rate_global_per_second
    return global_rate, max(1.0, settings.rate_global_burst, global_rate * MIN_SLEEP), chat_rate, chat_cap


def throttled(store: Store, settings: Settings, chat: str, now: float, seconds: float) -> None:
    """The channel answered a send to ``chat`` 429, "retry after ``seconds``": that chat's sends wait (a forum
    topic's whole group: they share a budget), every other chat's go on — unless 429s come from several chats at
    once (`Settings.throttle_global_chats`), which is the bot's overall limit: then every send waits."""
    metrics.throttled(store.redis)
    window, chats = settings.throttle_global_window_seconds, settings.throttle_global_chats
    store.throttled(budget_chat(chat), now, seconds, window, chats)


def backoff(attempt: int) -> float:
    return float(min(300, 2**attempt))


def digest(message: dict) -> str:
    """What a reader of a living message sees: its text and buttons, and the state its picture shows."""
    picture = message.get("picture") or {}
    shows = [picture.get(k) for k in ("view", "names", "lang")] if picture else None
    raw = json.dumps([message["text"], message.get("buttons"), shows], sort_keys=True).encode()
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


def superseded(head: LaneEntry, behind: list[LaneEntry]) -> bool:
    """A newer version of the head's living message waits behind it: a screen (no seq) is replaced by any later
    version of its slot; a step's or refresh's version by a later one at least as new (never by a screen, which
    was drawn for the question before it)."""
    if not head.slot:
        return False
    for later in behind:
        if later.slot != head.slot:
            continue
        if later.seq is None:
            if head.seq is None:
                return True
        elif head.seq is None or later.seq >= head.seq:
            return True
    return False


def drain(
    store: Store,
    sender: Sender,
    settings: Settings,
    game_id: str,
    chat: str,
    clock: Callable[[], float],
    sleep: Callable[[float], object],
    patience: float = DRAIN_SECONDS,
    asking_only: bool = False,
) -> Drained:
    """Send the lane of ``chat`` from its head until it is empty or must wait. -> what was done, and when to
    drain it again. A lane held by another deliverer is left to it (it looks again after releasing, so a message
    queued meanwhile is not stranded); ``again`` is then its lease, in case that deliverer died. A wait of at most
    ``SHORT_WAIT`` (a private chat's 1 s) is slept through while the drain has run less than ``patience`` seconds;
    a resolving worker delivering its own step sleeps only through a wait for the shared budget's next tokens
    (`delivery.INLINE_PATIENCE_SECONDS`), and only for a message that goes first (``asking_only``: a message that
    asks nothing and waits — while questions go first, through the whole burst — is left to its delivery job at
    once, so the job's threads and its steps' slots are there for questions); with ``patience=0`` nothing is
    slept."""
    drained, started = Drained(), clock()
    for _ in range(3):  # a message queued just as the lane was released: take the lane again
        token = secrets.token_hex(8)
        lane, left = store.take_lane(game_id, chat, token, LANE_LEASE_MS)
        if lane is None:
            drained.outcomes.append(Outcome("busy"))
            drained.again = max(1.0, left / 1000.0)
            return drained
        emptied, length = False, None
        try:
            held = (started, drained, token, lane, patience, asking_only)
            emptied, length = _drain_held(store, sender, settings, game_id, chat, clock, sleep, *held)
        finally:
            if length is None:  # (not given back with the lane's last message)
                length = store.release_lane(game_id, chat, token)
        if not emptied or not length:
            return drained
    drained.again = 0.0
    return drained


def _drain_held(
    store, sender, settings, game_id, chat, clock, sleep, started, drained, token, lane, patience, asking_only
) -> tuple[bool, int | None]:
    """The loop of `drain` while holding the lane (``lane``: as it was read when taken). -> (whether the lane was
    emptied, the lane's length when the lease went back with its last message, else None: still held). The
    lease goes back in the round trip that drops the last message the drain knows of; a message queued
    meanwhile is in the length, and `drain` takes the lane again for it. The lease is renewed before a message
    once a second has passed since it was last renewed: a send that starts then still has the rest of the lease
    (``LANE_LEASE_SECONDS``), and a burst of messages costs no renewals. A lease found lost (a send slower than
    it: another deliverer may hold the lane now) ends the drain, to look again in a second. The state of the
    next head is read in the round trip that drops the one before."""
    renewed, read = clock(), None
    while True:
        if not lane:
            return True, None
        outcome = _head(store, sender, settings, game_id, chat, lane[0], lane[1:], clock(), read)
        short = outcome.status == "wait" and outcome.delay <= SHORT_WAIT and (outcome.first or not asking_only)
        if short and clock() - started + outcome.delay <= patience:
            sleep(max(outcome.delay, MIN_SLEEP))  # a wait of 1e-12 s would not move the clock
            if not store.renew_lane(game_id, chat, token, LANE_LEASE_MS):
                return _lost(drained)
            renewed, read = clock(), None
            lane = store.lane(game_id, chat)
            continue
        drained.outcomes.append(outcome)
        if outcome.status not in DONE:
            drained.again = outcome.delay
            return False, None
        # (a lane only grows at its tail, and only its holder takes entries off: the next head is lane[1])
        then = lane[1] if len(lane) > 1 and not superseded(lane[1], lane[2:]) else None
        release = token if len(lane) == 1 else None
        replaced = outcome.status == "superseded"
        lane, state = store.drop_from_lane(
            game_id, chat, lane[0], outcome.mark, outcome.shown, outcome.seq, then, release, replaced
        )
        if release is not None:
            return True, len(lane)
        read = (then, state) if then is not None and state is not None else None
        if clock() - started > DRAIN_SECONDS:
            drained.again = 0.0  # hand over: a job of its own goes on
            return False, None
        if clock() - renewed > LEASE_RENEWAL_SECONDS:
            if not store.renew_lane(game_id, chat, token, LANE_LEASE_MS):
                return _lost(drained)
            renewed = clock()


def _lost(drained: Drained) -> tuple[bool, None]:
    """The lease ran out under the drain: the lane is left to whoever holds it now, and looked at again soon."""
    drained.outcomes.append(Outcome("busy"))
    drained.again = 1.0
    return False, None


def _head(
    store: Store,
    sender: Sender,
    settings: Settings,
    game_id: str,
    chat: str,
    head: LaneEntry,
    behind: list[LaneEntry],
    now: float,
    prefetched: tuple[LaneEntry, HeadState] | None = None,
) -> Outcome:
    """Send (or skip) the head of a lane once; every skip comes before the send token. A head that is done is
    marked by the deliverer as it drops it (the outcome's ``mark``, and ``seq`` raised), in the same round trip.
    ``prefetched``: the head's state as the drop of the head before it read it."""
    if superseded(head, behind):  # the lane alone tells: nothing of the head is read
        return Outcome("superseded", mark="sent")
    if prefetched is not None and prefetched[0] == head:
        read = prefetched[1]
    else:
        read = store.head_state(game_id, chat, head)
    if read.message is None or read.state in ("sent", "failed"):
        return Outcome("done")
    message = prefixed(read.message, read.prefix)
    slot = message.get("slot")
    seq = (slot, int(message["seq"])) if slot and message.get("seq") is not None else None
    if slot and message.get("until") is not None and read.slot_seq >= int(message["until"]):
        return Outcome("superseded", mark="sent")  # a screen made moot: a later step's question is on the message
    if slot and message.get("seq") is not None and read.slot_seq > int(message["seq"]):
        return Outcome("superseded", mark="sent")  # older than what the slot shows already
    if slot and read.shown == digest(message):
        return Outcome("unchanged", mark="sent", seq=seq)
    if message.get("hold_until") is not None:
        held = hold(store, game_id, chat, message, head, behind, now)
        if held is not None:
            return held
    failures, not_before = read.failures
    settling = failures == 0 and not_before > 0  # (a settling version is recorded as a wait with no failure)
    settle = float(message.get("settle") or 0)
    if settle > 0 and not settling and not behind:
        # a version that replaced a held one waits only for the rest of that hold: a steady stream of versions
        # (answers seconds apart) shows one every hold, not none until it stops
        until = min(read.slot_hold, now + settle) if read.slot_hold else now + settle
        if until > now:
            store.set_lane_failures(game_id, chat, head, 0, until)
            return Outcome("held", until - now)
    if not_before > now and not (settling and behind):  # it goes at once when something queues behind it
        return Outcome("retry", not_before - now)
    prepare = getattr(sender, "prepare", None)  # (only the channels' composite sender has it: `wiring`)
    if prepare is not None and message.get("picture") is not None:
        # drawn before the token is taken: a drawing between the token and the call bunched calls past the rate
        prepare(message["chat"], message["picture"], slot)
    # a seat's questions go first when the budget is short, and what its lane holds before them (a "time ran
    # out" edit ahead of the next question must not wait behind every status); what asks nothing waits for them
    first = not message.get("group") and (asks(message) or bool(behind))
    wait = store.take_send_token(budget_chat(message["chat"]), now, *budget(message, settings), first=first)
    if wait > 0:
        # longer than the global budget's own pace: the chat's budget (a group's 20 a minute) or a 429 holds it
        if wait > 1.0 / settings.rate_global_per_second and fold(store, game_id, chat, message, head, behind):
            return Outcome("folded")
        return Outcome("wait", wait, first=first)
    outcome = _send(store, sender, settings, message, game_id, chat, head, failures, now)
    if outcome.status in DONE:
        outcome = replace(outcome, seq=seq)  # tried for good: no older version of it is shown after it
    return outcome


def asks(message: dict) -> bool:
    """Whether a message asks its reader something: it has a decision button (data ``d:…``, `service.channels.ui`)."""
    rows = message.get("buttons") or []
    return any(
        isinstance(b, dict) and str(b.get("data") or "").startswith("d:")
        for row in rows
        if isinstance(row, list)
        for b in row
    )


def fold(store: Store, game_id: str, chat: str, message: dict, head: LaneEntry, behind: list[LaneEntry]) -> bool:
    """A closed status message (``fold``) that must wait for its chat's budget, with the next status message of
    its step right behind it: the news lines it would add to what its message shows are kept as that next
    message's prefix (every version of it is sent with them on top, `with_prefix`), and it is not sent — one
    send instead of an edit and a send, when the chat is short of budget (a group gets 20 a minute). The older
    message keeps what it showed until the game's last step, which sends its closed version (`Store.unclosed`):
    no status message of a finished game says it still waits. -> whether it was folded. The prefix records which
    message it took, so a deliverer killed between the two writes does not add the lines twice."""
    if not message.get("fold") or not behind or behind[0].batch != head.batch:
        return False
    nxt = store.message(game_id, head.batch, behind[0].index)
    if nxt is None or not nxt.get("slot") or nxt["slot"] == message["slot"] or nxt.get("news") is None:
        return False
    shown = store.shown_news_lines(game_id, chat, message["slot"])
    tail = message["text"].split("\n")[shown : message.get("news", 0)]
    prefix = store.prefix(game_id, chat, nxt["slot"])
    room = FOLD_ROOM_PICTURE if nxt.get("picture") else FOLD_ROOM
    if len("\n".join(prefix + tail + [nxt["text"]]).encode("utf-16-le")) // 2 > room:
        return False  # the next message would have no room left to grow: the edit is worth its call
    store.add_prefix(game_id, chat, nxt["slot"], f"{head.batch}:{head.index}", tail)
    # its chat still shows it waiting ("⏳ Anna"): the game's last step sends this version after all
    original = store.message(game_id, head.batch, head.index)
    if original is not None:
        store.note_unclosed(game_id, chat, message["slot"], {k: v for k, v in original.items() if k != "fold"})
    store.mark_sent(game_id, head.batch, head.index)
    return True


def hold(
    store: Store, game_id: str, chat: str, message: dict, head: LaneEntry, behind: list[LaneEntry], now: float
) -> Outcome | None:
    """A held message (``hold_until``: an SMS that only tells news and asks nothing) is not sent on its own while
    it may ride on the chat's next message: with a message behind it that has room (`fold_into`) it goes into
    that message and is not sent ("folded"); with nothing behind it, it waits until ``hold_until`` (the deadline
    of the window open when it was written) and then goes alone; with a message behind it that has no room, it
    goes alone at once. A ``keep`` marker behind it (its number gets nothing at the next step) gives it the
    marker's time limit, the next window's deadline, once: so news is never later than the deadline of the
    window after the one it was written in. A marker with nothing held before it is dropped. One marked
    ``fold_only`` (an SMS player's "OK: play 3." when the number did not ask for confirmations) is dropped
    instead of going alone, and rides only on a message that is sent. -> the outcome, or None: send it now. The
    folded message records its source, so a deliverer killed between the two writes does not fold it twice."""
    if message.get("keep"):
        store.mark_sent(game_id, head.batch, head.index)
        return Outcome("superseded")  # a marker: it only moves the time limit of a held message before it
    if not behind and now < message["hold_until"]:
        return Outcome("wait", message["hold_until"] - now)
    nxt = store.message(game_id, behind[0].batch, behind[0].index) if behind else None
    if nxt is not None and nxt.get("fold_only") and not message.get("fold_only"):
        # news, then an "OK: …": the OK is dropped (the news says the game went on), so that it never makes the
        # news too long for the message after them
        store.mark_sent(game_id, behind[0].batch, behind[0].index)
        return hold(store, game_id, chat, message, head, behind[1:], now)
    source = f"{head.batch}:{head.index}"
    if nxt is None or source not in nxt.get("folded", []):
        merged = fold_into(message, nxt, source) if nxt is not None else None
        if merged is None and message.get("fold_only"):
            store.mark_sent(game_id, head.batch, head.index)
            return Outcome("superseded")  # a confirmation with no message to ride on: the game going on says it
        if merged is None:
            return None
        store.replace_message(game_id, behind[0].batch, behind[0].index, merged)
    store.mark_sent(game_id, head.batch, head.index)
    return Outcome("folded")


def fold_into(held: dict, nxt: dict, source: str = "") -> dict | None:
    """``nxt`` with the held message's text (``fold_text``, ``fold_size`` units) put in at its fold point
    (``fold_at``: after the part it must start with, before its own news; ``fold_sep`` between, a space by
    default), if that fits in the room its segments have left (``fold_room``, units) and does not change its
    encoding (``fold_gsm``); None when not.
    The channel (`service.channels.sms.render`) sets these fields. Behind a ``keep`` marker: the held message
    itself with the marker's time limit, unless it had one extra window already."""
    if held.get("fold_only") and nxt.get("hold_until") is not None:
        return None  # an "OK: …" rides only on a message that is sent: news held in turn says the game went on
    if nxt.get("keep"):  # nothing to ride on: the held message waits for the marker's time limit instead, once
        if held.get("extended"):
            return None
        return {**held, "hold_until": nxt["hold_until"], "extended": True, "folded": [*held.get("folded", []), source]}
    sep = nxt.get("fold_sep", " ")
    if nxt.get("fold_at") is None or held["fold_size"] + len(sep) > nxt.get("fold_room", 0):
        return None
    if nxt.get("fold_gsm") and not held.get("fold_gsm"):
        return None  # GSM-7 text made UCS-2 would cost more segments
    at, text = nxt["fold_at"], nxt["text"]
    merged = {
        **nxt,
        "text": f"{text[:at]}{sep}{held['fold_text']}{text[at:]}",
        "fold_room": nxt["fold_room"] - held["fold_size"] - len(sep),
        "folded": [*nxt.get("folded", []), source],
    }
    if held.get("picture"):  # the board shows the latest state, and is shown when either message would show it
        later = nxt.get("picture") or held["picture"]
        merged["picture"] = {**later, "reveal": bool(later.get("reveal") or held["picture"].get("reveal"))}
    if "fold_text" in nxt:  # a held message itself: it carries both on
        merged["fold_text"] = f"{held['fold_text']}{sep}{nxt['fold_text']}"
        merged["fold_size"] = held["fold_size"] + len(sep) + nxt["fold_size"]
        merged["fold_gsm"] = held.get("fold_gsm", False) and nxt.get("fold_gsm", False)
    return merged


def with_prefix(store: Store, game_id: str, chat: str, message: dict) -> dict:
    """A status message as it is sent: the lines folded into its slot (`fold`) on top of its own news lines."""
    return prefixed(message, store.prefix(game_id, chat, message["slot"]) if message.get("slot") else [])


def prefixed(message: dict, prefix: list[str]) -> dict:
    """``message`` with ``prefix``, the lines folded into its slot, on top of its own news lines (a status)."""
    if not prefix or "news" not in message:
        return message
    own = message["text"].split("\n")[: message["news"]]
    body = message["text"].split("\n")[message["news"] :]
    lines = (prefix + own)[-MAX_FOLDED_LINES:]
    body = body if own else ["", *body]
    while len(lines) > 1 and len("\n".join(lines + body)) > MAX_TEXT:
        lines = lines[1:]  # the oldest first
    return {**message, "text": "\n".join(lines + body), "news": len(lines)}


def _send(
    store: Store,
    sender: Sender,
    settings: Settings,
    message: dict,
    game_id: str,
    chat: str,
    head: LaneEntry,
    failures: int,
    now: float,
) -> Outcome:
    try:
        # only where it has them (a template: what WhatsApp may send instead outside a player's 24-hour window)
        living = cast(Shown, {key: message[key] for key in ("slot", "picture", "template") if message.get(key)})
        with metrics.stage("send", before="outbox"):
            started = time.perf_counter()
            sender.send(message["chat"], message["text"], message.get("buttons"), **living)
            _note_send(time.perf_counter() - started)
    except RetryAfter as exc:
        throttled(store, settings, message["chat"], now, exc.seconds)
        return Outcome("wait", exc.seconds)
    except TransientSendError:
        if failures + 1 >= settings.send_max_attempts:
            return Outcome("failed", detail="gave up after network errors", mark="failed")
        store.set_lane_failures(game_id, chat, head, failures + 1, now + backoff(failures))
        return Outcome("retry", backoff(failures))
    except RejectedSendError as exc:  # never try this one again; the chat is fine
        return Outcome("failed", detail=str(exc), mark="failed")
    except PermanentSendError:  # never try this one again
        return Outcome("unreachable", seat=message.get("seat"), mark="failed")
    shown = (message["slot"], digest(message), message.get("news")) if message.get("slot") else None
    return Outcome("sent", mark="sent", shown=shown)
