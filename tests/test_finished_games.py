"""A finished game is compacted once its last messages are out: only its snapshot hash (without the engine JSON,
with the action log compressed) and its meta stay, until the retention ends; everything that reads a finished
game reads the compacted form the same."""

import json

import pytest
from pipeline_support import CONFIG, Clock, answer_all, make_ctx, run_jobs, table
from starlette.testclient import TestClient

from service import admin
from service.channels.telegram import inbound as telegram
from service.channels.telegram.tables import Tables
from service.pipeline import export, records, upkeep, watch
from service.pipeline.resolution import start_game
from service.store import keys
from service.web import create_app

G = "fin1"
DAY = 86400


def game_keys(ctx, game_id: str = G) -> set[str]:
    return {key.decode().split("}:", 1)[1] for key in ctx.store.redis.scan_iter(match="{g:" + game_id + "}*")}


def play_to_the_end(ctx, game_id: str = G) -> None:
    for _ in range(300):
        if ctx.store.load(game_id).status == "over":
            return
        answer_all(ctx, game_id)
    raise AssertionError("the game did not end")


def sweep_at(ctx, clock: Clock, when: float) -> dict[str, int]:
    clock.advance(when - clock())
    return upkeep.sweep(ctx)


@pytest.fixture(scope="module")
def played():
    """A 3-player game of two people and a bot in a group, played to its end once; its messages delivered."""
    clock = Clock()
    ctx = make_ctx(clock=clock, public_url="https://watch.example.org")
    start_game(ctx, G, {**CONFIG, "players": 3, "seed": 5}, table(3, humans=[1, 2]))
    run_jobs(ctx)
    play_to_the_end(ctx)
    return ctx, clock()


@pytest.fixture
def over(played):
    """A copy of the played game's Redis for each test, at the moment it ended."""
    source, now = played
    clock = Clock(now)
    ctx = make_ctx(clock=clock, public_url="https://watch.example.org")
    for key in source.store.redis.scan_iter():
        ctx.store.redis.restore(key, max(0, source.store.redis.pttl(key)), source.store.redis.dump(key))
    return ctx, clock


def test_a_finished_game_keeps_only_its_snapshot_and_meta_and_reads_back_the_same(over):
    ctx, clock = over
    store = ctx.store
    before = store.load(G)
    log, frames = export.game_log(store, G), [f.view for f in watch.history(store, G)]
    record, history = records.record(ctx, "user1"), records.history(ctx, "grp")
    assert {"actions", "log", "tally"} <= game_keys(ctx)  # what it kept while it ran

    ended = before.opened
    assert sweep_at(ctx, clock, ended + ctx.settings.finished_compact_after_seconds - 1).get("compacted") is None
    assert sweep_at(ctx, clock, ended + ctx.settings.finished_compact_after_seconds) == {"compacted": 1}

    assert game_keys(ctx) == {"snap", "meta"}
    raw = store.redis.hgetall(keys.snap(G))
    assert b"json" not in raw and b"actions.z" in raw and b"json.z" not in raw  # the replay gives the state back
    after = store.load(G)
    assert after.compacted and after.json == before.json and after.status == "over"
    assert (after.version, after.followed, after.opened) == (before.version, before.followed, before.opened)
    watch._cache.clear()
    assert export.game_log(store, G) == log
    assert [f.view for f in watch.history(store, G)] == frames
    assert records.record(ctx, "user1") == record and records.history(ctx, "grp") == history
    assert admin.describe(ctx, G)["compacted"] is True
    text, complete = admin.export(ctx, G)
    assert complete and text.endswith(log)
    # kept for the retention from when it ended, with the names that point to it
    retention = ctx.settings.finished_retention_days * DAY
    for key in (keys.snap(G), keys.meta(G), keys.watch(store.meta(G)["watch"]), keys.chat_game("grp")):
        assert abs(store.redis.ttl(key) - (ended + retention - clock())) <= 2
    assert not store.redis.sismember(keys.RECORDED, G)
    assert upkeep.check_game(ctx, G) == "done" and store.redis.zscore(keys.DUE, G) is None


