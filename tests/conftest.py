"""Every test reads the settings afresh: the service reads them once per process (`get_settings` is cached), and
tests change the environment with monkeypatch. Likewise the process's moving mean of a send's time, which decides
whether a resolving job sends its steps in its own thread (`outbox.send_seconds`): each test starts from quick
sends, whatever a slow sender of an earlier test left."""

import pytest

from service.config import get_settings
from service.pipeline import outbox


@pytest.fixture(autouse=True)
def fresh_settings():
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(autouse=True)
def quick_sends(monkeypatch):
    monkeypatch.setitem(outbox._SENDS, "mean", 0.0)
