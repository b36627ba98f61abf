"""Service configuration: one pydantic-settings class read from the environment only (12-factor).

`REDIS_URL` and `TELEGRAM_BOT_TOKEN` keep their conventional names; everything else is `ARTEMIA_<FIELD>`.
Deadline presets and the server-wide minimum also live here, because both the lobby (a creator picks a
preset) and the workers (clamping a stored deadline) need them.
"""

from functools import lru_cache

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEADLINE_PRESETS = {"live": 120, "fast": 3600, "daily": 86400}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTEMIA_", extra="ignore")

    redis_url: str | None = Field(None, validation_alias=AliasChoices("REDIS_URL", "ARTEMIA_REDIS_URL"))
    telegram_bot_token: str | None = Field(
        None, validation_alias=AliasChoices("TELEGRAM_BOT_TOKEN", "ARTEMIA_TELEGRAM_BOT_TOKEN")
    )

    queue_name: str = "artemia"  # resolutions, deadlines, reminders, sweeps
    send_queue_name: str = "artemia-send"  # deliveries: workers take it after the first, so sends never delay a step
    # Deadlines: no window may be shorter than this, whatever the game asked for.
    min_deadline_seconds: int = 60
    # Reminders, as fractions of the window's time still left (0.5 = half-way, 0.1 = 10% left).
    reminder_points: list[float] = [0.5, 0.1]
    # After this many deadline auto-plays in a row a seat is bot-played until its player answers again.
    autoplay_bot_after: int = 3

    # Sweeper: how often it runs, and how long a closed ("resolving") window may wait for its job.
    sweep_interval_seconds: int = 30
    resolve_grace_seconds: int = 30
    # The service counts as having been down when the sweeper's heartbeat is older than this.
    downtime_threshold_seconds: int = 120

    dedup_ttl_seconds: int = 90000  # a little over Telegram's 24 h retention of pending updates
    outbox_ttl_seconds: int = 7 * 86400
    job_failure_ttl_seconds: int = 3 * 86400

    # Send budget shared by all workers (token buckets in Redis).
    rate_global_per_second: float = 30.0
    rate_private_per_second: float = 1.0
    rate_group_per_minute: float = 20.0
    send_max_attempts: int = 8

    # Which sender delivers the outbox: "console", "recording" or "package.module:factory".
    sender: str = "console"

    # Fault injection for the crash tests: seconds a resolution pauses between computing and committing.
    resolve_pause_seconds: float = 0.0


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