def test_the_watch_page_of_a_compacted_game_is_the_same_page(over):
    ctx, clock = over
    token = ctx.store.meta(G)["watch"]
    client = TestClient(create_app(telegram.Env(ctx, Tables(ctx.store.redis), "bot"), "secret"))
    pages = [client.get(f"/w/{token}/data.json?step={n}").json() for n in (0, 5, 10)]
    sweep_at(ctx, clock, ctx.store.load(G).opened + ctx.settings.finished_compact_after_seconds)
    watch._cache.clear()
    assert ctx.store.load(G).compacted
    assert [client.get(f"/w/{token}/data.json?step={n}").json() for n in (0, 5, 10)] == pages


def test_a_game_whose_messages_still_wait_is_compacted_only_once_they_are_out(over):
    ctx, clock = over
    ctx.store.redis.rpush(keys.lane(G, "grp"), "v99|0|status|")  # the group's budget still holds a message
    when = ctx.store.load(G).opened + ctx.settings.finished_compact_after_seconds
    assert sweep_at(ctx, clock, when) == {"waiting": 1}
    assert "actions" in game_keys(ctx) and ctx.store.redis.zscore(keys.DUE, G) == pytest.approx(when + 60)
    ctx.store.redis.delete(keys.lane(G, "grp"))
    assert sweep_at(ctx, clock, when + 60) == {"compacted": 1}


def test_a_finished_game_due_early_for_another_reason_is_compacted_only_at_its_time(over):
    ctx, clock = over
    ended = ctx.store.load(G).opened
    when = ended + ctx.settings.finished_compact_after_seconds
    ctx.store.set_due(G, ended + 3)  # a window's grace, say, still due when the game ended
    assert sweep_at(ctx, clock, ended + 3) == {"early": 1}
    assert "actions" in game_keys(ctx) and ctx.store.redis.zscore(keys.DUE, G) == pytest.approx(when)
    assert sweep_at(ctx, clock, when) == {"compacted": 1}


def test_a_state_the_replay_would_not_give_back_is_kept_compressed(over):
    """A game stored by an older engine may replay to another state: then its JSON itself is kept."""
    ctx, clock = over
    stored = json.loads(ctx.store.load(G).json)
    stored["turn"] += 1  # not what its actions give
    ctx.store.redis.hset(keys.snap(G), "json", json.dumps(stored))
    expected = ctx.store.load(G).json
    assert ctx.store.compact(G, clock(), 365 * DAY) == "compacted"
    assert b"json.z" in ctx.store.redis.hgetall(keys.snap(G))
    assert ctx.store.load(G).json == expected


def test_forgetme_works_on_a_compacted_game_and_a_deleted_game_leaves_the_players_index(over):
    ctx, clock = over
    assert ctx.store.compact(G, clock(), 365 * DAY) == "compacted"
    assert records.forget(ctx, "user2") == [G]
    assert ctx.store.meta(G)["players"]["2"]["name"] == records.FORGOTTEN
    assert ctx.store.redis.ttl(keys.meta(G)) > 300 * DAY  # the rewrite kept its retention
    ctx.store.redis.delete(keys.snap(G), keys.meta(G))  # the retention ran out
    assert ctx.store.games_of_user("user1") == []
    assert ctx.store.redis.zcard(keys.player_games("user1")) == 0


def test_the_migration_compacts_games_finished_before_compaction_and_makes_recent_ones_due(over):
    ctx, clock = over
    start_game(ctx, "fin2", {**CONFIG, "players": 3, "seed": 3}, table(3, humans=[], group=None))
    run_jobs(ctx)
    for game_id in (G, "fin2"):
        ctx.store.drop_due(game_id)  # as games ended before this change: nobody looks at them again
    ctx.store.redis.hset(keys.snap("fin2"), "opened", clock() + 3600)  # ended later (its compaction is ahead)
    clock.advance(ctx.settings.finished_compact_after_seconds)
    assert upkeep.compact_stored(ctx) == {"compacted": 1, "due": 1}
    assert ctx.store.load(G).compacted and not ctx.store.load("fin2").compacted
    assert ctx.store.redis.zscore(keys.DUE, "fin2") == pytest.approx(clock() + 3600)
    assert upkeep.compact_stored(ctx) == {"due": 1}  # again: nothing more to do
