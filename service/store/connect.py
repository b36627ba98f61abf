"""The one way to reach Redis: a URL (``REDIS_URL``) or the primary that Redis Sentinel names; and, when the games
are sharded (``ARTEMIA_REDIS_SHARDS``), one connection per game shard (a URL, or a Sentinel service name each).

With sentinels, the connection asks them for the current primary whenever it (re)connects, so after a failover
the next command reaches the promoted replica; a command caught by the failover fails with a ConnectionError,
which the web answers with a 5xx (Telegram retries) and a job with its retry. ``rq_settings`` gives the stock
RQ CLI (``rq worker -c workers.rqconfig``) the same connection.
"""

from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
from redis.sentinel import Sentinel

from service.config import Settings

SENTINEL_SHARD = "sentinel:"  # a shard given by its Sentinel service name (`shard_urls`)
SOCKET_TIMEOUT = 5.0  # seconds; a primary that died without closing its sockets is noticed this fast


class NotConfigured(RuntimeError):
    """Neither REDIS_URL nor sentinels are set."""


def sentinel_addresses(settings: Settings) -> list[tuple[str, int]]:
    """``ARTEMIA_REDIS_SENTINELS`` ("host:port,host:port") as (host, port) pairs."""
    out = []
    for item in settings.redis_sentinels.split(","):
        host, _, port = item.strip().rpartition(":")
        if host and port.isdigit():
            out.append((host, int(port)))
        elif item.strip():
            raise ValueError(f"ARTEMIA_REDIS_SENTINELS: {item.strip()!r} is not host:port")
    return out


def configured(settings: Settings) -> bool:
    return bool(settings.redis_url or settings.redis_sentinels)


def connect(settings: Settings) -> redis.Redis:
    """A connection to the primary: through the sentinels when they are set, else ``REDIS_URL``."""
    if settings.redis_sentinels:
        return _primary_of(settings, settings.redis_sentinel_service)
    if not settings.redis_url:
        raise NotConfigured("REDIS_URL is not set (nor ARTEMIA_REDIS_SENTINELS)")
    return redis.Redis.from_url(settings.redis_url)


def _primary_of(settings: Settings, service: str) -> redis.Redis:
    """The primary the sentinels name ``service``, asked again on every reconnect."""
    sentinel = Sentinel(
        sentinel_addresses(settings),
        sentinel_kwargs={"password": settings.redis_sentinel_password, "socket_timeout": 1.0},
        socket_timeout=SOCKET_TIMEOUT,
        password=settings.redis_password,
        db=settings.redis_db,
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.1), 3),
    )
    return sentinel.master_for(service)


def shard_urls(settings: Settings) -> list[str]:
    """``ARTEMIA_REDIS_SHARDS`` as a list (empty: the games are not sharded): a URL, or ``sentinel:<service>`` for a
    shard whose primary the sentinels of ``ARTEMIA_REDIS_SENTINELS`` name (each shard a service of its own)."""
    urls = [url.strip() for url in settings.redis_shards.split(",") if url.strip()]
    for url in urls:
        if url.startswith(SENTINEL_SHARD) and not (url[len(SENTINEL_SHARD) :] and settings.redis_sentinels):
            raise ValueError(f"ARTEMIA_REDIS_SHARDS: {url!r} needs a service name and ARTEMIA_REDIS_SENTINELS")
    return urls


def own_shard(settings: Settings) -> int:
    """The shard a worker serves (``ARTEMIA_SHARD``), checked against the shard list."""
    count = len(shard_urls(settings))
    if not 0 <= settings.shard < max(count, 1):
        raise ValueError(f"ARTEMIA_SHARD={settings.shard}: there are {count} shards")
    return settings.shard


def connect_shards(settings: Settings) -> list[redis.Redis]:
    """A connection to each game shard, in the configured order (empty when the games are not sharded)."""
    return [
        _primary_of(settings, url[len(SENTINEL_SHARD) :])
        if url.startswith(SENTINEL_SHARD)
        else redis.Redis.from_url(url)
        for url in shard_urls(settings)
    ]


def rq_settings(settings: Settings) -> dict[str, Any]:
    """``REDIS_URL`` or ``SENTINEL`` for an RQ settings module (rq's CLI reads either): with shards, the URL of the
    shard the worker serves (``ARTEMIA_SHARD``), whose queues hold its games' jobs."""
    shards = shard_urls(settings)
    service = settings.redis_sentinel_service
    if shards:
        url = shards[own_shard(settings)]
        if not url.startswith(SENTINEL_SHARD):
            return {"REDIS_URL": url}
        service = url[len(SENTINEL_SHARD) :]
    if settings.redis_sentinels:
        return {
            "REDIS_URL": None,
            "SENTINEL": {
                "INSTANCES": sentinel_addresses(settings),
                "MASTER_NAME": service,
                "DB": settings.redis_db,
                "PASSWORD": settings.redis_password,
                "SOCKET_TIMEOUT": SOCKET_TIMEOUT,
                "SENTINEL_KWARGS": {"password": settings.redis_sentinel_password, "socket_timeout": 1.0},
            },
        }
    return {"REDIS_URL": settings.redis_url}
