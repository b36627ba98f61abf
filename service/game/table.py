"""The table: what the rules work on — the state and the few facts fixed for a game — below the rules.

A :class:`Table` holds the plain state (``s``, a state.State), the values derived from it (``memo``) and what a
game fixes once (the number of seats, the table's secrecy). Every rule (rules/), the card table (registry.py),
answers ahead (answers.py), auto-play (autoplay.py) and the views (observer.py) take a Table and read or change
``t.s``; they import this module and state.py, never the engine. ``engine.Game`` is the façade on top: a Table
with the public face and the driver that runs the rules.

Imports state.py only.
"""

import json
from typing import Any

from service.game.state import State


class Table:
    """One game's state and what is derived from it. All state lives in ``self.s`` (plain JSON types); values
    derived from it are cached in ``self.memo``, which code editing ``self.s`` by hand (test builders) must clear."""

    def __init__(self, state: State) -> None:
        self.s = state
        self.memo: dict[Any, Any] = {}  # derived values (upcoming tasks, live options) of this state; reset on change
        self.players: int = state["config"]["players"]  # the number of seats: fixed for the game
        self._hunted = range(1, self.players)
        self.strict: bool = state["config"]["secrecy"] == "strict"  # the table's secrecy: fixed for the game

    def _forget(self) -> None:
        """Drop every derived value: the state changed (a memo already empty is kept, not replaced)."""
        if self.memo:
            self.memo = {}

    def hunted_seats(self) -> range:
        return self._hunted

    @property
    def turn(self) -> int:
        return self.s["turn"]

    def to_json(self) -> str:
        return json.dumps(self.s, separators=(",", ":"), sort_keys=True)
