"""The one ingest API every channel calls: a player's answer for a window -> stored at once, or refused.

``submit`` validates the answer against the stored engine snapshot first (on a copy: an invalid answer changes
nothing), then records it with the atomic submit script. The single caller that completes the window enqueues
its resolution under a deterministic job id. The returned ``SubmitResult`` is data, never words: the status, how
many answers are still missing, the recorded actions, and for a refusal its reason code (`Reason`) and
parameters. Each channel words it in its player's language (`service.channels.plain.submitted`, the SMS
routing).

An answer is on the webhook's hot path, so it costs two Redis round trips: the snapshot read (skipped when
the channel has read it already) and the submit script, which also notes the status refresh that shows the answer
(plus the refresh job when none is pending, and then the meta when the channel has not read it). A web process
counts the answers it stores with its requests (`Context.counts`); any other process writes the count at once.
"""

import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from service.game import Game, IllegalAction
from service.ops import metrics
from service.pipeline import news, scheduling
from service.pipeline.context import Context
from service.store.games import Snapshot

log = logging.getLogger(__name__)


class Status(str, Enum):
    ACCEPTED = "ACCEPTED"  # stored; the window waits for others
    RESOLVE = "RESOLVE"  # stored, and it was the last expected answer: resolution enqueued
    DUP = "DUP"  # this dedup id was already recorded: nothing done
    STALE = "STALE"  # answers a window that is no longer the open one
    CLOSED = "CLOSED"  # the window is being resolved (or the game is over)
    INVALID = "INVALID"  # unknown game, wrong seat, or not a legal answer: nothing done


class Reason(str, Enum):
    """Why an answer was not stored; the parameters a channel may word are named in the comment."""

    DUP = "dup"  # already recorded
    NO_GAME = "no_game"  # there is no such game
    OVER = "over"  # the game is over
    EXPIRED = "expired"  # the answered window is over: ``window`` (answered), ``now`` (the open one)
    MOVED_ON = "moved_on"  # the window changed while the answer was being stored
    RESOLVING = "resolving"  # too late: the window is being resolved
    EMPTY = "empty"  # no action at all
    TOO_MANY = "too_many"  # the window was complete after the first ``n`` actions (only plans may follow)
    ILLEGAL = "illegal"  # the engine refused an action: ``action`` (the action), ``detail`` (the engine's words,
    # English, for logs: show the options instead)
    MALFORMED = "malformed"  # an action or seat the engine cannot read: ``detail`` (for logs)
    INCOMPLETE = "incomplete"  # legal so far, but the seat must still answer: ``game`` (the game as the answer
    # leaves it: its legal actions for the seat are what is missing)


@dataclass(frozen=True)
class Refusal:
    """Why an answer is not a complete legal answer (`check_answer`)."""

    reason: Reason
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SubmitResult:
    status: Status
    waiting: int = 0  # expected answers still missing (ACCEPTED only)
    actions: tuple[dict, ...] = ()  # what was recorded (ACCEPTED, RESOLVE)
    reason: Reason | None = None  # why nothing was recorded (any other status)
    params: dict[str, Any] = field(default_factory=dict)  # the reason's parameters (see `Reason`)

    @property
    def stored(self) -> bool:
        return self.status in (Status.ACCEPTED, Status.RESOLVE)


