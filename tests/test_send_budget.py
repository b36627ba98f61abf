"""The shared send budget against Telegram's ~30 messages a second, counted over any second (issue 39, point 3;
bench/due.py): the global bucket never lets more than that into a second, and a resolving job waits for the
budget's next tokens itself instead of leaving its question to a delivery job behind the groups' status edits."""

import bisect

from pipeline_support import TELEGRAM_RATES, Clock, make_ctx
from rq.registry import ScheduledJobRegistry

from service.pipeline import delivery, outbox
from service.store import keys

G = "budget1"
TELEGRAM_LIMIT = 30  # a second, counted over any second (tests/fake_bot_api.py `Limits`)


def private(chat: str, text: str) -> dict:
    """A seat's question (a decision button: it goes first, `outbox.asks`)."""
    button = {"text": "1", "data": f"d:{G}:1:1::"}
    return {"chat": chat, "text": text, "seat": 1, "group": False, "buttons": [[button]]}


def test_the_global_budget_lets_at_most_telegrams_limit_into_any_second_yet_nearly_all_of_it():
    """Every private chat a message at once, as 1,000 tables due at the same second ask: with the old bucket (a
    burst of a whole second's worth) the first second let 60 through."""
    clock = Clock()
    ctx = make_ctx(clock=clock, **TELEGRAM_RATES)
    passed, chats = [], iter(range(10**6))
    started = clock.now
    while clock.now < started + 3:
        message = private(str(next(chats)), "question")
        if ctx.store.take_send_token(message["chat"], clock.now, *outbox.budget(message, ctx.settings)) == 0:
            passed.append(clock.now)
        clock.advance(0.004)
    most = max(bisect.bisect_left(passed, at + 1.0) - k for k, at in enumerate(passed))
    assert most < TELEGRAM_LIMIT  # a message of slack for the calls' jitter on their way to Telegram
    assert len(passed) / 3 >= 0.9 * TELEGRAM_LIMIT


def test_an_unlimited_budget_keeps_a_burst_racing_threads_never_wait_for():
    ctx = make_ctx(clock=Clock(), rate_global_per_second=1e6, rate_global_burst=1)
    assert outbox.budget(private("11", "q"), ctx.settings)[1] >= 1000


def test_a_resolving_job_waits_for_the_budgets_next_tokens_and_sends_its_questions_itself():
    """A step's questions to three chats with one token left: the job sleeps through the global budget's short
    waits (`delivery.INLINE_PATIENCE_SECONDS`) and leaves no delivery job; a longer wait is still left to a job."""
    clock = Clock()
    ctx = make_ctx(clock=clock, **{**TELEGRAM_RATES, "rate_global_per_second": 20.0, "rate_global_burst": 1.0})
    ctx.store.write_batch(G, "s1", [private("11", "q1"), private("12", "q2"), private("13", "q3")])
    t0 = clock.now
    assert delivery.deliver_now(ctx, G, ["s1"]) is True  # nothing left for a delivery job
    assert sorted(m["text"] for m in ctx.sender.sent()) == ["q1", "q2", "q3"]
    assert t0 + 2 / 20 <= clock.now <= t0 + delivery.INLINE_PATIENCE_SECONDS + 0.1
    ctx.settings.rate_global_per_second = 0.4  # the next token 2.5 s away: longer than a job waits
    ctx.store.redis.delete(keys.RATE_GLOBAL)
    ctx.store.write_batch(G, "s2", [private("14", "q4"), private("15", "q5")])
    t1 = clock.now
    assert delivery.deliver_now(ctx, G, ["s2"]) is True  # one sent, the other left with a drain job of its own
    assert len(ctx.sender.sent()) == 4 and clock.now == t1  # nothing slept
    assert len(ScheduledJobRegistry(queue=ctx.send_queue).get_job_ids()) == 1


def test_the_fake_bot_api_refuses_calls_over_telegrams_limits_as_telegram_does():
    """`fake_bot_api.Limits` (bench/due.py): 30 in any second in all, 2 in any second per private chat, 20 in any
    minute per group; a refused call is not counted, and the wait names when the window has room again."""
    from fake_bot_api import Limits

    limits = Limits()
    assert [limits.admit("11", 0.0) for _ in range(3)] == [0, 0, 1.0]  # a private chat: two within a second
    assert limits.admit("11", 1.0) == 0
    assert all(limits.admit(str(100 + n), 1.5) == 0 for n in range(29))  # 30 within (0.5, 1.5]
    assert limits.admit("200", 1.5) == 0.5 and limits.admit("200", 2.0) == 0
    group = Limits(overall=(10**6, 1.0))
    assert all(group.admit("-100/7" if n % 2 else "-100", n) == 0 for n in range(20))  # a forum's topics: one group
    assert group.admit("-100", 59.0) == 1.0 and group.admit("-100", 60.0) == 0
    assert Limits.counts("editMessageMedia") and not Limits.counts("answerCallbackQuery")
