"""RQ job functions: the entry points the queues name. Arguments are plain ids (JSON serializer); each job is safe
to run twice.

Wiring only: each job takes the context of its connection (`service.wiring.current`) and calls the step that does
the work.
"""

from service.channels.telegram import jobs as telegram_jobs
from service.pipeline import resolution, upkeep
from service.wiring import current, job_connection


def resolve(game_id: str, window: int) -> str:
    return resolution.resolve_window(current(), game_id, window)


def deadline(game_id: str, window: int) -> str:
    return upkeep.fire_deadline(current(), game_id, window)


def remind(game_id: str, window: int, n: int) -> bool:
    return upkeep.remind(current(), game_id, window, n)


def deliver(game_id: str, batch: str) -> list[str]:
    return upkeep.deliver_batch(current(), game_id, batch)


def redeliver(message_id: str, attempt: int, failures: int) -> str:
    return upkeep.deliver(current(), message_id, attempt, failures)


def refresh(game_id: str, window: int, seat: int) -> bool:
    return upkeep.refresh(current(), game_id, window, seat)


def sweep() -> dict[str, int]:
    return upkeep.sweep(current())


def edit_screen(chat_id: int, message_id: int, text: str, keyboard: list | None, game_id: str, slot: str,
                version: int) -> str:
    """The next screen of a Telegram decision message after a button press."""
    return telegram_jobs.edit_message(job_connection(), chat_id, message_id, text, keyboard, game_id,
                                      slot, version)
