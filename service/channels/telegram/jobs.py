"""Editing a decision screen after a button press (run by the RQ job ``workers.jobs.edit_screen``; safe to run
twice).

``edit_message`` shows the next screen of a decision message after a button press (the webhook answered the
button itself in its HTTP reply). The pressed message is the seat's turn message, a living message that the
outbox also edits: the job holds the slot's lock and skips the edit when a newer step's version (the next
window's question) is already on screen, so a late screen never hides a question. A message that is gone is
sent anew; a short flood wait is slept through (it is one private chat's screen, seconds old); a network error
fails the job so RQ's retry takes it again.
"""

import time

import redis

from service.channels.telegram import sender as telegram_send
from service.pipeline.news import step_seq
from service.pipeline.outbox import SLOT_LOCK_SECONDS
from service.store import keys

MAX_WAIT = 5.0  # a longer flood wait gives the screen up: the slot lock must not outlive the edit
LOCK_TRIES, LOCK_WAIT = 50, 0.1


def edit_message(connection: redis.Redis, chat_id: int, message_id: int, text: str, keyboard: list | None,
                 game_id: str, slot: str, version: int) -> str:
    """Edit unless a step after ``version`` has been delivered to the slot. -> the send's status, "superseded"
    or "busy" (the slot stayed locked: the outbox is writing a newer version)."""
    lock = keys.slot_lock(game_id, str(chat_id), slot)
    for _ in range(LOCK_TRIES):
        if connection.set(lock, 1, nx=True, ex=SLOT_LOCK_SECONDS):
            break
        time.sleep(LOCK_WAIT)
    else:
        return "busy"
    try:
        shown = int(connection.hget(keys.slot_seqs(game_id), f"{chat_id}|{slot}") or -1)
        if shown >= step_seq(version + 1):  # a later step is on screen
            return "superseded"
        return _edit(chat_id, message_id, text, keyboard)
    finally:
        connection.delete(lock)


def _edit(chat_id: int, message_id: int, text: str, keyboard: list | None) -> str:
    for _ in range(3):
        result = telegram_send.edit(chat_id, message_id, text, keyboard)
        if result.status == "edit_target_missing":
            result = telegram_send.send(chat_id, text, keyboard)
        if result.status == "retry_after" and result.retry_after <= MAX_WAIT:
            time.sleep(result.retry_after)
            continue
        if result.status == "network":
            raise ConnectionError(result.detail)
        return result.status
    return "gave_up"
