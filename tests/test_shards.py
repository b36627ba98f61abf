"""Games on several Redis shards (``ARTEMIA_REDIS_SHARDS``), on fakeredis: the routing of a game id to its shard,
and whole games played through the pipeline leaving each game's keys on its own shard and only global keys on the
index. (tests/integration/test_shards_real.py plays them on real redis-servers with real workers.)"""

import collections
import json

import fakeredis
import pytest
from pipeline_support import CONFIG, Clock, answer_all, make_ctx, run_jobs, table
from shard_support import ids_on, placement
from test_ops import make_healthy

from service.channels import ui
from service.channels.telegram.handling import Env
from service.channels.telegram.inbound import handle
from service.channels.telegram.tables import Tables
from service.channels.telegram.update import parse_update
from service.config import Settings
from service.game import Game
from service.ops import health
from service.pipeline import cancelling, scheduling, upkeep
from service.pipeline.lobby import new_code
from service.pipeline.resolution import start_game
from service.store import connect, keys


def servers(n: int) -> list[fakeredis.FakeRedis]:
    return [fakeredis.FakeRedis(server=fakeredis.FakeServer()) for _ in range(n)]


def test_a_game_id_has_one_shard_for_good_and_codes_spread_evenly():
    codes = [new_code() for _ in range(4000)]
    assert all(keys.shard_of(code, 1) == 0 for code in codes)
    assert [keys.shard_of(code, 3) for code in codes] == [keys.shard_of(code, 3) for code in codes]
    spread = collections.Counter(keys.shard_of(code, 2) for code in codes)
    assert set(spread) == {0, 1} and min(spread.values()) > 0.45 * len(codes)
    # CRC-32, the same in every process and every version (Python's hash() of a str is salted per process)
    assert [keys.shard_of(code, n) for code in ("AB3X", "K7QP") for n in (2, 3)] == [0, 1, 0, 2]


def test_the_shard_settings():
    settings = Settings(redis_url="redis://index/0", redis_shards=" redis://a/0 , redis://b/1,", shard=1)
    assert connect.shard_urls(settings) == ["redis://a/0", "redis://b/1"]
    assert connect.rq_settings(settings) == {"REDIS_URL": "redis://b/1"}  # a worker's RQ connection: its shard
    with pytest.raises(ValueError, match="ARTEMIA_SHARD=2"):
        connect.rq_settings(settings.model_copy(update={"shard": 2}))
    assert connect.shard_urls(Settings(redis_url="redis://index/0")) == []
    assert connect.rq_settings(Settings(redis_url="redis://index/0")) == {"REDIS_URL": "redis://index/0"}


def test_a_games_jobs_go_to_the_queues_of_its_shard():
    index, *shards = servers(3)
    ctx = make_ctx(index, shards=shards)
    first, second = ids_on(0, 2, 1)[0], ids_on(1, 2, 1)[0]
    assert ctx.at(first) is ctx and ctx.at(second) is ctx.on(1) and ctx.on(1).at(first) is ctx
    assert ctx.on(1).queue.connection is shards[1] and ctx.store.at(second) is shards[1]
    scheduling.resolve(ctx, second, 1)
    scheduling.sweep(ctx.on(1), 1e9)
    assert [job.func_name for job in ctx.on(1).queue.get_jobs()] == ["workers.jobs.resolve_ready"]
    assert shards[1].zrange(keys.READY, 0, -1) == [f"{second} 1".encode()] and ctx.queue.count == 0
    assert not index.keys("rq:*")


def play(ctx, game_ids) -> None:
    """Every game to its end, answered by the bots' moves."""
    for _ in range(400):
        open_games = [g for g in game_ids if ctx.store.load(g).status != "over"]
        if not open_games:
            return
        for g in open_games:
            answer_all(ctx, g)
    raise AssertionError("games did not end")


def test_games_played_on_two_shards_keep_every_key_in_its_place():
    index, *shards = servers(3)
    clock = Clock()
    ctx = make_ctx(index, clock=clock, shards=shards)
    games = ids_on(0, 2, 2) + ids_on(1, 2, 2)
    for i, g in enumerate(games):
        start_game(ctx, g, {**CONFIG, "seed": i}, table(3, humans=[1, 2], deadline=60))
    run_jobs(ctx)
    assert {g for g in games if shards[0].exists(keys.snap(g))} == set(games[:2])
    assert {g for g in games if shards[1].exists(keys.snap(g))} == set(games[2:])
    # the first windows close at their deadline: each shard's sweeper finds its own games in its own due set
    clock.advance(61)
    assert ctx.store.due_games(clock(), shard=0) == games[:2] and ctx.store.due_games(clock(), shard=1) == games[2:]
    upkeep.sweep(ctx.on(1))
    run_jobs(ctx)
    versions = [ctx.store.load(g).version for g in games]
    assert versions[:2] == [1, 1] and min(versions[2:]) > 1  # shard 0's sweeper has not run
    assert ctx.store.heartbeat_age(clock(), 1) < 60 and ctx.store.heartbeat_age(clock(), 0) == float("inf")
    play(ctx, games)
    cancelled = ids_on(1, 2, 3)[2]
    start_game(ctx, cancelled, CONFIG, table(3, humans=[1], group="grp-c"))
    assert ctx.store.game_of_chat("grp-c") == cancelled
    cancelling.cancel(ctx, cancelled, "test")
    run_jobs(ctx)
    assert placement(index, shards) == []
    assert {g for g, _ in ctx.store.games_of_user("user1")} == {*games, cancelled}  # the index names them all
    assert index.exists(keys.watch(ctx.store.meta(games[3])["watch"]))
    assert ctx.store.action_log(games[3])[0] is not None and not index.exists(keys.actions(games[3]))


