"""A worker container's health check: ``python -m workers.alive`` exits 0 when an RQ worker of this host (a
container has a host name of its own) has beaten within ``--max-age`` seconds, 1 otherwise.

It says whether *this* process works, not whether the service does (that is ``/healthz``, for alerting). With
game shards, workers register on the shard they serve (``ARTEMIA_SHARD``): it looks there.
"""

import argparse
import socket
import sys
import time

import redis
from rq import Worker

from service.config import get_settings
from service.ops.health import age
from service.store import connect


def alive(connection: redis.Redis, hostname: str, max_age: float, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    return any(
        w.hostname == hostname and age(now, w.last_heartbeat) <= max_age for w in Worker.all(connection=connection)
    )


def workers_redis(settings) -> redis.Redis:
    """Where this host's workers register: the shard they serve, or the one Redis (by URL or through the
    sentinels, as the workers reach it)."""
    if connect.shard_urls(settings):
        return connect.connect_shards(settings)[connect.own_shard(settings)]
    if settings.redis_url and not settings.redis_sentinels:
        return redis.Redis.from_url(settings.redis_url, socket_timeout=connect.SOCKET_TIMEOUT)
    return connect.connect(settings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.alive", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--max-age", type=float, default=60.0, help="seconds since the last heartbeat (default 60)")
    args = parser.parse_args(argv)
    settings = get_settings()
    try:
        ok = alive(workers_redis(settings), socket.gethostname(), args.max_age)
    except connect.NotConfigured as exc:
        print(exc, file=sys.stderr)
        return 1
    except redis.RedisError as exc:
        print(f"redis unreachable: {exc}", file=sys.stderr)
        return 1
    print("alive" if ok else f"no worker of {socket.gethostname()} beat within {args.max_age:g} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
