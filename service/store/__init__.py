"""Redis storage of games: key layout (`keys`), atomic Lua steps (`lua`) and the `Store` that runs them."""

from service.store.games import Commit, Snapshot, Store, batch_for_version

__all__ = ["Commit", "Snapshot", "Store", "batch_for_version"]
