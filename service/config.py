"""Service configuration: one pydantic-settings class read from the environment only (12-factor).

`REDIS_URL`, `TELEGRAM_BOT_TOKEN`, `TELEGRAM_API_BASE_URL` and the SMS channel's `TWILIO_*` / `SMS_*` keep their
conventional names (the ones `service.channels.sms.settings` documents); everything else is `ARTEMIA_<FIELD>`
(among them `ARTEMIA_WEBHOOK_SECRET`, `ARTEMIA_BOT_USERNAME`, `ARTEMIA_WEBHOOK_URL`).
Deadline presets and the server-wide minimum also live here, because both the lobby (a creator picks a
preset) and the workers (clamping a stored deadline) need them.
"""

from functools import lru_cache
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEADLINE_PRESETS = {"live": 120, "fast": 3600, "daily": 86400}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTEMIA_", extra="ignore", populate_by_name=True)

    redis_url: str | None = Field(None, validation_alias=AliasChoices("REDIS_URL", "ARTEMIA_REDIS_URL"))
    # Redis Sentinel, instead of REDIS_URL: the sentinels as "host:port,host:port,...", the name they monitor the
    # primary under, the sentinels' own password and the data nodes' password and database. Every connection
    # (web, workers, RQ and its scheduler) then asks the sentinels for the primary and follows a failover.
    redis_sentinels: str = ""
    redis_sentinel_service: str = "artemia"
    redis_sentinel_password: str | None = None
    redis_password: str | None = None
    redis_db: int = 0
    # Acknowledged means replicated: an answer is confirmed (and a step's result sent) only once this many replicas
    # have it (Redis WAIT, at most redis_ack_timeout_ms); 0 confirms on the primary's word alone.
    redis_ack_replicas: int = 0
    redis_ack_timeout_ms: int = 1000
    # Game shards: "redis://a/0,redis://b/0,..." — each game's keys, due set, sweeper and RQ queues live on one of
    # these primaries (`service.store.keys.shard_of`); REDIS_URL (or the sentinels) then holds only the global
    # indexes. Empty: one Redis holds everything. The list is fixed for a deployment's life (its order names the
    # shards; adding one would move games). ``shard``: the shard a worker process serves (``python -m workers
    # --shard N``, or ARTEMIA_SHARD for ``rq worker -c workers.rqconfig``).
    redis_shards: str = ""
    shard: int = 0
    telegram_bot_token: str | None = Field(
        None, validation_alias=AliasChoices("TELEGRAM_BOT_TOKEN", "ARTEMIA_TELEGRAM_BOT_TOKEN")
    )

    # Telegram: the Bot API base URL (a local Bot API server, or the tests' fake), the webhook's secret token
    # (checked on every update), the bot's @username (deep links, notices) and the public webhook URL
    # (registration).
    telegram_api_base_url: str | None = Field(
        None,
        validation_alias=AliasChoices(
            "TELEGRAM_API_BASE_URL", "ARTEMIA_TELEGRAM_API_BASE_URL", "telegram_api_base_url"
        ),
    )
    webhook_secret: str = ""
    bot_username: str = "artemia_bot"
    webhook_url: str | None = None
    # The public base URL of the web process (http or https): each game's watch page is <public_url>/w/<token>,
    # linked from the group's status message. None: no Watch button (`service.pipeline.watch.url`).
    public_url: str | None = None

    # SMS (Twilio), under the names Twilio's docs use; see service.channels.sms.settings.
    twilio_account_sid: str = Field("", validation_alias=AliasChoices("TWILIO_ACCOUNT_SID", "twilio_account_sid"))
    twilio_auth_token: str = Field("", validation_alias=AliasChoices("TWILIO_AUTH_TOKEN", "twilio_auth_token"))
    twilio_from: str = Field("", validation_alias=AliasChoices("TWILIO_FROM", "twilio_from"))
    twilio_messaging_service_sid: str = Field(
        "", validation_alias=AliasChoices("TWILIO_MESSAGING_SERVICE_SID", "twilio_messaging_service_sid")
    )
    twilio_api_base_url: str = Field(
        "https://api.twilio.com", validation_alias=AliasChoices("TWILIO_API_BASE_URL", "twilio_api_base_url")
    )
    twilio_shared_keys: dict[str, str] = Field(
        {}, validation_alias=AliasChoices("TWILIO_SHARED_KEYS", "twilio_shared_keys")
    )
    # WhatsApp through the same Twilio account (service.channels.sms.wa_sender): the sender's address
    # ("whatsapp:+1555…"; empty: no WhatsApp), the Content API's SIDs of deploy/whatsapp/templates.json by name
    # (`python -m service.admin whatsapp-templates` registers them and prints this setting), and the Content API.
    whatsapp_from: str = ""
    whatsapp_contents: dict[str, str] = {}
    twilio_content_base_url: str = Field(
        "https://content.twilio.com",
        validation_alias=AliasChoices("TWILIO_CONTENT_BASE_URL", "twilio_content_base_url"),
    )
    # A number's 24-hour window is taken as closed this long before it closes (a message may wait in a queue).
    whatsapp_window_margin_seconds: int = 900
    whatsapp_media_ttl_seconds: int = 7 * 86400  # a board picture's URL (GET /m/<token>.png) lives this long
    sms_public_url: str | None = Field(None, validation_alias=AliasChoices("SMS_PUBLIC_URL", "sms_public_url"))
    sms_trust_proxy: bool = Field(False, validation_alias=AliasChoices("SMS_TRUST_PROXY", "sms_trust_proxy"))
    # The proxies whose X-Forwarded-* headers are believed (SMS_TRUST_PROXY): addresses, networks or "*" — the
    # variable uvicorn reads too, with its default.
    forwarded_allow_ips: str = Field(
        "127.0.0.1,::1", validation_alias=AliasChoices("FORWARDED_ALLOW_IPS", "forwarded_allow_ips")
    )
    sms_default_tz: str = Field("Europe/Prague", validation_alias=AliasChoices("SMS_DEFAULT_TZ", "sms_default_tz"))

    queue_name: str = "artemia"  # resolutions, deadlines, reminders, sweeps
    send_queue_name: str = "artemia-send"  # deliveries: workers take it after the first, so sends never delay a step
    # status refreshes after an answer (ticks, "locked in"): taken after the first, before deliveries (a tick made
    # late would find its window closed), and one job per game at a time (`service.pipeline.upkeep.refresh`), so a
    # flood of answers never fills a queue
    refresh_queue_name: str = "artemia-refresh"
    # drawings of the board (/board): taken last, so that no resolution, tick or message waits behind a drawing
    draw_queue_name: str = "artemia-draw"
    # Deadlines: no window may be shorter than this, whatever the game asked for.
    min_deadline_seconds: int = 60
    # Reminders, as fractions of the window's time still left (0.5 = half-way, 0.1 = 10% left).
    reminder_points: list[float] = [0.5, 0.1]
    # After this many deadline auto-plays in a row a seat is bot-played until its player answers again.
    autoplay_bot_after: int = 3
    # Away and pause (service.pipeline.absence): the longest a player may be away, and a table paused, in days.
    away_max_days: int = 30
    pause_max_days: int = 7
    # Bots that search (service/game/search.py): the level a vanished player's seat is played at, and the most
    # time a decision may take (a decision plays search.ROLLOUTS rollouts, ~15-30 ms; this caps a busy machine).
    vanished_bot_level: Literal["easy", "normal", "hard"] = "normal"
    bot_budget_ms: int = 200

    # Sweeper: how often it runs, and how long a closed ("resolving") window may wait for its job.
    sweep_interval_seconds: int = 30
    resolve_grace_seconds: int = 30
    # Resolving jobs per shard at most, queued or running (service.pipeline.scheduling.resolvers): each resolves the
    # closed windows one after another until none waits. At least the number of the shard's worker processes, so
    # that a burst of closed windows keeps every worker resolving.
    resolvers: int = 4
    # RQ's scheduler moves the timed jobs that are due (deadlines, reminders) to their queue this often (RQ's own
    # default is 1 s): a deadline is resolved at most this late. A thousand tables due at 20:00 waited half a
    # second on average for the poll (bench/due.py).
    scheduler_interval_seconds: float = 0.2
    # ... and moves the deadline jobs this early: one that starts early waits for its deadline, then closes the
    # window (workers.worker.BoundScheduler), so a burst of deadlines is resolved from its second on (moving a
    # thousand jobs takes the scheduler ~0.3 s). Other timed jobs are moved when due.
    scheduler_lookahead_seconds: float = 1.0
    # The service counts as having been down when the sweeper's heartbeat is older than this.
    downtime_threshold_seconds: int = 120

    dedup_ttl_seconds: int = 90000  # a little over Telegram's 24 h retention of pending updates
    outbox_ttl_seconds: int = 7 * 86400  # how long a message that cannot be delivered is kept
    # Keep every outbox batch after delivery (until the TTL) instead of deleting it: an audit mode for the tests
    # and the soak, which check every stored message against what the channel received. Costs memory.
    outbox_keep_sent: bool = False
    job_failure_ttl_seconds: int = 3 * 86400
    # A finished game is compacted this long after it ended, once its last messages are out (service.store.finished:
    # its snapshot and action log shrink to a few KB), and kept that way for the retention, then deleted.
    finished_compact_after_seconds: int = 600
    finished_retention_days: float = 365.0

    # Send budget shared by all workers (token buckets in Redis).
    # Telegram takes about 30 a second from a bot in all, counted over any second. A token is taken before its call
    # reaches Telegram, and calls arrive up to tens of milliseconds apart from when their tokens were taken (threads,
    # the GIL, a busy machine): a budget of exactly 30 a second with a burst of 30 let up to 60 through in a
    # second and got 429s (bench/due.py, 1,000 tables due at once). 27.7 a second and a burst of 1.5 let at most
    # 29.2 into any second: a 31st needs calls bunched by more than 1.8/27.7 s (65 ms) on their way (at 28, 3 of
    # 5,000 calls met a 429 while the workers drew the groups' pictures). A burst of 1 wastes the refill whenever
    # the next taker wakes late: 26 a second at 27.5.
    rate_global_per_second: float = 27.7
    rate_global_burst: float = 1.5
    rate_private_per_second: float = 1.0
    # A private chat may take this many messages at once before its rate applies: a step that ends a turn edits the
    # turn's message and sends the next turn's question, and the question should not wait a second behind the
    # edit. Telegram tolerates short bursts over 1 a second in a chat (docs/platform-notes.md §3.1), counted over
    # any second: a burst of 2 lets 3 calls through within 1 s plus the refill, and one of them arriving late made
    # a 429; at 1.8 the second call waits 0.2 s and any three calls span 1.2 s.
    rate_private_burst: float = 1.8
    rate_group_per_minute: float = 20.0
    # How many messages a group may take at once (a step's status and its closing edit, a command's reply); its
    # bucket refills at the rest of the minute's limit, so no minute ever sees more than the limit.
    rate_group_burst: float = 3.0
    # A 429 holds the sends to its chat alone, for its retry_after. Only when this many different chats are answered
    # 429 within this many seconds is it the bot's overall limit (about 30 a second), and every send waits.
    throttle_global_chats: int = 3
    throttle_global_window_seconds: float = 1.0
    send_max_attempts: int = 8
    # A version of a living message that asks nothing waits this long for a newer version that would replace it
    # (service.pipeline.outbox): fewer edits, each counted by Telegram's flood control (a group gets 20 messages a
    # minute). 0: send at once. Versions that keep replacing one another wait no longer than the first one's hold.
    # A seat's "locked in" and its results with no question under them: at a table playing live, the seat's next
    # question (or the step, once the window closes) usually comes within seconds; the press was told at once
    # anyway (Telegram's toast names the answer locked in).
    edit_settle_seconds: float = 15.0
    # The group's tick after an answer (the next answer's tick, or the step, replaces it).
    tick_settle_seconds: float = 10.0
    # A window's last awaited answer, while a seat's question ahead (how it uses the place it chose) is open, keeps
    # the window open this long more, closing as soon as those questions are answered (the submit script,
    # service.store.lua.SUBMIT): a player answering screen after screen finishes in the
    # window, instead of being asked again in the next one, where the Creature's hunt may close it under their
    # finger and the Reckoning ask a third time. Cards stay secret: the moment shows only that some seat had
    # something to decide. 0: close at once.
    # 10 s: time to read the question and tap, for the player whose place was the last one awaited.
    may_hold_seconds: float = 10.0
    # A seat that answered in person (by a button) less than this long before the step that ends a turn is reading
    # its chat: its turn message goes on into the next turn, edited (seen at once), instead of a last edit of it
    # and a new message whose notification calls back a player who is away (service.pipeline.news.carry_turn_ends).
    # 0: a new message every turn.
    turn_message_goes_on_seconds: float = 15.0
    # How long a resolving job may go on beginning to send its own step's private messages (the questions) right
    # after its commit, before any job of its own is queued for them (service.pipeline.delivery.deliver_now: the
    # chats at once, each a round trip to Telegram); what is left, and every group's status, goes to a delivery
    # job as before. 0: a delivery job sends everything.
    deliver_inline_seconds: float = 1.0
    # The group's living status message as the board's picture with the status as its caption (docs/board.md);
    # false: the status as text.
    status_picture: bool = True

    # Which sender delivers the outbox: "auto" (by chat: Telegram chats through the Bot API when a token is set,
    # "sms:" chats through Twilio when an account is set, the rest to the console), "console", "recording"
    # (every chat) or "package.module:factory".
    sender: str = "auto"

    # Floods (service.pipeline.floods): each sender's inbound token bucket — a burst of this many messages, then
    # this many a minute; past it one "slow down" reply, then nothing is read or answered until it refills.
    inbound_sms_burst: int = 8
    inbound_sms_per_minute: float = 2.0
    inbound_telegram_burst: int = 30
    inbound_telegram_per_minute: float = 60.0
    # WhatsApp: a tap costs nothing and a question may take several (a sub-menu, "More…"), as on Telegram
    inbound_whatsapp_burst: int = 30
    inbound_whatsapp_per_minute: float = 30.0
    # Replies to numbers that play nothing and text something we cannot use: this many an hour in all (paid).
    sms_stranger_replies_per_hour: int = 60
    # Tables an address may have opened that have not begun.
    max_open_tables: int = 3
    # How long a number's settings (stopped, language, ...) are kept after its last change: a number that plays
    # nothing, and one that has joined a table.
    sms_stranger_ttl_seconds: int = 7 * 86400
    sms_prefs_ttl_seconds: int = 400 * 86400
    # The operator's contact, in the SMS HELP reply (carriers require one): an e-mail address, a URL or a phone.
    operator_contact: str = ""

    # The longest request body the web accepts (bytes); a longer one is refused with 413 before it is read.
    max_body_bytes: int = 65536

    # Logging: the level of every process's JSON lines (ARTEMIA_LOG_LEVEL).
    log_level: str = "INFO"

    # Fault injection for the crash tests: seconds a resolution pauses between computing and committing.
    resolve_pause_seconds: float = 0.0

    # Health (/healthz): a worker whose last heartbeat is older than this is not counted (idle workers beat every
    # worker-ttl - 15 seconds, busy ones every job-monitoring-interval: 15 s and 10 s with the Procfile's numbers),
    # so a killed worker shows within this many seconds; every queue needs a worker of its own.
    health_worker_stale_seconds: int = 40
    health_min_workers: int = 1
    # Outbox backlog: deliveries waiting in the send queue, and the age of the oldest one.
    health_outbox_max: int = 1000
    health_outbox_max_age_seconds: int = 300
    # A game whose due time (deadline, follow-up check) passed longer ago than this is overdue.
    health_overdue_seconds: int = 300
    # /healthz computes its answer at most once per this many seconds per web process (pollers cost it nothing more).
    health_cache_seconds: float = 2.0
    # The operator's token: /metrics, and the detail of /healthz (its reasons and checks), answer only a request
    # with "Authorization: Bearer <token>". Unset: /metrics is off and /healthz says only ok or not.
    ops_token: str | None = None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def deadline_seconds(choice: str | int, minimum: int) -> int:
    """Seconds per window for a preset name ("live", "fast", "daily") or a custom number of seconds."""
    if isinstance(choice, str) and not choice.isdigit():
        if choice not in DEADLINE_PRESETS:
            raise ValueError(f"unknown deadline preset {choice!r}; use one of {', '.join(DEADLINE_PRESETS)}")
        seconds = DEADLINE_PRESETS[choice]
    else:
        seconds = int(choice)
    return max(seconds, minimum)
