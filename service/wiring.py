"""The composition root: a pipeline context with the real channels and senders, for the web, the workers, the
admin tool and the sandbox.

The default sender (``ARTEMIA_SENDER=auto``) routes each message by its chat's kind (`service.pipeline.chats`): a
Telegram chat through the Bot API when ``TELEGRAM_BOT_TOKEN`` is set, an ``sms:`` chat through Twilio when
``TWILIO_ACCOUNT_SID`` is set, a ``wa:`` chat through Twilio's WhatsApp sender when ``ARTEMIA_WHATSAPP_FROM`` is
set too, anything else to the console. ``console`` / ``recording`` / ``module:factory`` send
every chat through one sender.
"""

import importlib
import time
from collections.abc import Callable
from typing import Unpack

import redis
from rq import get_current_job

from service.channels.console.render import ConsoleChannel
from service.channels.console.sender import ConsoleSender
from service.channels.sms.directory import Directory
from service.channels.sms.render import SmsChannel
from service.channels.sms.whatsapp import WhatsAppChannel
from service.channels.telegram.render import TelegramChannel
from service.config import Settings, get_settings
from service.pipeline import context
from service.pipeline.chats import ChatKind, chat_kind
from service.pipeline.context import Channel, Context
from service.pipeline.outbox import Sender, Shown
from service.store import connect as connecting

SENDERS = {"console": "service.channels.console.sender:make", "recording": "service.channels.recording:make"}


def channels(connection: redis.Redis, settings: Settings) -> dict[ChatKind, Channel]:
    directory = Directory(connection, default_tz=settings.sms_default_tz)
    return {
        "telegram": TelegramChannel(connection, settings),
        "sms": SmsChannel(directory),
        "whatsapp": WhatsAppChannel(),
        "console": ConsoleChannel(),
    }


def build(
    connection: redis.Redis, settings: Settings, sender: Sender | None = None, shards: list[redis.Redis] | None = None
) -> Context:
    """A context with the real channels (of the first shard, when ``shards`` hold the games: `Context.on`);
    ``sender`` replaces the one the settings name (tests, the sandbox)."""
    built = context.build(
        connection,
        settings,
        channels(connection, settings),
        (lambda: sender) if sender is not None else (lambda: load_sender(settings.sender, connection, settings, built)),
        shards=shards,
    )
    return built


def from_settings(settings: Settings, connection: redis.Redis | None = None) -> Context:
    """The context of a process from its settings: the index Redis (``REDIS_URL`` or the sentinels) and the game
    shards (``ARTEMIA_REDIS_SHARDS``) -> the context of shard ``ARTEMIA_SHARD`` (a worker's; the web routes every
    game to its own). ``connection``: the worker's own connection to that shard (or to the one Redis), reused."""
    if not connecting.shard_urls(settings):
        return build(connection or connecting.connect(settings), settings)
    shards, own = connecting.connect_shards(settings), connecting.own_shard(settings)
    if connection is not None:
        shards[own] = connection
    return build(connecting.connect(settings), settings, shards=shards).on(own)


def connect(redis_url: str | None) -> redis.Redis:
    """A connection to ``redis_url``, or an embedded in-process Redis when it is None (the sandbox, the transcript;
    never production)."""
    if redis_url:
        return redis.Redis.from_url(redis_url)
    import fakeredis  # embedded Redis: a test/sandbox dependency only

    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


def job_connection() -> redis.Redis:
    """The Redis connection of the running RQ job (for the job functions, which run only inside one)."""
    job = get_current_job()
    if job is None:
        raise RuntimeError("no RQ job is running: job functions get their connection from their job")
    return job.connection


def current() -> Context:
    """The context of the running RQ job (`of_connection`)."""
    return of_connection(job_connection())


def of_connection(connection: redis.Redis) -> Context:
    """The context of a worker's connection: the one registered for it, else one built from the environment's
    settings (with shards, for the shard ``ARTEMIA_SHARD`` that the connection reaches)."""
    found = context.lookup(connection)
    if found is None:
        found = from_settings(get_settings(), connection)
        context.register(found)
    return found


def load_sender(spec: str, connection: redis.Redis, settings: Settings, ctx: Context | None = None) -> Sender:
    """A sender from its name ("auto", "console", "recording") or a "package.module:factory" path (which gets
    the index connection); ``ctx``: whose store routes a game's keys to its shard."""
    if spec == "auto":
        return RoutingSender(
            connection, settings, games=ctx.store.at if ctx else None, clock=ctx.clock if ctx else None
        )
    module, _, factory = SENDERS.get(spec, spec).partition(":")
    sender: Sender = getattr(importlib.import_module(module), factory)(connection)
    return sender


class RoutingSender:
    """Sends each message through its chat's channel (see the module docstring); a channel's sender is made on
    its first message, in the process that sends (the Telegram bot's event loop must not cross a fork)."""

    def __init__(
        self,
        connection: redis.Redis,
        settings: Settings,
        fallback: Sender | None = None,
        games: Callable[[str], redis.Redis] | None = None,
        clock: Callable[[], float] | None = None,
    ):
        self.redis = connection
        self.clock = clock or time.time  # WhatsApp's 24-hour windows are read on it
        self.games = games  # a game's shard (`Store.at`): where the Telegram sender keeps the game's maps
        self.settings = settings
        self._fallback = fallback
        self._senders: dict[str, Sender] = {}

    def channel(self, chat: str) -> ChatKind:
        """The channel that delivers to ``chat``: its kind when that channel is configured, else the console."""
        kind = chat_kind(chat)
        if kind == "telegram" and self.settings.telegram_bot_token:
            return "telegram"
        if kind == "sms" and self.settings.twilio_account_sid:
            return "sms"
        if kind == "whatsapp" and self.settings.twilio_account_sid and self.settings.whatsapp_from:
            return "whatsapp"
        return "console"

    def _sender(self, kind: ChatKind) -> Sender:
        if kind not in self._senders:
            self._senders[kind] = self._make(kind)
        return self._senders[kind]

    def _make(self, kind: ChatKind) -> Sender:
        if kind == "telegram":
            from service.channels.telegram.sender import TelegramSender  # python-telegram-bot: only where it sends

            return TelegramSender(self.redis, games=self.games)
        if kind == "sms":
            from service.channels.sms.sender import TwilioSender

            return TwilioSender(self.settings, Directory(self.redis, default_tz=self.settings.sms_default_tz))
        if kind == "whatsapp":
            from service.channels.sms.wa_sender import WhatsAppSender

            return WhatsAppSender(self.settings, self.redis, clock=self.clock)
        return self._fallback or ConsoleSender()

    def prepare(self, chat: str, picture: dict, slot: str | None) -> None:
        """Before a send's token is taken (`outbox`): what would cost the send time after it — Telegram draws the
        board's picture it will upload."""
        if self.channel(chat) == "telegram":
            from service.channels.telegram.sender import TelegramSender

            sender = self._sender("telegram")
            if isinstance(sender, TelegramSender):  # (a test's stand-in sender draws nothing)
                sender.prepare(chat, picture, slot)

    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None:
        slot, picture, template = extra.get("slot"), extra.get("picture"), extra.get("template")
        kind = self.channel(chat)
        passed: Shown = {"slot": slot} if slot else {}
        if picture is not None and kind in ("telegram", "whatsapp"):  # pictures: Telegram's and WhatsApp's
            passed["picture"] = picture
        if template is not None and kind == "whatsapp":  # its approved templates: WhatsApp's alone
            passed["template"] = template
        self._sender(kind).send(chat, text, None if kind == "sms" else buttons, **passed)
