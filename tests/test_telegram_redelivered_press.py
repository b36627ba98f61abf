"""A press Telegram delivers again because our reply to it was lost (a 5xx while Redis failed over, a timeout):
the answer it carried was stored, so the player is told "Locked in." whether its window is still open, being
resolved, or resolved already — never "expired" — and a window it closed gets its resolution queued again, in
case the first delivery failed before queueing it. Through the real app and the fake Bot API."""

import random

import pytest

from service.channels import ui
from service.game import Game
from service.store import keys
from tests.integration.test_procfile_real import random_answer
from tests.telegram_support import api, server  # noqa: F401 - fixtures
from tests.test_telegram_forged_buttons import redis_state, twilio, two_asked, world  # noqa: F401 - fixtures


def press(world, user: int, data: str, message_id: int, query_id: str) -> str:
    """A press with a given callback query id (Telegram keeps the id when it delivers the same press again)."""
    response = world.telegram.post(
        {
            "callback_query": {
                "id": query_id,
                "from": world.telegram.user(user),
                "chat_instance": "c",
                "data": data,
                "message": {"message_id": message_id, "date": 1, "chat": {"id": user, "type": "private"}},
            }
        }
    )
    assert response.status_code == 200, response.text
    return response.json()["text"]


def complete_answers(world, code: str, found: dict) -> list[tuple[int, str, int]]:
    """(user, the callback data of a complete answer, its message id) for every user the open window asks."""
    snap, meta = world.ctx.store.load_with_meta(code)
    game, rnd = Game.from_json(snap.json), random.Random(3)
    seat_of = {int(p["user"]): int(seat) for seat, p in meta["players"].items()}
    return [
        (user, ui.Choice(code, snap.window, seat_of[user], random_answer(game, seat_of[user], rnd)[0]).data(), message)
        for user, (message, _) in sorted(found.items())
    ]


@pytest.mark.parametrize("lost", ["nothing", "the resolution job"])
def test_a_redelivered_press_is_locked_in_and_its_window_resolved(world, lost):
    code, found = two_asked(world)
    store, queue = world.ctx.store, world.ctx.queue
    window = store.load(code).window
    *first, (last, last_data, last_message) = complete_answers(world, code, found)
    for user, data, message in first:
        assert "You may change it until" in press(world, user, data, message, f"first-{user}")
    said = press(world, last, last_data, last_message, f"first-{last}")  # the window complete: no time to change
    assert said.startswith("✅ Locked in: ") and "change" not in said
    assert store.load(code).status == "resolving"
    if lost == "the resolution job":  # the first delivery died between the submit script and the enqueue
        queue.empty()
    before = redis_state(store.redis)
    assert press(world, last, last_data, last_message, f"first-{last}") == "Locked in."
    # the window waits to be resolved, and a resolving job is queued (again, when the first was lost)
    assert store.redis.zscore(keys.READY, f"{code} {window}") is not None
    assert "workers.jobs.resolve_ready" in [queue.fetch_job(job_id).func_name for job_id in queue.job_ids]
    world.pump()
    after = store.load(code)
    assert after.window != window  # resolved
    assert store.resolution_log(code).count(f"{after.version}:{window}") == 1
    resolved = redis_state(store.redis)
    assert resolved != before
    for user, data, message in [*first, (last, last_data, last_message)]:
        assert press(world, user, data, message, f"first-{user}") == "Locked in."  # late repeats: not expired
    world.pump()
    assert store.load(code).version == after.version
    assert store.resolution_log(code).count(f"{after.version}:{window}") == 1


def test_a_new_press_on_a_resolved_window_is_still_expired(world):
    code, found = two_asked(world)
    answers = complete_answers(world, code, found)
    for user, data, message in answers:
        press(world, user, data, message, f"only-{user}")
    world.pump()
    user, data, message = answers[0]
    assert press(world, user, data, message, "another") == "This choice has expired: that step is over."
