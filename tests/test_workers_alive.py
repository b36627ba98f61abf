"""``python -m workers.alive``, the worker containers' health check: an RQ worker of this host with a fresh beat."""

import socket
import time

import fakeredis
from rq import Queue, Worker

from workers.alive import alive, main


def test_a_worker_of_this_host_with_a_fresh_beat_is_alive_and_nothing_else_is():
    connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    host = socket.gethostname()
    assert not alive(connection, host, 60)  # no worker at all
    worker = Worker([Queue("artemia", connection=connection)], connection=connection)
    worker.register_birth()
    worker.heartbeat()
    assert alive(connection, host, 60)
    assert not alive(connection, "another-container", 60)
    assert not alive(connection, host, 60, now=time.time() + 120)  # its last beat is two minutes old


def test_without_redis_the_check_fails(monkeypatch, capsys):
    from service.config import get_settings

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("ARTEMIA_REDIS_URL", raising=False)
    get_settings.cache_clear()
    try:
        assert main([]) == 1
    finally:
        get_settings.cache_clear()
    assert "REDIS_URL is not set" in capsys.readouterr().err
