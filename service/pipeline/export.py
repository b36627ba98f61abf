"""A stored game as a replayable log (`service.replay` format): for bug reports and the admin export.

Every commit appends the (seat, action) pairs it applied to ``{g:G}:actions`` in the same atomic step as the
resolution, after the game's config; so the log always matches the stored snapshot, and replaying it
(``python -m service.replay FILE``) rebuilds the game exactly.
"""

from service import replay
from service.store import Store


def game_log(store: Store, game_id: str) -> str | None:
    """The game's log text, or None for a game with no stored actions (unknown, or older than the log)."""
    config, moves = store.action_log(game_id)
    if config is None:
        return None
    return replay.write_log(config, moves)


def rebuild(store: Store, game_id: str):
    """The game replayed from its stored log (a `service.game.Game`), or None."""
    text = game_log(store, game_id)
    return None if text is None else replay.replay(text)
