"""What a step of the pipeline needs, built once per Redis connection: the store, the queues, the settings, the
channels (each renders the news for its own chats) and the sender that delivers the outbox.

With game shards there is a context per shard, all on one store: its queues are the shard's, where the jobs of
the shard's games wait (`Context.at` gives a game's), and its sweeper sweeps the shard's games. RQ jobs find the
context of the shard they run on by their connection (`register`, `lookup`).

The pipeline knows channels only through the `Channel` protocol (`service.pipeline.news`); the composition root
(`service.wiring`) builds a context with the real ones, tests and the sandbox with theirs.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from service.config import Settings
from service.ops.metrics import BufferedCounts
from service.pipeline.chats import ChatKind
from service.pipeline.news import Channel
from service.pipeline.outbox import Sender
from service.store import Store


@dataclass
class Context:
    store: Store
    queue: Queue
    send_queue: Queue
    refresh_queue: Queue
    draw_queue: Queue
    settings: Settings
    channels: dict[ChatKind, Channel]
    make_sender: Callable[[], Sender]
    clock: Callable[[], float] = field(default=time.time)
    sleep: Callable[[float], None] = field(default=time.sleep)
    shard: int = 0  # the shard whose queues these are (`Store.shards`)
    shard_contexts: list["Context"] = field(default_factory=list, repr=False)  # every shard's, this one included
    counts: BufferedCounts | None = None  # a web process's buffered counts (`service.ops.metrics`): answers too

    def at(self, game_id: str) -> "Context":
        """The context of ``game_id``'s shard: the one whose queues take that game's jobs."""
        return self.on(self.store.shard_of(game_id))

    def on(self, shard: int) -> "Context":
        return self.shard_contexts[shard] if self.shard_contexts else self

    @property
    def queues(self) -> list[Queue]:
        """What a worker listens to, in priority order."""
        return [self.queue, self.refresh_queue, self.send_queue, self.draw_queue]

    @cached_property
    def sender(self) -> Sender:
        """Made on first send, in the process that sends (the web never sends; a Telegram client must not cross
        a fork)."""
        return self.make_sender()


def build(
    connection: redis.Redis,
    settings: Settings,
    channels: dict[ChatKind, Channel],
    make_sender: Callable[[], Sender],
    shards: list[redis.Redis] | None = None,
) -> Context:
    """The context of the first shard (`Context.on` gives the others'); ``connection``: the index Redis, and the
    games' too unless ``shards`` are given."""
    store = Store(
        connection,
        outbox_ttl=settings.outbox_ttl_seconds,
        dedup_ttl=settings.dedup_ttl_seconds,
        keep_sent=settings.outbox_keep_sent,
        ack_replicas=settings.redis_ack_replicas,
        ack_timeout_ms=settings.redis_ack_timeout_ms,
        shards=shards,
    )
    contexts = [
        Context(
            store=store,
            queue=Queue(settings.queue_name, connection=on, serializer=JSONSerializer),
            send_queue=Queue(settings.send_queue_name, connection=on, serializer=JSONSerializer),
            refresh_queue=Queue(settings.refresh_queue_name, connection=on, serializer=JSONSerializer),
            draw_queue=Queue(settings.draw_queue_name, connection=on, serializer=JSONSerializer),
            settings=settings,
            channels=channels,
            make_sender=make_sender,
            shard=shard,
        )
        for shard, on in enumerate(store.shards)
    ]
    if len(contexts) > 1:
        for each in contexts:
            each.shard_contexts = contexts
    return contexts[0]


_contexts: dict[int, Context] = {}


def register(context: Context) -> None:
    """Make ``context`` (and its sibling shards' contexts) the one used by jobs running on its queues' connection
    (`lookup`)."""
    for each in context.shard_contexts or [context]:
        _contexts[id(each.queue.connection)] = each


def lookup(connection: redis.Redis) -> Context | None:
    return _contexts.get(id(connection))
