"""The operator's command (service.admin) on fakeredis, and once through ``main`` on the test redis-server."""

import io
import json
import os
from argparse import Namespace

import pytest
import redis
from pipeline_support import Clock, make_ctx, run_jobs, table

from service import admin
from service.game import Game
from service.pipeline import cancelling, ingest
from service.pipeline.botplay import bot_answer
from service.pipeline.resolution import start_game
from service.store import keys

CONFIG = {"players": 3, "seed": 4, "side": 1, "expert": False}


@pytest.fixture
def ctx():
    return make_ctx(clock=Clock())


def human_game(ctx, game_id="adm1", group="grp"):
    start_game(ctx, game_id, CONFIG, table(3, humans=[0, 1, 2], group=group, deadline=600))
    run_jobs(ctx)
    return ctx.store.load(game_id)


def answer(ctx, game_id, seat):
    snap = ctx.store.load(game_id)
    actions = bot_answer(Game.from_json(snap.json), seat)
    return ingest.submit(ctx, game_id, seat, actions, snap.window, f"d{snap.window}-{seat}")


def test_games_and_show_tell_who_answered_never_what(ctx):
    snap = human_game(ctx)
    seat = sorted(ctx.store.expected("adm1"))[0]
    assert answer(ctx, "adm1", seat).status.value in ("ACCEPTED", "RESOLVE")
    games = admin.list_games(ctx)
    assert [(g["game"], g["status"], g["players"]) for g in games] == [("adm1", "collecting", 3)]
    shown = admin.describe(ctx, "adm1")
    assert shown["window"] == snap.window and shown["answered"] == [seat]
    assert shown["public_view"] == Game.from_json(snap.json).public_view()
    assert shown["resolution_log"] and shown["players"]["0"]["name"] == "P0"
    stored = json.dumps(ctx.store.answers("adm1")[seat])
    assert stored not in json.dumps(shown)  # the answer itself is not shown
    with pytest.raises(admin.AdminError):
        admin.describe(ctx, "nope")


def test_force_resolve_auto_plays_the_missing_seats_like_a_deadline(ctx):
    snap = human_game(ctx)
    asked = sorted(ctx.store.expected("adm1"))
    answer(ctx, "adm1", asked[0])
    with pytest.raises(admin.AdminError):
        admin.force_resolve(ctx, "adm1", window=snap.window + 1)
    assert admin.force_resolve(ctx, "adm1", window=snap.window) == "resolved"
    after = ctx.store.load("adm1")
    assert after.version > snap.version and after.window != snap.window
    streaks = ctx.store.streaks("adm1")
    assert asked[0] not in streaks and all(streaks.get(s) == 1 for s in asked[1:])


def test_force_resolve_takes_a_window_stuck_in_resolving(ctx):
    snap = human_game(ctx)
    for seat in sorted(ctx.store.expected("adm1")):
        answer(ctx, "adm1", seat)
    ctx.queue.empty()  # the resolution job is lost
    assert ctx.store.load("adm1").status == "resolving"
    assert admin.force_resolve(ctx, "adm1") == "resolved"
    assert ctx.store.load("adm1").version > snap.version


def test_cancel_ends_the_game_tells_the_table_and_refuses_later_answers(ctx):
    snap = human_game(ctx)
    before = len(ctx.sender.sent())
    assert admin.cancel(ctx, "adm1", reason="test") == "cancelled"
    after = ctx.store.load("adm1")
    assert after.status == "over" and after.window is None
    assert ctx.store.expected("adm1") == set() and ctx.store.answers("adm1") == {}
    # no deadline will fire: the game is due only to be compacted once its last messages are out
    assert ctx.store.redis.zscore("artemia:due", "adm1") == ctx.clock() + ctx.settings.finished_compact_after_seconds
    game = Game.from_json(after.json)
    seat = game.waiting_for()[0]
    refused = ingest.submit(ctx, "adm1", seat, bot_answer(game, seat), snap.window, "late")
    assert refused.status is ingest.Status.CLOSED
    run_jobs(ctx)
    told = ctx.sender.sent()[before:]
    assert [m["chat"] for m in told] == ["grp"] and "cancelled by the operator (test)" in told[0]["text"]
    assert admin.cancel(ctx, "adm1") == "over"
    assert admin.list_games(ctx)[0]["cancelled"] is True


def test_cancel_tells_each_sms_player_when_there_is_no_group(ctx):
    meta = table(2, humans=[0, 1], group=None, deadline=600)
    meta["players"]["0"]["chat"], meta["players"]["1"]["chat"] = "sms:+447600000001", "sms:+447600000002"
    start_game(ctx, "adm2", {**CONFIG, "players": 2}, meta)
    run_jobs(ctx)
    messages = cancelling.cancel_messages(ctx.store.meta("adm2"), "")
    assert [m["chat"] for m in messages] == ["sms:+447600000001", "sms:+447600000002"]


