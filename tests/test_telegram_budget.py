"""The webhook's replies spend their chat's send budget (`service.channels.telegram.budget`): a flood of commands in a
group gets no more than Telegram's 20 messages a minute; a reply that must wait is sent later by a job, once, however
often it was asked for meanwhile."""

import pytest
from pipeline_support import TELEGRAM_RATES, Clock, make_ctx
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from starlette.testclient import TestClient
from test_telegram_webhook import GROUP, SECRET, USERS, Chat, private

from service.channels.telegram import budget
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.web import create_app
from tests.telegram_support import api, server  # noqa: F401 - fixtures


@pytest.fixture
def env():
    # A chat's budget at a frozen instant: the overall bucket's small burst (`rate_global_burst`, 2: bench/due.py)
    # would stop the same instant's third reply first, where in real time it goes 1/28 s after the second.
    ctx = make_ctx(clock=Clock(), **{**TELEGRAM_RATES, "rate_global_burst": 30})
    return Env(ctx, Tables(ctx.store.redis), "artemia_bot")


@pytest.fixture
def chat(env):
    with TestClient(create_app(env, SECRET)) as client:
        yield Chat(client)


def waiting(env) -> list[Job]:
    registry = ScheduledJobRegistry(queue=env.ctx.send_queue)
    return [
        Job.fetch(job_id, connection=env.ctx.store.redis, serializer=env.ctx.queue.serializer)
        for job_id in registry.get_job_ids()
    ]


def run_waiting(env) -> list[str]:
    """Run the waiting replies' jobs here (their time has come on the test clock)."""
    out = []
    for job in waiting(env):
        ScheduledJobRegistry(queue=env.ctx.send_queue).remove(job)
        out.append(budget.send_later(env.ctx, *job.args))
    return out


def test_a_flood_of_commands_in_a_group_gets_the_groups_budget_and_one_later_reply(chat, env, api):
    replies = [chat.say(n % 4, "/help") for n in range(500)]
    answered = [reply for reply in replies if reply]
    assert len(answered) == 3  # the group's burst (ARTEMIA_RATE_GROUP_BURST), the same instant
    [later] = waiting(env)  # the same reply asked for 497 times more: one waits for the budget, not 497
    assert later.args[0]["chat_id"] == GROUP["id"] and later.args[0]["text"] == answered[0]["text"]
    env.ctx.clock.advance(60 / 17)  # the next token (17 a minute refill the burst of 3: 20 in any minute)
    assert run_waiting(env) == ["ok"]
    assert [c["params"]["text"] for c in api.sent("sendMessage", GROUP["id"])] == [answered[0]["text"]]
    assert waiting(env) == [] and chat.say(0, "/help") is None  # the budget is spent again: it waits
    assert len(waiting(env)) == 1


def test_different_replies_each_wait_and_none_goes_before_the_budget_allows(chat, env, api):
    for _ in range(3):
        assert chat.say(0, "/help")  # the burst
    assert chat.say(1, "/rules river") is None and chat.say(2, "/rules mirage") is None
    assert len(waiting(env)) == 2
    assert run_waiting(env) == ["later", "later"]  # no token yet: each is scheduled again, nothing sent
    assert api.sent("sendMessage", GROUP["id"]) == [] and len(waiting(env)) == 2
    env.ctx.clock.advance(2 * 60 / 17)
    assert sorted(run_waiting(env)) == ["ok", "ok"]
    texts = [c["params"]["text"] for c in api.sent("sendMessage", GROUP["id"])]
    assert len(texts) == 2 and texts[0].startswith(("River", "Mirage"))


def test_a_private_chat_gets_about_one_reply_a_second(chat, env, api):
    mine = private(0)
    got = [chat.say(0, "/help", chat=mine) for _ in range(5)]
    assert sum(1 for reply in got if reply) == int(TELEGRAM_RATES["rate_private_burst"])  # whole tokens
    assert [job.args[0]["chat_id"] for job in waiting(env)] == [USERS[0]["id"]]
