"""The one ingest API every channel calls: a player's answer for a window -> stored at once, or refused.

``submit`` validates the answer against the stored engine snapshot first (on a copy: an invalid answer changes
nothing), then records it with the atomic submit script. The single caller that completes the window enqueues
its resolution under a deterministic job id. The returned ``SubmitResult`` carries the reply for the player.

An answer is on the webhook's hot path, so it costs three Redis round trips: the snapshot read (skipped when
the channel has read it already), the submit script, and one pipeline with the answer counter and the status
refresh job.
"""

import logging
from dataclasses import dataclass
from enum import Enum

from service import commands
from service.game import Game, IllegalAction
from service.ops import metrics
from service.pipeline import scheduling
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


@dataclass(frozen=True)
class SubmitResult:
    status: Status
    waiting: int  # expected answers still missing (ACCEPTED only)
    text: str  # the reply to show the player


def submit(ctx: Context, game_id: str, seat: int, actions: list[dict], window_id: int,
           dedup_id: str | None = None, snap: Snapshot | None = None) -> SubmitResult:
    """Validate and store. ``snap``: the game's snapshot if the caller has just read it (the submit script
    checks the window, the status and the dedup id again, atomically, so a snapshot a moment old is safe)."""
    store = ctx.store
    if snap is None:
        snap, seen = store.load_with_dedup(game_id, dedup_id)
        if seen:
            return _refused("DUP")
    if snap is None:
        return _refused("NOGAME")
    if snap.status == "over":
        return SubmitResult(Status.CLOSED, 0, "This game is over.")
    if snap.window != window_id:
        return SubmitResult(Status.STALE, 0, f"That choice has expired: step {window_id} is over "
                                             f"(now at step {snap.window}).")
    if snap.status != "collecting":
        return _refused("CLOSED")
    problem = check_answer(Game.from_json(snap.json), seat, actions, window_id)
    if problem:
        return SubmitResult(Status.INVALID, 0, problem)

    status, missing = store.submit(game_id, window_id, seat, actions, dedup_id, ctx.clock())
    said = ", ".join(commands.describe(a) for a in actions)
    if status == "ACCEPTED":
        _after_accepted(ctx, game_id, window_id, seat)
        return SubmitResult(Status.ACCEPTED, missing, f"Locked in: {said} — waiting for {missing} more.")
    if status == "RESOLVE":
        metrics.answer_stored(store.redis)
        store.set_due(game_id, ctx.clock() + ctx.settings.resolve_grace_seconds)
        scheduling.resolve(ctx, game_id, window_id)
        return SubmitResult(Status.RESOLVE, 0, f"Locked in: {said} — everyone has answered.")
    return _refused(status)  # the window changed between our read and the script


def _after_accepted(ctx: Context, game_id: str, window_id: int, seat: int) -> None:
    """Count the answer and queue the status refresh that shows its tick, in one round trip. Both are cosmetic:
    the answer is stored already, so a failure here is logged, never the player's error."""
    pipe = ctx.store.redis.pipeline()  # RQ puts a caller's pipeline in MULTI mode before anything else is queued
    scheduling.refresh(ctx, game_id, window_id, seat, pipeline=pipe)
    metrics.answer_stored(pipe)
    try:
        pipe.execute()
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log.warning("answer to %s stored, but its count or status refresh was not: %s", game_id, exc)


REFUSALS = {  # submit script reply -> (status, reply)
    "DUP": (Status.DUP, "Already got that one."),
    "NOGAME": (Status.INVALID, "There is no such game."),
    "STALE": (Status.STALE, "That choice has expired: the step moved on."),
    "CLOSED": (Status.CLOSED, "Too late: this step is being resolved."),
}


def _refused(reason: str) -> SubmitResult:
    status, text = REFUSALS[reason]
    return SubmitResult(status, 0, text)


def check_answer(game: Game, seat: int, actions: list[dict], window_id: int) -> str | None:
    """Why ``actions`` is not a complete legal answer of ``seat`` in window ``window_id``, or None if it is."""
    if not actions:
        return "Nothing to record: send a move."
    asked = seat in game.waiting_for()
    for n, action in enumerate(actions):
        try:
            if (game.window is None or game.window["id"] != window_id) and action["type"] != "plan":
                return f"Too many moves: the step is complete after the first {n}."  # only plans may follow
            game.apply(seat, action)
        except IllegalAction as exc:
            return f"Not allowed: {exc}"
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:  # malformed action or seat
            return f"Not understood: {exc}"
    if asked and game.window is not None and game.window["id"] == window_id and seat in game.waiting_for():
        return "Not complete yet, you still need to answer:\n" + "\n".join(commands.summary(game, seat, "en"))
    return None
