"""Structured logs: one JSON object per line, the same formatter in the web and the worker processes.

Every line has ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``msg``, ``role`` (web | worker | admin) and
``pid``, plus the ids bound for what is being done (``game``, ``window``, ``job``, ``update``, ``request``) and a
few whitelisted extras (``job_id``, ``queue``, ``status``, ``path``, ``duration_ms`` ...). Nothing else from a
record is written: RQ passes a failed job's arguments as ``extra``, and an argument may be a screen with a hand
on it, so arbitrary extras never reach the output.

What must never be logged — a token, a webhook secret, a hand, a hidden pick — is kept out at the source (log
ids, not payloads; RQ's job descriptions are switched off, see `workers.worker.OpsWorker`), and a last line of
defence masks known secrets in every line: the values of the secret settings read from the environment
(``TELEGRAM_BOT_TOKEN``, ``ARTEMIA_WEBHOOK_SECRET``, ``ARTEMIA_OPS_TOKEN``, ``TWILIO_AUTH_TOKEN``,
``TWILIO_SHARED_KEYS``, the password in ``REDIS_URL``) and anything shaped like a Telegram bot token.
``tests/test_ops_logs.py`` plays whole games and scans every line for hidden information.

Use:
    service.ops.logs.configure("worker")          # in an entry point (never on import, never in a library)
    with service.ops.logs.bind(game="g1", window=4):
        log.info("resolved")                  # -> {"msg": "resolved", "game": "g1", "window": 4, ...}

uvicorn takes the same configuration from ``deploy/logging.json`` (``--log-config``), which is
`dict_config("web")` written out (a test keeps them equal). Level: ``ARTEMIA_LOG_LEVEL`` (default INFO); the file
cannot read the environment, so the web's factory (`service.web.serve`) applies it with `set_level`.
"""

import contextlib
import contextvars
import datetime as dt
import json
import logging
import logging.config
import re
import sys
import traceback
from urllib.parse import urlsplit

from service.config import Settings, get_settings

CONTEXT_FIELDS = ("game", "window", "job", "update", "request")
EXTRA_FIELDS = (
    "job_id",
    "queue",
    "func",
    "status",
    "outcome",
    "path",
    "method",
    "duration_ms",
    "channel",
    "worker",
    "reason",
    "count",
)
_context: contextvars.ContextVar[dict] = contextvars.ContextVar("artemia_log_context", default={})
_role = {"value": ""}  # set by `configure`; a forked RQ work horse inherits it

# A Telegram bot token: "<bot id>:<35 characters>"; also masked inside URLs (".../bot<token>/sendMessage").
BOT_TOKEN = re.compile(r"\d{5,}:[A-Za-z0-9_-]{30,}")
MASK = "***"


def secrets_of(settings: Settings) -> list[str]:
    """The secret values the settings hold (to mask wherever they would appear)."""
    found = [
        settings.telegram_bot_token or "",
        settings.webhook_secret,
        settings.twilio_auth_token,
        settings.ops_token or "",
    ]
    found += [settings.redis_password or "", settings.redis_sentinel_password or ""]
    found += list(settings.twilio_shared_keys.values())
    try:
        found.append(urlsplit(settings.redis_url or "").password or "")
    except ValueError:
        pass
    return sorted({s for s in found if isinstance(s, str) and len(s) >= 4}, key=len, reverse=True)


class Redactor:
    def __init__(self, secrets: list[str] | None = None):
        self.secrets = secrets_of(get_settings()) if secrets is None else secrets

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return BOT_TOKEN.sub(MASK, text)


@contextlib.contextmanager
def bind(**ids):
    """Add ids (game, window, job, update, request) to every line logged inside the block (this thread/task)."""
    token = _context.set({**_context.get(), **{k: v for k, v in ids.items() if v is not None}})
    try:
        yield
    finally:
        _context.reset(token)


def bound() -> dict:
    return dict(_context.get())


class JsonFormatter(logging.Formatter):
    """One JSON object per line; see the module docstring for the fields."""

    def __init__(self, *args, role: str | None = None, secrets: list[str] | None = None, **kwargs):
        super().__init__()
        self.role = role
        self.redact = Redactor(secrets)

    def format(self, record: logging.LogRecord) -> str:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the line
            message = str(record.msg)
        line: dict[str, object] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": self.redact(_plain(message)),
            "role": self.role or _role["value"] or None,
            "pid": record.process,
        }
        line.update(_context.get())
        for name in CONTEXT_FIELDS + EXTRA_FIELDS:
            value = record.__dict__.get(name)
            if value is not None and name not in line:
                line[name] = value if isinstance(value, (int, float, bool)) else self.redact(_plain(str(value)))
        if record.exc_info and record.exc_info[0] is not None:
            line["exc_type"] = record.exc_info[0].__name__
            line["exc"] = self.redact("".join(traceback.format_exception(*record.exc_info)))
        return json.dumps({k: v for k, v in line.items() if v is not None}, ensure_ascii=False, default=str)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _plain(text: str) -> str:
    """Without terminal colours (RQ colours its lines when it thinks it writes to a terminal)."""
    return _ANSI.sub("", text)


def level() -> str:
    return get_settings().log_level.upper()


def dict_config(role: str, log_level: str = "INFO") -> dict:
    """The logging configuration of a process: everything to the root logger, JSON on standard error."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "service.ops.logs.JsonFormatter", "role": role}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"level": log_level, "handlers": ["stderr"]},
        "loggers": {
            name: {"level": "INFO", "handlers": [], "propagate": True}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "rq.worker", "rq.scheduler")
        },
    }


def configure(role: str, log_level: str | None = None, stream=None) -> logging.Handler:
    """Send every log record of this process to one JSON handler (standard error, or ``stream``).

    Takes over loggers that libraries set up with their own handlers (RQ's CLI, uvicorn), so that every line of
    the process has the same shape. -> the handler (tests read what it wrote)."""
    _role["value"] = role
    log_level = (log_level or level()).upper()
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(role=role))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(log_level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "rq.worker", "rq.scheduler", "rq"):
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.propagate = True
    return handler


def set_level(log_level: str) -> None:
    """Apply ``log_level`` to the root logger and the library loggers `dict_config` names."""
    log_level = log_level.upper()
    logging.getLogger().setLevel(log_level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "rq.worker", "rq.scheduler"):
        logging.getLogger(name).setLevel(log_level)


def write_uvicorn_config(path: str) -> None:
    """Write ``deploy/logging.json`` (``python -c 'import service.ops.logs as l; l.write_uvicorn_config(...)'``)."""
    with open(path, "w") as out:
        json.dump(dict_config("web"), out, indent=2)
        out.write("\n")