def test_a_player_cancelling_tells_the_sms_players_by_name_and_the_group_by_its_reply(ctx):
    meta = table(3, humans=[0, 1, 2], group="-100777", deadline=600)
    meta["players"]["2"]["chat"], meta["players"]["2"]["lang"] = "sms:+447600000003", "cs"
    start_game(ctx, "adm3", CONFIG, meta)
    run_jobs(ctx)
    assert cancelling.cancel(ctx, "adm3", by="Anna", told_already="-100777") == "cancelled"
    batch = [ctx.store.message("adm3", "cancel", i) for i in range(ctx.store.batch_size("adm3", "cancel"))]
    assert [(m["chat"], m["text"]) for m in batch if not m.get("slot")] == [
        ("sms:+447600000003", "Anna zrušil(a) tuto hru Nejsme tu sami. Díky za hru.")
    ]
    # the group's living status message no longer waits for anyone: it says the game was cancelled
    assert [(m["chat"], m["slot"], m["text"]) for m in batch if m.get("slot")] == [
        ("-100777", "adm3:s0", "🚫 Anna cancelled this game of Not Alone. Thank you for playing.")
    ]
    assert cancelling.cancel(ctx, "adm3", by="Anna") == "over"
    with pytest.raises(cancelling.NoSuchGame):
        cancelling.cancel(ctx, "nope")


def test_export_replays_to_the_stored_game(ctx):
    human_game(ctx)
    for _ in range(3):  # a few windows answered by the seats' bots
        for seat in sorted(ctx.store.expected("adm1") - set(ctx.store.answers("adm1"))):
            answer(ctx, "adm1", seat)
        run_jobs(ctx)
    text, complete = admin.export(ctx, "adm1")
    assert complete, f"the commits kept no action log ({{g:G}}:actions) to export:\n{text}"
    assert text.startswith("# game adm1") and "hidden" in text.splitlines()[1]
    moves = [line for line in text.splitlines() if line and not line.startswith("#")][1:]  # after the config
    assert moves, text
    assert admin.check_export(ctx, "adm1", text)


def test_export_without_an_action_log_says_so_and_keeps_the_config(ctx):
    human_game(ctx)
    ctx.store.redis.delete(keys.actions("adm1"))
    text, complete = admin.export(ctx, "adm1")
    assert not complete and "no action log is stored" in text
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert json.loads(body[0]) == {"players": 3, "seed": 4, "side": 1, "expert": False, "secrecy": "strict"}
    assert len(body) == 1


def test_run_prints_and_health_fails_without_workers(ctx, capsys):
    human_game(ctx)
    assert admin.run(ctx, Namespace(command="games", json=True)) == 0
    assert json.loads(capsys.readouterr().out)[0]["game"] == "adm1"
    assert admin.run(ctx, Namespace(command="show", game="adm1", json=False)) == 0
    assert "game adm1: collecting" in capsys.readouterr().out
    assert admin.run(ctx, Namespace(command="health")) == 1
    assert "no RQ scheduler" in capsys.readouterr().out


@pytest.mark.integration
def test_main_against_the_test_redis(tmp_path, capsys, monkeypatch):
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL")
    if not url:
        pytest.fail("ARTEMIA_TEST_REDIS_URL is not set: run through tools/with-redis.sh (make test)")
    url = url.rsplit("/", 1)[0] + "/15"
    connection = redis.Redis.from_url(url)
    connection.flushdb()
    ctx = make_ctx(connection)
    human_game(ctx, "adm3")
    monkeypatch.setattr(admin.logs, "configure", lambda *a, **k: None)  # pytest keeps the logging
    assert admin.main(["--redis-url", url, "show", "adm3"]) == 0
    assert "game adm3" in capsys.readouterr().out
    assert (
        admin.main(
            [
                "--redis-url",
                url,
                "export",
                "adm3",
                "-o",
                str(tmp_path / "g.log"),
                "--snapshot",
                str(tmp_path / "g.json"),
            ]
        )
        == 0
    )
    assert (tmp_path / "g.log").read_text().startswith("# game adm3")
    assert Game.from_json((tmp_path / "g.json").read_text()).window is not None
    assert (tmp_path / "g.log").stat().st_mode & 0o777 == 0o600  # every hidden pick: the owner's only
    assert (tmp_path / "g.json").stat().st_mode & 0o777 == 0o600
    assert admin.main(["--redis-url", url, "resolve", "nope"]) == 2
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert admin.main(["--redis-url", url, "cancel", "adm3", "--quiet"]) == 1  # asked, and the answer was no
    assert admin.describe(ctx, "adm3")["status"] != "over"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nobody to answer: no
    assert admin.main(["--redis-url", url, "cancel", "adm3", "--quiet"]) == 1
    assert "not cancelled" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert admin.main(["--redis-url", url, "cancel", "adm3", "--quiet"]) == 0
    assert capsys.readouterr().out.strip().endswith("cancelled")
    assert admin.main(["--redis-url", url, "cancel", "adm3", "--quiet", "--yes"]) == 0  # --yes asks nothing
    assert capsys.readouterr().out.strip().endswith("over")
    connection.flushdb()
