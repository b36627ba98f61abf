"""A sender for tests: records every send in a Redis list (with the time it was sent), so tests can read what
workers in other processes sent; it can also be told to fail for a chat (``test:fail:<chat>`` = "retry_after:<s>" |
"transient" | "crash" | "blocked")."""

import json
import time
from typing import Unpack

from service.pipeline.outbox import PermanentSendError, RetryAfter, Shown, TransientSendError

SENT_KEY = "test:sent"


class RecordingSender:
    def __init__(self, connection):
        self.redis = connection

    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None:
        slot, picture, template = extra.get("slot"), extra.get("picture"), extra.get("template")
        failure = self.redis.get(f"test:fail:{chat}")
        if failure:
            kind, _, arg = failure.decode().partition(":")
            if kind == "retry_after":
                self.redis.delete(f"test:fail:{chat}")
                raise RetryAfter(float(arg))
            if kind == "transient":
                raise TransientSendError("connection reset")
            if kind == "crash":  # what the job sees when Redis goes away mid-send, or a bug: the job fails
                raise RuntimeError("the delivery job died mid-batch")
            raise PermanentSendError("Forbidden: bot was blocked by the user")
        if picture is not None and picture.get("if_new"):  # as Telegram's sender: only on a message sent anew
            sent_before = slot is not None and self.redis.sismember(f"{SENT_KEY}:slots", f"{chat}|{slot}")
            picture = None if sent_before else {k: v for k, v in picture.items() if k != "if_new"}
        if slot is not None:
            self.redis.sadd(f"{SENT_KEY}:slots", f"{chat}|{slot}")
        self.redis.rpush(
            SENT_KEY,
            json.dumps(
                {
                    "chat": chat,
                    "text": text,
                    "buttons": buttons,
                    "at": time.time(),
                    **({"slot": slot} if slot else {}),
                    **({"picture": picture} if picture else {}),
                    **({"template": template} if template else {}),
                }
            ),
        )

    def sent(self, since: int = 0) -> list[dict]:
        """Every send recorded, in order; from the ``since``-th on."""
        return [json.loads(m) for m in self.redis.lrange(SENT_KEY, since, -1)]


def make(connection) -> RecordingSender:
    """Sender factory (ARTEMIA_SENDER=recording)."""
    return RecordingSender(connection)
