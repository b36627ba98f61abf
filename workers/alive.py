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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.alive", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--max-age", type=float, default=60.0, help="seconds since the last heartbeat (default 60)")
    args = parser.parse_args(argv)
    settings = get_settings()
    url = connect.rq_settings(settings)["REDIS_URL"] if connect.shard_urls(settings) else settings.redis_url
    if not url:
        print("REDIS_URL is not set", file=sys.stderr)
        return 1
    try:
        ok = alive(redis.Redis.from_url(url, socket_timeout=5), socket.gethostname(), args.max_age)
    except redis.RedisError as exc:
        print(f"redis unreachable: {exc}", file=sys.stderr)
        return 1
    print("alive" if ok else f"no worker of {socket.gethostname()} beat within {args.max_age:g} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