def submit(
    ctx: Context,
    game_id: str,
    seat: int,
    actions: list[dict],
    window_id: int,
    dedup_id: str | None = None,
    snap: Snapshot | None = None,
    by_bot: bool = False,
    meta: dict | None = None,
    typed: bool = False,
) -> SubmitResult:
    """Validate and store. ``snap``: the game's snapshot if the caller has just read it (the submit script
    checks the window, the status and the dedup id again, atomically, so a snapshot a moment old is safe);
    ``meta``: its meta, likewise (read only when the answer queues a status refresh, to tell whether one shows it).
    ``by_bot``: the bot answers for the seat's player, which, unlike their own answer, does not end their absence
    or streak. ``typed``: the player typed it in a chat of living messages (Telegram), so its reply comes below
    the turn message."""
    store = ctx.store
    if snap is None:
        snap, seen = store.load_with_dedup(game_id, dedup_id)
        if seen and store.recorded(game_id, dedup_id or ""):  # confirmed as the first delivery would have been
            requeue_if_resolving(ctx, game_id, window_id, snap)
            return _refused("DUP")
    if snap is None:
        return _refused("NOGAME")
    if snap.status == "over":
        return SubmitResult(Status.CLOSED, reason=Reason.OVER)
    if snap.window != window_id:
        return SubmitResult(Status.STALE, reason=Reason.EXPIRED, params={"window": window_id, "now": snap.window})
    if snap.status != "collecting":
        return _refused("CLOSED")
    game = Game.from_json(snap.json)
    problem = check_answer(game, seat, actions, window_id)
    if problem:
        return SubmitResult(Status.INVALID, reason=problem.reason, params=problem.params)

    now = ctx.clock()
    # A window whose last awaited answer comes while a seat's question ahead is open waits a moment for it
    # (`Settings.may_hold_seconds`; the submit script keeps which seats have one open)
    seconds = ctx.settings.may_hold_seconds
    hold = now + seconds if seconds > 0 else None
    status, missing, asked, back = store.submit(
        game_id,
        window_id,
        seat,
        actions,
        dedup_id,
        now,
        due=now + ctx.settings.resolve_grace_seconds,
        by_bot=by_bot,
        typed=typed,
        held=hold,
        ahead=not by_bot and leaves_question_ahead(game, seat),
    )
    if back:  # the table is told, and the player's other games end their absence too: a job, off this path
        scheduling.came_back(ctx, game_id, seat)
    if status in ("ACCEPTED", "HELD"):
        metrics.answer_stored(store.redis, counts=ctx.counts)
        if asked:
            _refresh(ctx, game_id, window_id, seat, meta)
        if status == "HELD" and hold is not None:  # (the first held sets the time: a later job finds it closed)
            scheduling.deadline(ctx, game_id, window_id, hold)
        return SubmitResult(Status.ACCEPTED, missing, tuple(actions))
    if status == "RESOLVE":
        metrics.answer_stored(store.redis, counts=ctx.counts)
        scheduling.resolve(ctx, game_id, window_id)
        return SubmitResult(Status.RESOLVE, 0, tuple(actions))
    if status in ("DUP", "CLOSED"):
        requeue_if_resolving(ctx, game_id, window_id, store.load(game_id))
    return _refused(status)  # the window changed between our read and the script


def leaves_question_ahead(game: Game, seat: int) -> bool:
    """Whether ``game`` (the seat's answer applied) asks the seat a question ahead that nothing waits for (how it
    will use the place it chose, `rules/ahead.py`)."""
    return seat in game.may_answer() and any(action["type"] == "ahead" for action in game.legal_actions(seat))


def requeue_if_resolving(ctx: Context, game_id: str, window_id: int, snap: Snapshot | None) -> None:
    """A repeated answer (its dedup id recorded already) to a window that is resolving: the first delivery may
    have closed the window and then failed before its resolution was queued (killed, or Redis failing over; the
    sender retries after a 5xx). Note it as ready again (a no-op while it waits) and queue a resolving job if a
    lease is free, rather than leave it to the sweeper's grace period."""
    if snap is not None and snap.window == window_id and snap.status == "resolving":
        scheduling.resolve(ctx, game_id, window_id)


def _refresh(ctx: Context, game_id: str, window_id: int, seat: int, meta: dict | None) -> None:
    """An accepted answer asked for the status refresh that shows its tick (none was pending: `Store.submit`):
    queue the refresh job (one per game at a time, however fast the answers come), but only when a living message
    shows the answer (`news.refreshable`; ``meta``: the game's, read here when None). Cosmetic: the answer is
    stored already, so a failure here is logged, never the player's error."""
    try:
        if not news.refreshable(ctx.store.meta(game_id) if meta is None else meta, seat):
            ctx.store.drop_refresh(game_id)
        else:
            scheduling.refresh(ctx, game_id, window_id)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log.warning("answer to %s stored, but its status refresh was not: %s", game_id, exc)


REFUSALS = {  # submit script reply -> (status, reason)
    "DUP": (Status.DUP, Reason.DUP),
    "NOGAME": (Status.INVALID, Reason.NO_GAME),
    "STALE": (Status.STALE, Reason.MOVED_ON),
    "CLOSED": (Status.CLOSED, Reason.RESOLVING),
}


def _refused(reply: str) -> SubmitResult:
    status, reason = REFUSALS[reply]
    return SubmitResult(status, reason=reason)


def check_answer(game: Game, seat: int, actions: list[dict], window_id: int) -> Refusal | None:
    """Why ``actions`` is not a complete legal answer of ``seat`` in window ``window_id``, or None if it is.
    ``game`` is changed (pass a copy)."""
    if not actions:
        return Refusal(Reason.EMPTY)
    asked = seat in game.waiting_for()
    for n, action in enumerate(actions):
        try:
            if (game.window is None or game.window["id"] != window_id) and action["type"] not in ("plan", "ahead"):
                return Refusal(Reason.TOO_MANY, {"n": n})  # only answers ahead may follow
            game.apply(seat, action)
        except IllegalAction as exc:
            return Refusal(Reason.ILLEGAL, {"action": action, "detail": str(exc)})
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:  # malformed action or seat
            return Refusal(Reason.MALFORMED, {"detail": f"{type(exc).__name__}: {exc}"})
    if asked and game.window is not None and game.window["id"] == window_id and seat in game.waiting_for():
        return Refusal(Reason.INCOMPLETE, {"game": game})
    return None
