"""Redis storage of games: key layout (`keys`), atomic Lua steps (`lua`), the `Store` that runs them, and the
connection to Redis itself, by URL or through Sentinel (`connect`)."""

from service.store.games import Commit, HeadState, LaneEntry, NotReplicated, Snapshot, Store, batch_for_version

__all__ = ["Commit", "HeadState", "LaneEntry", "NotReplicated", "Snapshot", "Store", "batch_for_version"]
