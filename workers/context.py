"""What a job needs, built once per Redis connection: the store, the queues, the settings and the sender.

The default sender (``ARTEMIA_SENDER=auto``) routes each message by its chat: a Telegram chat (a numeric id,
``"<id>/<topic>"`` in a forum) through `service.channels.telegram_send` when ``TELEGRAM_BOT_TOKEN`` is set, an
``sms:<number>`` chat through Twilio (`service.channels.sms_sender`) when ``TWILIO_ACCOUNT_SID`` is set, anything
else to the console. ``console`` / ``recording`` / ``module:factory`` send every chat through one sender.
"""

import importlib
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import redis
from rq import Queue, get_current_job
from rq.serializers import JSONSerializer

from service.config import Settings, get_settings
from service import outbox
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
        return self.given_sender or load_sender(self.settings.sender, self.store.redis, self.settings)


def build(connection: redis.Redis, settings: Settings, sender: Sender | None = None) -> Context:
    return Context(
        store=Store(connection, outbox_ttl=settings.outbox_ttl_seconds, dedup_ttl=settings.dedup_ttl_seconds,
                    keep_sent=settings.outbox_keep_sent),
        queue=Queue(settings.queue_name, connection=connection, serializer=JSONSerializer),
        send_queue=Queue(settings.send_queue_name, connection=connection, serializer=JSONSerializer),
        settings=settings,
        given_sender=sender,
    )


def load_sender(spec: str, connection: redis.Redis, settings: Settings | None = None) -> Sender:
    """A sender from its name ("auto", "console", "recording") or a "package.module:factory" path."""
    if spec == "auto":
        return RoutingSender(connection, settings or get_settings())
    module, _, factory = SENDERS.get(spec, spec).partition(":")
    return getattr(importlib.import_module(module), factory)(connection)


class RoutingSender:
    """Sends each message through its chat's channel (see the module docstring); channels are set up lazily, in
    the process that sends (the Telegram bot's event loop must not cross a fork)."""

    def __init__(self, connection: redis.Redis, settings: Settings, fallback: Sender | None = None):
        self.redis = connection
        self.settings = settings
        self._fallback = fallback
        self._channels: dict[str, Sender] = {}

    def channel(self, chat: str) -> str:
        from workers.messages import channel_of

        kind = channel_of(chat)
        if kind == "telegram" and self.settings.telegram_bot_token:
            return "telegram"
        if kind == "sms" and self.settings.twilio_account_sid:
            return "sms"
        return "other"

    def _sender(self, kind: str) -> Sender:
        if kind not in self._channels:
            if kind == "telegram":
                from service.channels.telegram_send import TelegramSender

                self._channels[kind] = TelegramSender(self.redis)
            elif kind == "sms":
                from service.channels.sms_directory import Directory
                from service.channels.sms_sender import TwilioSender

                sms = self.settings.sms()
                self._channels[kind] = TwilioSender(sms, Directory(self.redis, default_tz=sms.sms_default_tz))
            else:
                from service.channels.console import ConsoleSender

                self._channels[kind] = self._fallback or ConsoleSender()
        return self._channels[kind]

    def send(self, chat: str, text: str, buttons: list | None = None, slot: str | None = None) -> None:
        kind = self.channel(chat)
        sender = self._sender(kind)
        if kind != "telegram":
            return sender.send(chat, text, None if kind == "sms" else buttons)
        try:
            sender.send(chat, text, buttons, slot=slot)
        except outbox.PermanentSendError as exc:
            if not _blocked(str(exc)):
                raise outbox.RejectedSendError(str(exc)) from exc
            raise


def _blocked(detail: str) -> bool:
    """Telegram's 403s ("Forbidden: bot was blocked by the user", "... can't initiate conversation", "user is
    deactivated") mean the player cannot be reached; other refusals (400s) concern one message."""
    text = detail.lower()
    return any(word in text for word in ("forbidden", "blocked", "deactivated", "kicked", "initiate"))


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
