"""What a job needs, built once per Redis connection: the store, the queues, the settings and the sender."""

import importlib
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import redis
from rq import Queue, get_current_job
from rq.serializers import JSONSerializer

from service.config import Settings, get_settings
from service.outbox import Sender
from service.store import Store

SENDERS = {"console": "service.channels.console:make", "recording": "service.channels.recording:make"}


@dataclass
class Context:
    store: Store
    queue: Queue
    send_queue: Queue
    settings: Settings
    given_sender: Sender | None = None
    clock: Callable[[], float] = field(default=time.time)
    sleep: Callable[[float], None] = field(default=time.sleep)

    @property
    def queues(self) -> list[Queue]:
        """What a worker listens to, in priority order."""
        return [self.queue, self.send_queue]

    @cached_property
    def sender(self) -> Sender:
        """The given sender, else the one the settings name (loaded on first send: the web never sends)."""
        return self.given_sender or load_sender(self.settings.sender, self.store.redis)


def build(connection: redis.Redis, settings: Settings, sender: Sender | None = None) -> Context:
    return Context(
        store=Store(connection, outbox_ttl=settings.outbox_ttl_seconds, dedup_ttl=settings.dedup_ttl_seconds),
        queue=Queue(settings.queue_name, connection=connection, serializer=JSONSerializer),
        send_queue=Queue(settings.send_queue_name, connection=connection, serializer=JSONSerializer),
        settings=settings,
        given_sender=sender,
    )


def load_sender(spec: str, connection: redis.Redis) -> Sender:
    """A sender from its name ("console", "recording") or a "package.module:factory" path."""
    module, _, factory = SENDERS.get(spec, spec).partition(":")
    return getattr(importlib.import_module(module), factory)(connection)


_contexts: dict[int, Context] = {}


def register(context: Context) -> None:
    """Make ``context`` the one used by jobs running on its connection (the sandbox's in-process worker)."""
    _contexts[id(context.store.redis)] = context


def current() -> Context:
    """The context of the running job, from the job's connection and the environment's settings."""
    connection = get_current_job().connection
    context = _contexts.get(id(connection))
    if context is None:
        context = _contexts[id(connection)] = build(connection, get_settings())
    return context
