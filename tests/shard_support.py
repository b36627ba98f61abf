"""Helpers of the shard tests (fakeredis and real): game ids that land on a given shard, and where every key is."""

from service.store import keys


def ids_on(shard: int, count: int, n: int, prefix: str = "sh") -> list[str]:
    """``n`` game ids on ``shard`` of ``count``."""
    return [g for g in (f"{prefix}{i}" for i in range(400)) if keys.shard_of(g, count) == shard][:n]


def placement(index, shards) -> list[str]:
    """Every key out of its place: a game's key on another server than its shard, a game's key or a shard's key
    (due set, heartbeat, RQ) on the index, a global key on a shard."""
    wrong = []
    for key in (k.decode() for k in index.keys("*")):
        if key.startswith("{g:") or key.startswith("rq:") or key in (keys.DUE, keys.HEARTBEAT):
            wrong.append(f"index: {key}")
    for n, shard in enumerate(shards):
        for key in (k.decode() for k in shard.keys("*")):
            if key.startswith("{g:"):
                game_id = key[3 : key.index("}")]
                if keys.shard_of(game_id, len(shards)) != n:
                    wrong.append(f"shard {n}: {key}")
            elif not (key.startswith("rq:") or key in (keys.DUE, keys.HEARTBEAT)):
                wrong.append(f"shard {n}: {key}")
    return wrong
