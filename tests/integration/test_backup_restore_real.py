"""A backup taken in the middle of 20 running games, restored into a fresh redis-server: every game finishes, every
answer acknowledged before the backup was taken is applied in its window, and a seat whose answer came after it is
asked again (not lost silently).

Real processes throughout: two redis-servers (the one that is lost, and the fresh one), `rq worker` processes on
each, and ``python -m service.admin backup`` / ``restore`` as an operator runs them. Players answer through the
ingest (as a webhook does) while the workers resolve; deadlines are ten minutes long, so every window must close
by its answers: an answer lost without the seat being asked again would stall its game.
"""

import json
import subprocess
import sys
import threading
import time

import pytest
from pipeline_support import CONFIG, table

from service.game import Game
from service.game.engine import new_game
from service.pipeline import ingest
from service.pipeline.botplay import bot_answer
from service.pipeline.ingest import Status
from service.pipeline.resolution import start_game
from tests.integration.conftest import ROOT
from tests.integration.test_procfile_real import lost_answers
from tests.real_redis import Server, wait_for

pytestmark = pytest.mark.integration

GAMES = 20
PROCFILE_WORKER = "workers.worker.OpsSimpleWorker"  # the Procfile's: it seeds the sweeper chain when it starts


def chat(game_id: str, seat: int) -> str:
    return f"c-{game_id}-{seat}"


def answered_in(ctx, game_id: str) -> set[tuple[int, int]]:
    """(window, seat) of every action the game applied, from its action log replayed."""
    config, applied = ctx.store.action_log(game_id)
    game, out = new_game(config), set()
    for seat, action in applied:
        out.add((game.window["id"], seat))
        game.apply(seat, action)
    return out


class Players(threading.Thread):
    """Answers every open window of the games for their human seats (the bots' answers come from the workers),
    noting each acknowledged answer with the time it was acknowledged."""

    def __init__(self, ctx, games: list[str]):
        super().__init__(daemon=True)
        self.ctx, self.games = ctx, games
        self.acked: list[tuple[float, str, int, int, list[dict]]] = []
        self.halt = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.halt.is_set():
                for g in self.games:
                    self.answer(g)
                time.sleep(0.01)
        except BaseException as exc:  # seen by the test
            self.error = exc

    def answer(self, g: str) -> None:
        store = self.ctx.store
        snap = store.load(g)
        if snap is None or snap.status != "collecting":
            return
        game = Game.from_json(snap.json)
        for seat in sorted(store.expected(g) - set(store.answers(g))):
            if self.halt.is_set():
                return
            actions = bot_answer(game, seat)
            result = ingest.submit(self.ctx, g, seat, actions, snap.window)
            if result.status in (Status.ACCEPTED, Status.RESOLVE):
                self.acked.append((time.monotonic(), g, snap.window, seat, actions))

    def stop(self) -> None:
        self.halt.set()
        self.join(timeout=30)
        assert self.error is None, f"the players failed: {self.error!r}"


def admin(url: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "service.admin", "--redis-url", url, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "ARTEMIA_SENDER": "recording", "ARTEMIA_LOG_LEVEL": "WARNING"},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


