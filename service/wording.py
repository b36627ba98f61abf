"""The pipeline's only door to the command language (`service.commands`), plus the text of engine events.

Channels parse through `parse`; the workers word prompts with `options` and replies with `describe`. Engine
events have no wording of their own yet: `event_text` prints their type and fields.
"""

from service import commands

CommandError = commands.CommandError


def parse(text: str, game, seat: int, lang: str | None = None) -> list[dict]:
    """Actions (or the ``_help`` / ``_status`` markers) meant by ``text``; raises CommandError."""
    return commands.parse(text, game, seat, lang)


def help_text(game, seat: int, lang: str = "en") -> str:
    return commands.help_text(game, seat, lang)


def options(game, seat: int, lang: str = "en") -> str:
    """The short list of what the seat may answer now (one line per kind of answer)."""
    return "\n".join(commands.summary(game, seat, lang))


def describe(action: dict, lang: str = "en") -> str:
    return commands.describe(action, lang)


def event_text(event: dict) -> str:
    """One line for an engine event: its type and its fields."""
    fields = ", ".join(f"{k}={v}" for k, v in event.items() if k not in ("type", "visible_to"))
    return f"{event['type']}: {fields}" if fields else event["type"]
