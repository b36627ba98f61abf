"""Losing the Redis primary mid-game, on the Sentinel setup of deploy/sentinel/ as its local-up.sh brings it up
(the production templates: passwords, min-replicas-to-write, AOF; tests/sentinel_cluster.py `DeployedCluster`): the Procfile's processes reach Redis through three sentinels, every answer
is acknowledged only once the replica has it (WAIT), the primary is SIGKILLed after a few windows, the sentinels
promote the replica, the old primary's machine comes back (the sentinels make it the new replica) — and the game
finishes with every acknowledged answer applied and no window resolved twice.

Players are Telegram clients as in test_procfile_real: they press complete answers on the decision messages the
workers delivered to the fake Bot API and retry an update until it gets a 2xx, as Telegram does. The time without
service is measured from the kill to the first answer acknowledged after it, and printed.
"""

import random
import time

import pytest

from service import admin, wiring
from service.channels import ui
from service.config import Settings
from service.game import Game
from service.store import connect
from tests.fake_bot_api import FakeBotAPI, free_port, serve
from tests.integration.test_procfile_real import (
    USERS,
    Proc,
    Telegram,
    begin_two_player_game,
    decision_message,
    healthy,
    lost_answers,
    process_env,
    random_answer,
)
from tests.real_redis import wait_for
from tests.sentinel_cluster import SERVICE, Cluster, DeployedCluster

pytestmark = pytest.mark.integration


@pytest.mark.slow(
    reason="a whole game through the Procfile's processes across a failover: the sentinels' down-after and "
    "promotion, and with one replica the wait for the old primary to come back as the new replica"
)
@pytest.mark.parametrize("replicas", [1, 2])
def test_the_primary_dies_mid_game_and_no_acknowledged_answer_is_lost(tmp_path, replicas):
    """With one replica, answers wait for the old primary's machine to come back as the new replica; with two,
    the other replica confirms as soon as it follows the promoted one."""
    api = FakeBotAPI()
    with DeployedCluster(replicas=replicas) as cluster, serve(api) as bot_base_url:
        sentinels = {
            "ARTEMIA_REDIS_SENTINELS": cluster.sentinels_setting(),
            "ARTEMIA_REDIS_SENTINEL_SERVICE": SERVICE,
            "ARTEMIA_REDIS_ACK_REPLICAS": "1",
            "ARTEMIA_REDIS_ACK_TIMEOUT_MS": "500",
            "ARTEMIA_REDIS_PASSWORD": cluster.password,
            "ARTEMIA_REDIS_SENTINEL_PASSWORD": cluster.sentinel_password,
        }
        env = process_env(api, bot_base_url, sentinels)
        port = free_port()
        web = Proc("web", env, port, tmp_path / "web.log").start()
        worker = Proc("worker", env, port + 100, tmp_path / "worker.log", count=2).start()
        settings = Settings(
            redis_sentinels=cluster.sentinels_setting(),
            redis_sentinel_service=SERVICE,
            redis_password=cluster.password,
            redis_sentinel_password=cluster.sentinel_password,
        )
        try:
            figures = play(cluster, api, f"http://127.0.0.1:{port}", settings)
        except BaseException:
            print("".join(p.log.read_text() for p in (web, worker) if p.log.exists())[-8000:])
            raise
        finally:
            web.stop()
            worker.stop()
    assert figures["promoted"] is not None and figures["down"] is not None  # the primary died mid-game
    print(
        f"failover game, {replicas} replica(s): "
        "{windows} windows, {answers} acknowledged answers, promotion after {promoted:.1f} s, "
        "without service {down:.1f} s (kill -> first answer acknowledged again), {retries} retried posts".format(
            **figures
        )
    )


def play(cluster: Cluster, api: FakeBotAPI, base: str, settings: Settings) -> dict:
    wait_for(lambda: healthy(base), 60, "/healthz to say 200")
    tg = Telegram(base + "/telegram/webhook")
    begin_two_player_game(tg)
    ctx = wiring.build(connect.connect(settings), settings)
    [listed] = admin.list_games(ctx)
    game_id = listed["game"]
    user_of = {int(seat): int(p["user"]) - 5000 for seat, p in ctx.store.meta(game_id)["players"].items()}

    rnd = random.Random(11)
    acknowledged: dict[tuple[int, int], list[dict]] = {}
    windows, killed_at, promoted, first_ack_after = 0, None, None, None
    killed_window = None
    while True:
        snap = wait_for(lambda: ctx.store.load(game_id), 60, "the game's snapshot (Redis back)")
        if snap.status == "over":
            break
        if snap.status != "collecting":
            wait_for(lambda: ctx.store.load(game_id).status != "resolving", 180, "the resolution to finish")
            continue
        game = Game.from_json(snap.json)
        for seat in sorted(ctx.store.expected(game_id) - set(ctx.store.answers(game_id))):
            user = user_of[seat]
            message_id = wait_for(
                lambda: decision_message(api, USERS[user]["id"], game_id, snap.window),
                120,  # on a loaded machine a delivery cut off by the failover is retried after the promotion
                f"the decision message of seat {seat} for window {snap.window}",
            )
            if windows == 3 and killed_at is None:  # the primary's machine is lost mid-window
                old = cluster.primary_port
                cluster.kill(old)
                killed_at, killed_window = time.monotonic(), snap.window
                cluster.primary_port = cluster.wait_failover(old)
                promoted = time.monotonic() - killed_at
                cluster.restart_as_node(old)  # its machine comes back; the sentinels make it a replica
            chosen, actions = random_answer(game, seat, rnd)
            reply = tg.press(user, ui.Choice(game_id, snap.window, seat, chosen).data(), message_id)
            # "✅ Locked in: <the answer>"; a press retried after a 5xx is known by its query id: "Locked in." even
            # when its window closed or was resolved meanwhile (tests/test_telegram_redelivered_press.py); None:
            # the update was handled
            assert reply is None or reply.get("text", "").startswith(("✅ Locked in: ", "Locked in.")), reply
            acknowledged[snap.window, seat] = actions
            if killed_at is not None and first_ack_after is None:
                first_ack_after = time.monotonic() - killed_at
        windows += 1
        wait_for(lambda: ctx.store.load(game_id).window != snap.window, 180, f"window {snap.window} to resolve")

    assert killed_at is not None, f"the game ended after {windows} windows, before the primary was killed"
    resolved = [int(entry.split(":")[1]) for entry in ctx.store.resolution_log(game_id)[1:]]
    assert len(resolved) == len(set(resolved)), "a window was resolved twice"
    assert {window for window, _ in acknowledged} <= set(resolved), "a window was lost"
    lost = lost_answers(ctx, game_id, acknowledged)
    assert lost == [], f"acknowledged answers lost: {lost}"
    streaks = ctx.store.streaks(game_id)
    assert streaks == {}, (
        f"no seat was auto-played: every window closed by its answers; streaks {streaks}, answers acknowledged "
        f"{sorted((w, s) for w, s in acknowledged if s in streaks)[-6:]}, killed in window {killed_window}, "
        f"resolutions {ctx.store.resolution_log(game_id)[-8:]}"
    )
    return {
        "windows": windows,
        "answers": len(acknowledged),
        "promoted": promoted,
        "down": first_ack_after,
        "retries": tg.retries,
    }
