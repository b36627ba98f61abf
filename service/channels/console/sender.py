"""The terminal channel of the local sandbox: prints outgoing messages, labelled by chat, their buttons as numbered
choices; it remembers each chat's last choices, so that a number typed there presses that button."""

import sys
import threading
from typing import TextIO, Unpack

from service.pipeline.outbox import Shown


class ConsoleSender:
    """A `service.pipeline.outbox.Sender` that writes ``[chat] text`` to a stream (stdout by default)."""

    def __init__(self, stream: TextIO | None = None, labels: dict[str, str] | None = None):
        self.stream = stream or sys.stdout
        self.labels = labels or {}
        self.choices: dict[str, list[str]] = {}  # chat -> the data of its last numbered buttons, 1 first
        self._lock = threading.Lock()

    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None:
        """``text`` as lines (a picture is not drawn in a terminal: its caption, the text, says what it shows)."""
        label = self.labels.get(chat, chat)
        self._write(chat, f"\n[{label}] ", " " * (len(label) + 3), text, buttons)  # a blank line between messages

    def reply(self, chat: str, text: str, buttons: list | None = None) -> None:
        """The answer to a line typed in ``chat``, under it: "  -> …"."""
        self._write(chat, "  -> ", "     ", text, buttons)

    def _write(self, chat: str, first: str, indent: str, text: str, buttons: list | None) -> None:
        lines = [(first if not i else indent) + line for i, line in enumerate(text.splitlines() or [""])]
        with self._lock:
            if buttons:
                numbered, self.choices[chat] = numbered_choices(buttons)
                lines += [indent + row for row in numbered]
            self.stream.write("\n".join(lines) + "\n")
            self.stream.flush()


def numbered_choices(keyboard: list) -> tuple[list[str], list[str]]:
    """A keyboard's rows as lines of numbered choices ("1) 1 Lair   2) 2 Jungle"), and the data each number
    presses. A link button shows its address instead of a number."""
    lines, data = [], []
    for row in keyboard:
        cells = []
        for button in row if isinstance(row, list) else [row]:
            if "url" in button:
                cells.append(f"{button['text']}: {button['url']}")
                continue
            data.append(button["data"])
            cells.append(f"{len(data)}) {button['text']}")
        lines.append("   ".join(cells))
    return lines, data


def make(connection) -> ConsoleSender:
    """Sender factory (ARTEMIA_SENDER=console)."""
    return ConsoleSender()
