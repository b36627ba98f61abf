"""A snapshot of every Redis key, to assert that refused input changed nothing (shared by the SMS, lobby and
fuzz tests)."""

# A reply spends its chat's send budget (the outbox's token buckets): not state that refused input may not change.
SEND_BUDGET = (b"artemia:rl:chat:", b"artemia:rl:global")


def redis_state(connection, ignore: tuple[bytes, ...] = ()) -> dict[bytes, object]:
    """Every key and its value (type-aware), and whether it expires, except keys starting with one of ``ignore``
    and the send budget's buckets.
    On fakeredis the server's data is read directly (a command per key costs ~0.3 ms there); on a real Redis,
    with commands."""
    ignore = (*ignore, *SEND_BUDGET)
    server = getattr(connection, "connection_pool", None) and connection.connection_pool.connection_kwargs.get("server")
    if server is not None and hasattr(server, "dbs"):
        db = server.dbs[connection.connection_pool.connection_kwargs.get("db", 0)]
        return {
            key: (_plain(item.value), item.expireat is not None)
            for key, item in list(db.items())
            if not key.startswith(ignore)
        }
    state = {}
    for key in connection.scan_iter(count=1000):
        if key.startswith(ignore):
            continue
        kind = connection.type(key).decode()
        if kind == "string":
            value = connection.get(key)
        elif kind == "hash":
            value = connection.hgetall(key)
        elif kind == "set":
            value = connection.smembers(key)
        elif kind == "zset":
            value = connection.zrange(key, 0, -1, withscores=True)
        elif kind == "list":
            value = connection.lrange(key, 0, -1)
        else:
            value = kind
        state[key] = (_plain(value), connection.ttl(key) > 0)
    return state


def _plain(value):
    if isinstance(value, (bytes, str, int, float)):
        return value
    if isinstance(value, list):
        return list(value)
    if hasattr(value, "items"):
        return sorted(value.items())
    return sorted(value)