@pytest.mark.slow(
    reason="20 whole games on real workers, across a backup, the loss of the Redis machine and a restore into a "
    "fresh redis-server"
)
def test_a_backup_restored_into_a_fresh_redis_finishes_every_game_with_every_answer_before_it(
    tmp_path, ctx_for, workers
):
    lost_server = Server(appendfsync="everysec").start()
    fresh = Server(appendfsync="everysec")
    try:
        ctx = ctx_for(lost_server.url)
        games = [f"bk{i}" for i in range(GAMES)]
        for i, g in enumerate(games):
            meta = table(3, humans=[1, 2], deadline=600)
            for seat in (1, 2):
                meta["players"][str(seat)].update(chat=chat(g, seat), user=f"user-{g}-{seat}")
            start_game(ctx, g, {**CONFIG, "seed": i}, meta)
        workers.start(lost_server.url, n=2, worker_class=PROCFILE_WORKER)
        players = Players(ctx, games)
        players.start()
        wait_for(lambda: all(ctx.store.load(g).version >= 4 for g in games), 60, "every game to reach version 4")

        # the backup, while the players answer and the workers resolve
        backup_began = time.monotonic()
        taken = admin(lost_server.url, "backup", str(tmp_path / "backups"), "--keep", "3")
        ended = time.monotonic()
        backup_seconds = ended - backup_began
        # answers after the backup: lost with the machine, to be asked again
        wait_for(lambda: sum(t > ended for t, *_ in players.acked) >= 2 * GAMES, 30, "answers after the backup")
        players.stop()
        for proc in workers.alive():  # the machine is lost: its workers and its Redis at once
            workers.kill(proc)
        lost_server.kill()

        fresh.start()
        began = time.monotonic()
        restored = admin(fresh.url, "restore", taken["backup"])
        restore_seconds = time.monotonic() - began
        after = ctx_for(fresh.url)
        sent_before_restart = len(after.sender.sent())
        # the snapshot is taken once the command is up (its Python start counts for nothing): answers acknowledged
        # before the command began its work are in it; the ones after may or may not be
        work_began = ended - taken["seconds"]
        before = [(g, w, s, a) for t, g, w, s, a in players.acked if t < work_began]
        later = [(g, w, s, a) for t, g, w, s, a in players.acked if t >= work_began]
        assert before and later, "answers were acknowledged both before and after the backup"

        # the answers the backup does not hold: their seats must be asked again (a reminder of the open window, or
        # the question of a window the restored game has not reached yet)
        restored_at = {g: after.store.load(g) for g in games}
        missing = sorted(
            {
                (g, w, s)
                for g, w, s, _ in later
                if w > restored_at[g].window or (w == restored_at[g].window and s not in after.store.answers(g))
            }
        )
        assert missing, "some answers given after the backup began are not in it"
        reminded = {g for g, w, _ in missing if w == restored_at[g].window and restored_at[g].status == "collecting"}
        assert reminded <= set(restored["reasked"])

        def asked(sent: list[dict], g: str, s: int, w: int | None = None) -> bool:
            """A question to the seat after the restart (for window ``w``: its reminder or its buttons)."""
            return any(
                m["chat"] == chat(g, s)
                and (
                    m["text"].startswith(f"Reminder: step {w if w is not None else ''}")
                    or any(
                        b["data"].startswith(f"d:{g}:{w}:{s}:" if w is not None else f"d:{g}:")
                        for row in m["buttons"] or []
                        for b in row
                    )
                )
                for m in sent
            )

        def not_reminded() -> list[tuple[str, int, int]]:
            sent = after.sender.sent(sent_before_restart)
            return [
                (g, w, s)
                for g, w, s in missing
                if g in reminded and w == restored_at[g].window and not asked(sent, g, s, w)
            ]

        workers.start(fresh.url, n=2, worker_class=PROCFILE_WORKER)
        # the open window's seats without an answer get their reminder; the players answer once asked again (an
        # answer before the reminder is out makes it moot, and the outbox rightly drops it)
        wait_for(lambda: not not_reminded(), 30, "the seats of the restored open windows to be reminded")
        players = Players(after, games)
        players.start()
        try:
            wait_for(lambda: all(after.store.load(g).status == "over" for g in games), 90, "every restored game to end")
        except AssertionError:
            for g in games:
                snap = after.store.load(g)
                print(g, snap.status, snap.version, snap.window, after.store.expected(g), after.store.answers(g))
            raise
        finally:
            players.stop()

        # every later window of the restored course was answered again by its seats (the game ended with no seat
        # auto-played, below); their questions are not checked message by message: these players answer before
        # a question is delivered, and the outbox drops a question whose window has closed
        for g in games:
            resolved = [int(entry.split(":")[1]) for entry in after.store.resolution_log(g)[1:]]
            assert len(resolved) == len(set(resolved)), f"{g}: a window was resolved twice"
            kept = {(w, s): a for game, w, s, a in before if game == g}
            assert lost_answers(after, g, kept) == [], f"{g}: answers acknowledged before the backup were lost"
            assert after.store.streaks(g) == {}, f"{g}: a seat was auto-played (its answer was lost, never re-asked)"
        print(
            f"backup of {GAMES} running games: {taken['nodes']['index']['keys']} keys, "
            f"{taken['nodes']['index']['bytes']} bytes in {backup_seconds:.2f} s (the command; its transfer "
            f"{taken['seconds']:.2f} s); restore of {restored['keys']['index']} keys in {restore_seconds:.2f} s; "
            f"{len(before)} answers acknowledged before the backup all applied, {len(missing)} given after it answered "
            f"again in the restored games ({len(reminded)} reminders at the restore); all {GAMES} games over"
        )
    finally:
        lost_server.stop()
        fresh.stop()
