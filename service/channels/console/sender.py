"""The terminal channel of the local sandbox: prints outgoing messages, labelled by chat."""

import sys
import threading
from typing import TextIO


class ConsoleSender:
    """A `service.pipeline.outbox.Sender` that writes ``[chat] text`` to a stream (stdout by default)."""

    def __init__(self, stream: TextIO | None = None, labels: dict[str, str] | None = None):
        self.stream = stream or sys.stdout
        self.labels = labels or {}
        self._lock = threading.Lock()

    def send(
        self, chat: str, text: str, buttons: list | None = None, slot: str | None = None, picture: dict | None = None
    ) -> None:
        """``text`` as lines (a picture is not drawn in a terminal: its caption, the text, says what it shows)."""
        label = self.labels.get(chat, chat)
        lines = text.splitlines() or [""]
        with self._lock:
            self.stream.write(f"[{label}] {lines[0]}\n")
            for line in lines[1:]:
                self.stream.write(f"{' ' * (len(label) + 3)}{line}\n")
            if buttons:
                labels = [
                    b["text"] if isinstance(b, dict) else str(b)
                    for row in buttons
                    for b in (row if isinstance(row, list) else [row])
                ]
                self.stream.write(f"{' ' * (len(label) + 3)}options: {' | '.join(labels)}\n")
            self.stream.flush()


def make(connection) -> ConsoleSender:
    """Sender factory (ARTEMIA_SENDER=console)."""
    return ConsoleSender()
