"""Structured logs (service.ops.logs): the JSON shape, ids bound to a job, secrets masked, the uvicorn file in step —
and a whole game played through the real pipeline with every log line scanned for hidden information."""

import io
import json
import logging
import logging.config
import pathlib
from types import SimpleNamespace

import pytest
from pipeline_support import TELEGRAM_RATES, make_ctx, table
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from service.game import Game
from service.ops import logs, metrics
from service.ops import web as ops_web
from service.pipeline import scheduling
from service.pipeline.resolution import start_game
from workers.worker import OpsSimpleWorker

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOKEN = "7654321098:AAHfakeFAKEfakeFAKEfakeFAKEfake_123456"
SECRET = "webhook_secret_do_not_log"


@pytest.fixture
def captured(monkeypatch):
    """Every log record of the test as JSON lines (root at DEBUG), the environment holding secrets."""
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("ARTEMIA_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("REDIS_URL", "redis://:redis_password_xyz@127.0.0.1:6379/0")
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter(role="test"))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


def lines(stream) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_line_is_one_json_object_with_bound_ids_and_only_whitelisted_extras(captured):
    log = logging.getLogger("artemia.test")
    with logs.bind(game="g7", window=3):
        log.info("resolved %s", "ok", extra={"status": "resolved", "arguments": ["Your hand: Lair"]})
    log.warning("outside")
    first, second = lines(captured)
    assert first["msg"] == "resolved ok" and first["game"] == "g7" and first["window"] == 3
    assert first["level"] == "INFO" and first["logger"] == "artemia.test" and first["status"] == "resolved"
    assert first["ts"].endswith("+00:00") and first["role"] == "test"
    assert "arguments" not in first and "Lair" not in json.dumps(first)
    assert "game" not in second


def test_secrets_are_masked_even_inside_urls_and_tracebacks(captured):
    log = logging.getLogger("httpx")
    log.info("HTTP Request: POST https://api.telegram.org/bot%s/sendMessage", TOKEN)
    log.info("a foreign token 1234567:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi and secret %s", SECRET)
    try:
        raise RuntimeError(f"connect to redis://:redis_password_xyz@host failed, token {TOKEN}")
    except RuntimeError:
        log.exception("boom")
    text = captured.getvalue()
    for secret in (TOKEN, SECRET, "redis_password_xyz", "1234567:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi"):
        assert secret not in text
    assert text.count(logs.MASK) >= 5
    assert lines(captured)[-1]["exc_type"] == "RuntimeError"


def test_the_uvicorn_log_config_is_the_same_formatter():
    assert json.loads((ROOT / "deploy" / "logging.json").read_text()) == logs.dict_config("web")
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        logging.config.dictConfig(logs.dict_config("web"))  # loadable as uvicorn loads it
        formatter = root.handlers[0].formatter
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    assert isinstance(formatter, logs.JsonFormatter) and formatter.role == "web"


def test_configure_takes_over_handlers_that_libraries_installed():
    root, rq_log = logging.getLogger(), logging.getLogger("rq.worker")
    saved = (list(root.handlers), root.level, list(rq_log.handlers), rq_log.propagate)
    rq_log.addHandler(logging.StreamHandler(io.StringIO()))
    rq_log.propagate = False
    stream = io.StringIO()
    try:
        logs.configure("worker", "INFO", stream=stream)
        rq_log.info("Worker x: artemia: resolve-g1-2")
    finally:
        root.handlers[:], rq_log.handlers[:] = saved[0], saved[2]
        root.setLevel(saved[1])
        rq_log.propagate = saved[3]
    line = json.loads(stream.getvalue().splitlines()[-1])
    assert line["logger"] == "rq.worker" and line["role"] == "worker"


class ScanWorker(OpsSimpleWorker):
    take_over_logging = False  # the fixture's handler catches everything


def test_a_whole_game_logs_no_hand_no_pick_and_no_secret(captured):
    """Every seat has a private chat and is played by the bot; the game runs end to end through the real jobs,
    the outbox and the worker class of the Procfile, with the webhook middleware in front; root at DEBUG."""
    ctx = make_ctx(**TELEGRAM_RATES)  # sends that wait for their budget log it too
    meta = table(4, humans=[0, 1, 2, 3])
    meta["bots"] = [0, 1, 2, 3]
    start_game(ctx, "scan", {"players": 4, "seed": 11, "side": None, "expert": False}, meta)
    scheduling.sweep(ctx, ctx.clock())
    worker = ScanWorker(ctx.queues, connection=ctx.store.redis, serializer=ctx.queue.serializer)
    for _ in range(100):
        worker.work(burst=True, logging_level="DEBUG")
        if ctx.store.load("scan").status == "over":
            break
    worker.work(burst=True, logging_level="DEBUG")
    app = Starlette(
        routes=[Route("/telegram/webhook", lambda request: Response(status_code=403), methods=["POST"])],
        middleware=[Middleware(ops_web.MetricsMiddleware)],
    )
    app.state.env = SimpleNamespace(ctx=ctx)
    app.state.counts = metrics.BufferedCounts()
    TestClient(app).post(
        "/telegram/webhook",
        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
        content=json.dumps({"update_id": 1, "message": {"text": "play 3"}}),
    )
    game = Game.from_json(ctx.store.load("scan").json)
    assert game.is_over

    text = captured.getvalue()
    records = lines(captured)
    assert len(records) > 20
    assert any(r.get("game") == "scan" and str(r.get("job", "")).startswith("deliver-") for r in records), "ids bound"
    assert any(r["logger"] == "rq.worker" for r in records) and any(r["logger"] == "service.web" for r in records)
    for secret in (TOKEN, SECRET, "redis_password_xyz"):
        assert secret not in text
    # What only one seat may see: every private message (hands, Hunt cards, picks) line by line.
    private = [m for m in ctx.sender.sent() if m["chat"] != meta["group"]]
    assert private, "the game sent private messages"
    for message in private:
        for line in message["text"].splitlines():
            if len(line.strip()) >= 12:
                assert line.strip() not in text, f"a private line reached the logs: {line!r}"
        for row in message["buttons"] or []:
            for button in row:
                assert button.get("data", "\0") not in text
    # Engine state and answers never appear either.
    for marker in (
        '"hand"',
        '"survival"',
        '"drawn_to_choose"',
        '"type": "play"',
        '"type":"play"',
        '"tokens"',
        "Your hand",
    ):
        assert marker not in text, marker
    for seat in range(1, 4):
        assert json.dumps(game.s["players"][seat]["hand"]) not in text


def test_the_web_factory_applies_artemia_log_level(monkeypatch):
    """deploy/logging.json fixes INFO; `service.web.serve` (the production factory) applies ARTEMIA_LOG_LEVEL."""
    from service import web
    from service.config import get_settings

    monkeypatch.setenv("ARTEMIA_LOG_LEVEL", "warning")
    monkeypatch.setattr(web, "create_app", lambda: "app")
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access")
    saved = {name: logging.getLogger(name).level for name in names}
    get_settings.cache_clear()
    try:
        assert web.serve() == "app"
        assert {name: logging.getLogger(name).level for name in names} == dict.fromkeys(names, logging.WARNING)
    finally:
        get_settings.cache_clear()
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)
