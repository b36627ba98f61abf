"""Redis storage of games: key layout (`keys`), atomic Lua steps (`lua`), the `Store` that runs them (`games`, with
its parts on `base`: `seats`, `pauses`, `schedule`, `outbox`), and the connection to Redis itself, by URL or through
Sentinel (`connect`)."""

from service.store.base import NotReplicated
from service.store.games import Commit, Snapshot, Store
from service.store.outbox import HeadState, LaneEntry, batch_for_version

__all__ = ["Commit", "HeadState", "LaneEntry", "NotReplicated", "Snapshot", "Store", "batch_for_version"]
