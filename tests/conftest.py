"""Every test reads the settings afresh: the service reads them once per process (`get_settings` is cached), and
tests change the environment with monkeypatch. Likewise the process's moving mean of a send's time, which decides
whether a resolving job sends its steps in its own thread (`outbox.send_seconds`): each test starts from quick
sends, whatever a slow sender of an earlier test left.

Under pytest-xdist (`make test` runs two workers) each worker but the first starts a redis-server of its own and
points the tests' variables at it: tests that kill, restart or fill the server, or count RQ's workers on it, then
never meet the other worker's.

A test that takes more than `SLOW_SECONDS` carries ``@pytest.mark.slow(reason=...)``: a ``slow`` mark without a
reason is refused at collection, and a test over the limit without the mark is named at the end of the run (a
report, not a failure: the machines are shared and their times noisy)."""

import os

import pytest

from service.config import get_settings
from service.pipeline import outbox
from tests import real_redis

SLOW_SECONDS = 30.0

_worker_server: real_redis.Server | None = None
_unmarked_slow: list[tuple[str, float]] = []


def pytest_configure(config):
    global _worker_server
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    if worker != "gw0" and os.environ.get("ARTEMIA_TEST_REDIS_URL"):
        _worker_server = real_redis.Server(appendfsync="everysec").start()
        os.environ["ARTEMIA_TEST_REDIS_URL"] = _worker_server.url
        os.environ["ARTEMIA_TEST_REDIS_PORT"] = str(_worker_server.port)
        os.environ["ARTEMIA_TEST_REDIS_DIR"] = _worker_server.dir


def pytest_collection_modifyitems(config, items):
    for item in items:
        for mark in item.iter_markers("slow"):
            if not mark.kwargs.get("reason"):
                raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.slow needs reason=... (why it takes long)")


def pytest_runtest_logreport(report):
    if report.when == "call" and report.duration > SLOW_SECONDS and "slow" not in report.keywords:
        _unmarked_slow.append((report.nodeid, report.duration))


def pytest_terminal_summary(terminalreporter):
    if _unmarked_slow:
        terminalreporter.section(f"over {SLOW_SECONDS:.0f} s without a slow mark")
        for nodeid, seconds in _unmarked_slow:
            terminalreporter.line(f"{seconds:6.1f}s {nodeid}: mark it @pytest.mark.slow(reason=...) or make it faster")


def pytest_unconfigure(config):
    if _worker_server is not None:
        _worker_server.stop()


@pytest.fixture(autouse=True)
def fresh_settings():
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(autouse=True)
def quick_sends(monkeypatch):
    monkeypatch.setitem(outbox._SENDS, "mean", 0.0)


@pytest.fixture
def drawings(monkeypatch):
    """Counts the board pictures rasterised (in this process: the webhook and the jobs run here)."""
    from service.board import raster

    count = []
    real = raster.png

    def counting(svg: str) -> bytes:
        count.append(svg)
        return real(svg)

    monkeypatch.setattr(raster, "png", counting)
    return count
