"""RQ job functions: the entry points the queues name. Arguments are plain ids (JSON serializer); each job is safe
to run twice.

Wiring only: each job takes the context of its connection (`service.wiring.current`) and calls the step that does
the work.
"""

from service.channels.telegram import boards, budget
from service.pipeline import absence, delivery, resolution, upkeep
from service.wiring import current


def resolve_ready(lease: int, token: str) -> dict[str, int]:
    return resolution.resolve_ready(current(), lease, token)


def resolve(game_id: str, window: int) -> str:
    """One window's resolution: the job that versions before ``resolve_ready`` queued per window (a deploy may
    find some waiting)."""
    return resolution.resolve_window(current(), game_id, window)


def deadline(game_id: str, window: int) -> str:
    return upkeep.fire_deadline(current(), game_id, window)


def remind(game_id: str, window: int, n: int) -> bool:
    return upkeep.remind(current(), game_id, window, n)


def deliver(game_id: str, *batches: str) -> list[str]:
    return delivery.deliver_batch(current(), game_id, *batches)


def drain(game_id: str, chat: str) -> list[str]:
    return delivery.drain(current(), game_id, chat)


def refresh(game_id: str, window: int) -> bool:
    return upkeep.refresh(current(), game_id, window)


def redraw(game_id: str, window: int) -> bool:
    return upkeep.redraw(current(), game_id, window)


def board(game_id: str, chat: str) -> str:
    return boards.send(current(), game_id, chat)


def reply(answer: dict, digest: str, attempt: int = 0) -> str:
    return budget.send_later(current(), answer, digest, attempt)


def sweep() -> dict[str, int]:
    return upkeep.sweep(current())


def end_pause(game_id: str, until: float) -> bool:
    return absence.resume(current(), game_id, until)


def came_back(game_id: str, seat: int) -> list[str]:
    return absence.answered_while_away(current(), game_id, seat)