def test_a_seat_changes_hands_on_a_shard_with_its_offer_and_index_on_the_index():
    index, *shards = servers(3)
    ctx = make_ctx(index, shards=shards)
    g = ids_on(1, 2, 1)[0]
    start_game(ctx, g, CONFIG, table(3, humans=[1, 2]))
    assert ctx.store.offer_seat("tok", g, 2, "user2", 600)
    assert ctx.store.seat_offer("tok") == (g, 2) and index.exists(keys.standin("tok"))
    stand_in = {"name": "S", "chat": "chatS", "user": "userS"}
    assert ctx.store.swap_seat(g, 2, stand_in, 1.0, token="tok")[0] == "OK"
    assert ctx.store.swap_seat(g, 2, {**stand_in, "user": "userT"}, 1.0, token="tok") == ("GONE", {})
    assert not index.exists(keys.standin("tok"))
    assert ctx.store.games_of_user("userS") == [(g, 2)] and ctx.store.games_of_user("user2") == []
    assert ctx.store.meta(g)["players"]["2"]["user"] == "userS"
    assert placement(index, shards) == []


def test_health_checks_every_shard_and_the_gauges_tell_the_shards_apart():
    index, *shards = servers(3)
    ctx = make_ctx(index, shards=shards)
    make_healthy(ctx)  # shard 0's worker, scheduler and sweeper; shard 1 has none
    result = health.health_of(index, ctx.store.shards, ctx.settings)
    assert not result["ok"] and result["reasons"] and all(r.startswith("shard 1: ") for r in result["reasons"])
    make_healthy(ctx.on(1))
    assert health.health_of(index, ctx.store.shards, ctx.settings)["ok"]
    ctx.send_queue.enqueue("workers.jobs.deliver", args=("g", "v1"))
    ctx.on(1).send_queue.enqueue("workers.jobs.deliver", args=("h", "v1"))
    ctx.on(1).send_queue.enqueue("workers.jobs.deliver", args=("h", "v2"))
    body = health.render_metrics(index, ctx.settings, ctx.store.shards).decode()
    assert 'artemia_outbox_depth{shard="0"} 1.0' in body and 'artemia_outbox_depth{shard="1"} 2.0' in body
    assert 'artemia_workers{shard="0"} 1.0' in body and 'artemia_workers{shard="1"} 1.0' in body
    shards[1].connection_pool.connection_kwargs["server"].connected = False
    assert health.health_of(index, ctx.store.shards, ctx.settings)["reasons"][0].startswith(
        "shard 1: redis unreachable"
    )


def test_a_telegram_press_on_a_game_of_another_shard_reads_the_game_there():
    """The press's first round trip (its dedup, flood token, language: the index's keys) cannot read a game kept on a
    shard of its own: the handler reads it there, and the answer is stored there."""
    index, *shards = servers(3)
    ctx = make_ctx(index, clock=Clock(), shards=shards)
    game_id = ids_on(1, 2, 1)[0]
    players = table(3, humans=[1, 2])
    for seat in (1, 2):
        players["players"][str(seat)].update(chat=str(5000 + seat), user=str(5000 + seat))
    start_game(ctx, game_id, {**CONFIG, "seed": 3}, players)
    run_jobs(ctx)
    snap = ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    seat = next(s for s in game.waiting_for() if s in (1, 2))
    choice = ui.Choice(game_id, snap.window, seat)
    while not ui.follow(game, seat, choice).complete:
        choice = choice.choose(0)
    user = {"id": 5000 + seat, "is_bot": False, "first_name": "P", "language_code": "en"}
    update = parse_update(
        json.dumps(
            {
                "update_id": 77,
                "callback_query": {
                    "id": "q77",
                    "from": user,
                    "chat_instance": "c",
                    "data": choice.data(),
                    "message": {"message_id": 5, "date": 1, "chat": {"id": 5000 + seat, "type": "private"}},
                },
            }
        )
    )
    env = Env(ctx, Tables(index), "artemia_bot")
    assert handle(update, env)["text"].startswith("✅ Locked in: ")
    assert seat in ctx.store.answers(game_id) and shards[1].exists(keys.answers(game_id))
    assert index.exists(keys.telegram_started(str(5000 + seat)))
    assert not index.exists(keys.telegram_update(77))  # a press is not marked: its handling is idempotent
    answers = ctx.store.answers(game_id)
    assert handle(update, env)["text"].startswith("✅ Locked in: ")  # redelivered: the same reply, nothing changed
    assert ctx.store.answers(game_id) == answers
    assert placement(index, shards) == []
