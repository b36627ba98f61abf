"""The outbox: delivering stored outgoing messages through a channel sender within the shared send budget.

Messages are written to Redis by the resolution step (``Store.commit``) or by a reminder before anything is
sent; this module sends one of them. A message is ``{"chat", "text", "buttons", "seat", "group"}`` and, for a
living message that later messages edit in place, ``"slot"`` and ``"seq"`` (or ``"until"``: a screen shown only until
the slot holds that seq, `service.pipeline.screens`); its id is ``<game>-<batch>-<index>``
(job-id safe). A slot message older (``seq``) than one already delivered to the same slot is skipped. A send is
claimed with ``SET sent NX`` (only while its batch is stored) so that two deliverers never send the same message
and a sent message is never sent again (still at-least-once if a process dies between the send and the mark).
Once every message of a batch is done, the batch is deleted: Redis holds only what is still to be sent. No game
transition waits on a send.
"""

from dataclasses import dataclass
from typing import Protocol

from service.config import Settings
from service.ops import metrics
from service.store import Store, keys


class Sender(Protocol):
    """``slot`` is passed only for messages that have one (a sender without living messages may ignore it)."""

    def send(self, chat: str, text: str, buttons: list | None = None, slot: str | None = None) -> None: ...


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
    status: str  # "sent" | "done" (nothing to do) | "wait" | "retry" | "failed" | "unreachable"
    delay: float = 0.0  # for "wait" / "retry": when to try again
    seat: int | None = None  # for "unreachable"
    detail: str = ""  # for "failed": why


# A claim and a slot lock outlive any one send (the Bot API client times out after 5 s) but not by much: a
# deliverer killed mid-send leaves them behind, and the message (or the slot: a seat's turn message) waits for
# them to expire before another deliverer takes over.
CLAIM_LEASE_SECONDS = 20
SLOT_LOCK_SECONDS = 15
SLOT_BUSY_WAIT = 0.2


def message_id(game_id: str, batch: str, index: int) -> str:
    return f"{game_id}-{batch}-{index}"


def parse_message_id(mid: str) -> tuple[str, str, int]:
    game_id, batch, index = mid.split("-")
    return game_id, batch, int(index)


def budget(message: dict, settings: Settings) -> tuple[float, float, float, float]:
    """(global rate/s, global burst, chat rate/s, chat burst) for this message's chat."""
    if message.get("group"):
        chat_rate, chat_cap = settings.rate_group_per_minute / 60.0, 3.0
    else:
        chat_rate, chat_cap = settings.rate_private_per_second, 1.0
    return settings.rate_global_per_second, max(1.0, settings.rate_global_per_second), chat_rate, chat_cap


def backoff(attempt: int) -> float:
    return float(min(300, 2**attempt))


def deliver(store: Store, sender: Sender, settings: Settings, mid: str, failures: int, now: float) -> Outcome:
    """Try to send one stored message once. The caller schedules the next attempt from the outcome."""
    game_id, batch, index = parse_message_id(mid)
    message = store.message(game_id, batch, index)
    if message is None or store.send_state(game_id, batch, index) in ("sent", "failed"):
        return Outcome("done")
    wait = store.take_send_token(message["chat"], now, *budget(message, settings))
    if wait > 0:
        return Outcome("wait", wait)
    if not store.claim_send(game_id, batch, index, CLAIM_LEASE_SECONDS):
        if store.send_state(game_id, batch, index) == "sending":  # held: look again once the claim expires,
            return Outcome("wait", _claim_left(store, game_id, batch, index))  # in case its holder died
        return Outcome("done")  # sent, given up, or its batch delivered
    slot = message.get("slot")
    if not slot:
        return _send(store, sender, settings, message, game_id, batch, index, failures, now)
    # A living message: one sender at a time per slot, and never an older version after a newer one.
    lock = keys.slot_lock(game_id, message["chat"], slot)
    if not store.redis.set(lock, 1, nx=True, ex=SLOT_LOCK_SECONDS):
        store.release_send(game_id, batch, index)
        return Outcome("wait", SLOT_BUSY_WAIT)
    try:
        if message.get("seq") is not None and not store.raise_slot_seq(
            game_id, message["chat"], slot, int(message["seq"])
        ):
            store.mark_sent(game_id, batch, index)
            return Outcome("done")  # superseded: a newer version of this living message is already out
        if message.get("until") is not None and store.slot_seq(game_id, message["chat"], slot) >= int(message["until"]):
            store.mark_sent(game_id, batch, index)
            return Outcome("done")  # a screen made moot: a later step's question is on the message
        return _send(store, sender, settings, message, game_id, batch, index, failures, now)
    finally:
        store.redis.delete(lock)


def _claim_left(store: Store, game_id: str, batch: str, index: int) -> float:
    return float(max(1, store.redis.ttl(keys.sent(game_id, batch, index)) + 1))


def _send(
    store: Store,
    sender: Sender,
    settings: Settings,
    message: dict,
    game_id: str,
    batch: str,
    index: int,
    failures: int,
    now: float,
) -> Outcome:
    try:
        if message.get("slot"):
            sender.send(message["chat"], message["text"], message.get("buttons"), slot=message["slot"])
        else:
            sender.send(message["chat"], message["text"], message.get("buttons"))
    except RetryAfter as exc:
        metrics.throttled(store.redis)
        store.release_send(game_id, batch, index)
        store.pause_sending(now, exc.seconds)
        return Outcome("wait", exc.seconds)
    except TransientSendError:
        if failures + 1 >= settings.send_max_attempts:
            store.mark_sent(game_id, batch, index, "failed")
            return Outcome("failed", detail="gave up after network errors")
        store.release_send(game_id, batch, index)
        return Outcome("retry", backoff(failures))
    except RejectedSendError as exc:
        store.mark_sent(game_id, batch, index, "failed")  # never try this one again; the chat is fine
        return Outcome("failed", detail=str(exc))
    except PermanentSendError:
        store.mark_sent(game_id, batch, index, "failed")  # never try this one again
        return Outcome("unreachable", seat=message.get("seat"))
    store.mark_sent(game_id, batch, index)
    return Outcome("sent")
