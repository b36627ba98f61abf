"""Resolving a decision window and opening the next one: the only code that advances a stored game.

A resolution loads the snapshot, applies the stored answers in seat order, auto-plays whatever is still
missing, and commits with a compare-and-set on the version (``Store.commit``), writing the outgoing messages
in the same atomic step. Run twice, the second run finds the window no longer resolving, or loses the CAS,
and changes nothing. After a commit, ``follow_up`` schedules what the new state needs (deadline, reminders,
deliveries, or the next resolution when bots answered everything); it is idempotent and the sweeper re-runs
it for any commit whose follow-ups were not recorded as done.
"""

import concurrent.futures
import json
import logging
import time
from dataclasses import dataclass

import redis

from service.game import Game, IllegalAction, new_game
from service.ops import logs, metrics
from service.pipeline import delivery, ingest, news, records, scheduling, telling, watch
from service.pipeline.botplay import MAX_AUTOPLAY_STEPS, bot_answer, bot_levels, taken_seats, vanished_answer
from service.pipeline.context import Context
from service.store import Commit, Snapshot, batch_for_version, keys
from service.store.games import Absence, Marks, WindowState

log = logging.getLogger(__name__)

# A resolving job that has run this long hands the rest of the ready set over to a new job, so that no job runs
# anywhere near its timeout whatever the burst.
HANDOVER_SECONDS = 2.0
# While windows wait, a resolving job leaves a step's bookkeeping (the delivery job for what its sends left, the
# deadline and the reminder, the followed mark) for up to this long after the step's sends: in a burst every table's
# next question then goes out before any table's timers are set, rather than one table's timers before the next
# table's question. A crash meanwhile leaves the step to the sweeper, as any step not marked followed.
SETTLE_WITHIN_SECONDS = 1.0


class GameExists(Exception):
    pass


@dataclass(eq=False)  # steps are told apart by identity (`_settle_sent`)
class Sending:
    """A step of a resolving job whose private messages are sent (beside the job, `delivery.start_now`, or by it):
    what its follow-up still has to do once they are (`settle`), and since when (``since``: monotonic)."""

    game_id: str
    snap: Snapshot
    batches: list[str]
    marks: Marks | None
    future: concurrent.futures.Future
    since: float


def settle(ctx: Context, sending: Sending) -> None:
    """Wait for a step's sends, count them, queue a delivery job for what they left, set the timers its window
    needs, and mark the step followed. Until then the step's commit is not marked followed: a crash leaves it to
    the sweeper's follow-up, as any."""
    if not sending.future.done():
        sending.future.result()
        metrics.lap("send")  # the job's time waiting for them
    done, statuses = sending.future.result()
    metrics.delivered(statuses)
    if not done:
        scheduling.deliveries(ctx, sending.game_id, *sending.batches)
    due = _schedule(ctx, sending.game_id, sending.snap, sending.marks)
    ctx.store.mark_followed(sending.game_id, sending.snap.version, due)
    metrics.lap("enqueue")


@dataclass(frozen=True)
class Opening:
    """How the next window opens: who is asked, what bots pre-answer, and until when."""

    status: str
    expected: list[int]
    prefilled: dict[int, list[dict]]
    deadline: float


def open_window(
    ctx: Context,
    game: Game,
    meta: dict,
    streaks: dict[int, int],
    now: float,
    away: dict[int, float] | None = None,
    paused_until: float | None = None,
) -> Opening:
    """The next window: the table's bots and the seats the bot plays (`bot_levels`) are answered at once; a
    window opened while the table is paused gets its whole time after the pause."""
    if game.is_over:
        return Opening("over", [], {}, 0.0)
    expected = sorted(game.waiting_for())
    if not expected:
        raise RuntimeError(f"engine opened window {game.window} that waits for nobody")
    # (a bot answers what a window waits for: a question nothing waits for, `Game.may_answer`, it leaves)
    bots = bot_levels(ctx, meta, streaks, away or {}, now)
    budget = ctx.settings.bot_budget_ms
    prefilled = {s: bot_answer(game, s, bots[s], budget) for s in expected if s in bots}
    status = "resolving" if len(prefilled) == len(expected) else "collecting"
    minimum = ctx.settings.min_deadline_seconds
    seconds = max(int(meta["deadline_seconds"]), minimum) if news.timed(meta) else news.UNTIMED_WAIT
    return Opening(status, expected, prefilled, max(now, paused_until or 0.0) + seconds)


# Answers that still count once the window they came with has closed: a plan, and a question ahead answered
# after the place that closed the exploration (the hunt asks it again).
ANSWERS_AHEAD = ("plan", "ahead")


def apply_answers(
    game: Game, window: int, answers: dict[int, list[dict]], expected: set[int], applied: list[tuple[int, dict]]
):
    """Stored answers in seat order: answers ahead ("plan") from seats not asked first, then the asked seats.
    An action that an earlier answer made illegal (another seat's card moved a token, used the Beach: rulings
    B, C) ends that seat's answer: auto-play covers the rest, and the seat is told (a ``fallback`` event).
    -> (events, the plans that came after the window closed, to apply once it is resolved). Appends what it
    applied to ``applied``."""
    events, later = [], []
    for seat in sorted(answers, key=lambda s: (s in expected, s)):
        for action in answers[seat]:
            if game.window is None or game.window["id"] != window:
                later += [(seat, action)] if action["type"] in ANSWERS_AHEAD else []
                continue
            try:
                events += game.apply(seat, action)
            except IllegalAction:
                if seat in expected:
                    events.append(
                        {"type": "fallback", "seat": seat, "question": "answer", "action": action, "visible_to": [seat]}
                    )
                break
            applied.append((seat, action))
    return events, later


def apply_plans(game: Game, plans: list[tuple[int, dict]], applied: list[tuple[int, dict]]) -> list[dict]:
    events = []
    for seat, plan in plans:
        try:
            events += game.apply(seat, plan)
        except IllegalAction:
            continue  # the turn it planned for is over
        applied.append((seat, plan))
    return events


def _autoplay_rest(
    game: Game, window: int, expected: set[int], applied: list[tuple[int, dict]]
) -> tuple[list[dict], dict[int, list[dict]]]:
    """Auto-play every seat the window asked (``expected``) that it still waits for; a seat it did not ask is
    asked in the follow-up window the engine opens once these are done. -> (events, the actions auto-played per
    seat)."""
    events: list[dict] = []
    played: dict[int, list[dict]] = {}
    for _ in range(MAX_AUTOPLAY_STEPS):
        if game.window is None or game.window["id"] != window:
            return events, played
        asked = [seat for seat in game.waiting_for() if seat in expected]
        if not asked:
            return events, played
        seat = asked[0]
        action = game.autoplay(seat)
        events += game.apply(seat, action)
        applied.append((seat, action))
        played.setdefault(seat, []).append(action)
    raise RuntimeError(f"window {window} still open after {MAX_AUTOPLAY_STEPS} auto-plays")


def _played_for(answers: dict[int, list[dict]], played: dict[int, list[dict]], taken: set[int]) -> list[dict]:
    """What each player is told privately of the answers given for them (``visible_to`` the seat): the time ran out
    and an answer was played for them (``timed_out``), or the bot plays their seat (``bot_played``: a player's
    seat the bot plays, ``taken``)."""
    told = [
        {"type": "timed_out", "seat": seat, "actions": actions, "visible_to": [seat]}
        for seat, actions in played.items()
        if seat not in answers
    ]
    told += [
        {"type": "bot_played", "seat": seat, "actions": actions, "visible_to": [seat]}
        for seat, actions in answers.items()
        if seat in taken
    ]
    return told


def _tally(
    meta: dict, snap: Snapshot, expected: set[int], taken: set[int], missed: set[int], answered_at: dict[int, float]
) -> tuple[dict[str, int], dict[str, str]]:
    """The window's part of its players' records (`service.pipeline.records`): each seat asked in person (not a
    bot's, not taken by the bot) was asked once, missed the deadline or answered after so many seconds."""
    counts: dict[str, int] = {}
    times: dict[str, str] = {}
    for seat in sorted(expected - set(meta.get("bots", [])) - taken):
        counts[f"asked:{seat}"] = 1
        if seat in missed:
            counts[f"missed:{seat}"] = 1
        elif seat in answered_at:
            times[f"times:{seat}"] = f"{max(0.0, answered_at[seat] - snap.opened):.0f} "
    return counts, times


def resolve_window(ctx: Context, game_id: str, window: int, sending: list[Sending] | None = None) -> str:
    """Resolve ``window`` if it is closed and not yet resolved; when bots answer the whole next window, go on
    resolving it in this same job (each window still commits on its own). ``sending`` (a resolving job): each
    step is appended to it once its private messages are sent or under way, and the caller settles the rest of its
    follow-up (`settle`). -> "resolved" | "noop" | "lost"."""
    outcome, written = "noop", {}
    snap, state, absent = ctx.store.resolution_inputs(game_id)
    while snap is not None and snap.window == window and snap.status == "resolving":
        metrics.lap("read")
        done = _resolve_once(ctx, snap, state, absent)
        if done is None:
            return "lost" if outcome == "noop" else outcome
        outcome, (committed, marks, chats) = "resolved", done
        written[batch_for_version(committed.version)] = chats
        follow_up(
            ctx, game_id, committed, resolve_next=False, marks=marks, deliver_now=True, written=written, sending=sending
        )
        metrics.lap("enqueue")
        if committed.window is None or committed.status != "resolving":
            break  # the game is over, or its next window waits for answers
        window = committed.window
        snap, state, absent = ctx.store.resolution_inputs(game_id)
    return outcome


def resolve_ready(ctx: Context, lease: int, token: str) -> dict[str, int]:
    """A resolving job (`scheduling.resolvers`): resolve the windows noted ready on the context's shard, the one
    that waited longest first, until none waits (the job's lease is then given back in the same step, once the
    job's steps are settled) or the job has run `HANDOVER_SECONDS` (a new job goes on). A game whose resolution
    raises is logged and left to the sweeper, which resolves a window still closed after its grace period; the
    other games go on. A Redis error ends the job (RQ runs it again; a window it had taken is left to the
    sweeper). Each step's private messages are sent first (beside the job while it goes on, when sends are slow:
    `follow_up`'s ``sending``); the rest of its follow-up waits until the job settles it (`_settle_sent`), at
    most `SETTLE_WITHIN_SECONDS` while windows wait, and before the job gives its lease back.
    -> the outcomes counted."""
    store, began = ctx.store, time.monotonic()
    done: dict[str, int] = {}
    sending: list[Sending] = []
    try:
        while True:
            # the lease is kept while steps wait to be settled: given back first, it would let another job take
            # the next window of one of their games before their follow-ups are done
            taken = store.take_ready(ctx.shard, lease, token, scheduling.RESOLVER_LEASE_MS, keep=bool(sending))
            if taken is None:
                if not sending:
                    break  # the lease was given back in the same step
                _settle_steps(ctx, sending, list(sending))
                continue
            game_id, window, noted = taken
            _settle_sent(ctx, sending, game_id, time.monotonic())
            with logs.bind(game=game_id, window=window):  # each line logged names the game it is about
                try:
                    outcome = resolve_window(ctx, game_id, window, sending)
                except redis.exceptions.RedisError:
                    raise
                except Exception:
                    log.exception("window %s of game %s did not resolve (the sweeper tries again)", window, game_id)
                    outcome = "failed"
            if outcome == "resolved":
                metrics.resolved(max(0.0, ctx.clock() - noted))
            done[outcome] = done.get(outcome, 0) + 1
            if time.monotonic() - began >= HANDOVER_SECONDS:
                # its steps first: the next job may take another window of one of their games
                _settle_steps(ctx, sending, list(sending))
                store.release_resolver(ctx.shard, lease, token)
                scheduling.resolvers(ctx)
                break
    finally:  # on an error, the steps still being sent are the sweeper's (not marked followed): none runs on
        concurrent.futures.wait([step.future for step in sending])
    return done


def _settle_sent(ctx: Context, sending: list[Sending], game_id: str, now: float) -> None:
    """Before a resolving job resolves a window of ``game_id``: settle that game's steps (its messages go out in
    the order of its steps, and its follow-ups are marked in that order), the steps sent `SETTLE_WITHIN_SECONDS`
    ago or more, and the oldest still being sent while more than `delivery.INLINE_STEPS_AT_ONCE` are."""
    due = [step for step in sending if step.game_id == game_id or now - step.since >= SETTLE_WITHIN_SECONDS]
    under_way = [step for step in sending if step not in due and not step.future.done()]
    due += under_way[: max(0, len(under_way) - delivery.INLINE_STEPS_AT_ONCE)]
    _settle_steps(ctx, sending, sorted(due, key=sending.index))


def _settle_steps(ctx: Context, sending: list[Sending], steps: list[Sending]) -> None:
    """`settle` each of ``steps`` (taken off ``sending``), in order. One that raises is logged and left to the
    sweeper, which follows up a commit not marked followed; the others are settled. A Redis error ends the job."""
    for step in steps:
        sending.remove(step)
        with logs.bind(game=step.game_id, window=step.snap.window):
            try:
                settle(ctx, step)
            except redis.exceptions.RedisError:
                raise
            except Exception:
                log.exception(
                    "the follow-up of version %s of %s failed (the sweeper does it)", step.snap.version, step.game_id
                )


def _resolve_once(
    ctx: Context, snap: Snapshot, state: WindowState, absent: Absence
) -> tuple[Snapshot, Marks, list[str]] | None:
    """Apply the answers of the closed window (``state``, ``absent``: `Store.resolution_inputs`) and commit.
    -> (the new snapshot, the taken marks as the commit left them, the chats its messages go to), or None if
    another run won."""
    store, game_id, window = ctx.store, snap.game_id, snap.current_window
    game = Game.from_json(snap.json)
    answers, expected, streaks, meta = state
    answered_at, away, paused_until, typed = absent

    applied: list[tuple[int, dict]] = []
    events, plans = apply_answers(game, window, answers, expected, applied)
    auto_events, played = _autoplay_rest(game, window, expected, applied)
    bot_after = ctx.settings.autoplay_bot_after
    taken = taken_seats(meta, streaks, away, snap.opened, bot_after)
    events += _played_for(answers, played, taken) + auto_events + apply_plans(game, plans, applied)
    notices, changed = [], {}
    for seat in played:
        if seat in answers:
            continue  # it answered; its answer just stopped being legal
        changed[seat] = streaks.get(seat, 0) + 1
        if changed[seat] == bot_after:
            notices.append(news.bot_notice(meta, seat, changed[seat]))
            events.append({"type": "taken_over", "seat": seat, "visible_to": [seat]})  # told privately, with a way back
    streaks.update(changed)
    tally = _tally(meta, snap, expected, taken, set(changed), answered_at)

    now = ctx.clock()
    opening = open_window(ctx, game, meta, streaks, now, away, paused_until)
    asked = [s for s in opening.expected if s not in opening.prefilled]
    told = news.load_news(snap.news)
    seen, last_typed, present = news.reading(told, answered_at, typed, now, ctx.settings.turn_message_goes_on_seconds)
    step = news.Step(
        game_id,
        meta,
        game,
        events,
        notices,
        asked,
        opening.deadline,
        snap.version + 1,
        told,
        closing=tuple(sorted(expected)),
        optional=tuple(s for s in game.may_answer() if s not in bot_levels(ctx, meta, streaks, away, now)),
        answered={seat: answers[seat] for seat in sorted(expected) if seat in answers and seat in answered_at},
        seen=seen,
        present=present,
        typed=last_typed,
    )
    metrics.lap("engine")
    outgoing, news_after = telling.step_messages(ctx, step)
    if game.is_over:  # the closed status messages a busy group never got (`outbox.fold`): closed for good now
        outgoing += ctx.store.unclosed(game_id)
    metrics.lap("render")
    if ctx.settings.resolve_pause_seconds:
        time.sleep(ctx.settings.resolve_pause_seconds)  # fault injection: the crash tests kill us here
    due = now + ctx.settings.resolve_grace_seconds  # the sweeper's net if we die before the follow-ups
    timers = scheduling.timers(ctx, game_id, window, snap.opened, snap.deadline)
    refresh = scheduling.refresh_job(ctx, game_id, window)
    commit = _commit(
        snap.version,
        window,
        game,
        opening,
        changed,
        outgoing,
        now,
        applied,
        news_after,
        due,
        tally=tally,
        timers=timers,
        refresh=refresh,
    )
    version, streaks_after, away_after = store.commit_with_marks(game_id, commit)
    metrics.lap("commit")
    if version and changed:
        metrics.autoplayed(store.redis, len(changed))
    if not version:
        return None
    chats = list(dict.fromkeys(m["chat"] for m in outgoing))
    return commit.after(game_id, version, snap.followed), (streaks_after, away_after), chats


def _commit(
    version,
    window,
    game,
    opening: Opening,
    streaks,
    outgoing,
    now,
    applied,
    news_after,
    due: float,
    config: dict | None = None,
    tally: tuple[dict[str, int], dict[str, str]] = ({}, {}),
    timers: tuple[str, list[str], list[str]] | None = None,
    refresh: tuple[str, str, str] | None = None,
) -> Commit:
    return Commit(
        version=version,
        window=window,
        engine_json=game.to_json(),
        next_window=None if game.window is None else game.window["id"],
        status=opening.status,
        deadline=opening.deadline,
        now=now,
        expected=opening.expected,
        prefilled=opening.prefilled,
        streaks=streaks,
        messages=outgoing,
        actions=applied,
        config=config,
        extra={"news": json.dumps(news_after)},
        tally=tally[0],
        tally_text=tally[1],
        due=due,
        timers=timers,
        refresh=refresh,
    )


def start_game(ctx: Context, game_id: str, config: dict, meta: dict) -> None:
    """Create the game, record its players and open its first window.

    ``meta``: {"players": {"<seat>": {"name", "chat", "user", "lang"}}, "group": chat | None,
    "deadline_seconds": int, "bots": [seats always played by a bot], "bot_levels": {"<seat>": level} (bots added
    at a level; the others auto-play), "lang": "en"}; the game's watch page token (``"watch"``) is added when
    missing."""
    store, now = ctx.store, ctx.clock()
    if store.load(keys.check_game_id(game_id)) is not None:
        raise GameExists(game_id)
    meta = {"began": now, **meta}
    game = new_game(config)
    meta = {**meta, "watch": meta.get("watch") or watch.new_token()}
    store.put_meta(game_id, meta, now)
    opening = open_window(ctx, game, meta, {}, now)
    asked = [s for s in opening.expected if s not in opening.prefilled]
    optional = tuple(s for s in game.may_answer() if s not in meta.get("bots", []))
    step = news.Step(
        game_id,
        meta,
        game,
        [],
        [news.start_notice(meta)],
        asked,
        opening.deadline,
        1,
        news.empty_news(game.turn),
        optional=optional,
    )
    outgoing, news_after = telling.step_messages(ctx, step)
    due = now + ctx.settings.resolve_grace_seconds
    commit = _commit(0, None, game, opening, {}, outgoing, now, [], news_after, due, config=config)
    version, streaks, away = store.commit_with_marks(game_id, commit)
    if not version:
        raise GameExists(game_id)
    follow_up(ctx, game_id, commit.after(game_id, version), marks=(streaks, away))


def answer_taken(ctx: Context, game_id: str, snap: Snapshot, marks: Marks | None = None) -> None:
    """The bot answers the seats it plays that the open window asks and that are still unanswered: a seat taken
    while the resolution that opened the window was running (its player went away, or was handed to the bot,
    after the resolution had read the table) is not left waiting for its deadline. ``marks``: the taken marks as
    the commit that opened the window left them (`Store.commit_with_marks`; read here when not given)."""
    streaks, away = marks or ctx.store.taken_marks(game_id)
    if not taken_seats({}, streaks, away, ctx.clock(), ctx.settings.autoplay_bot_after):
        return  # most steps
    answers, expected, streaks, meta = ctx.store.window_state(game_id)
    taken = taken_seats(meta, streaks, away, ctx.clock(), ctx.settings.autoplay_bot_after)
    for seat in sorted((taken & expected) - set(answers)):
        answer = vanished_answer(ctx, Game.from_json(snap.json), seat)
        ingest.submit(ctx, game_id, seat, answer, snap.current_window, snap=snap, by_bot=True)


def follow_up(
    ctx: Context,
    game_id: str,
    snap: Snapshot | None = None,
    resolve_next: bool = True,
    marks: Marks | None = None,
    deliver_now: bool = False,
    written: dict[str, list[str]] | None = None,
    sending: list[Sending] | None = None,
) -> None:
    """Schedule what the committed state ``snap`` (default: the stored one) needs: its deliveries (with those of
    the commits before it not marked followed), and its deadline and reminders, or its resolution when bots
    answered it all — unless the caller goes on resolving it itself: then the follow-up of the caller's next commit
    does this one's too, and until then the due time its commit set leaves it to the sweeper. Idempotent
    (deterministic job ids); the sweeper re-runs it for a commit not marked followed. ``marks``: see
    `answer_taken`. ``deliver_now`` (the resolving job): the private messages are sent here first
    (`delivery.deliver_now`), and a delivery job is queued only for what that left; a crash before the commit
    is marked followed leaves them to the sweeper's follow-up, as any crash after a commit. ``written``: the
    batches the caller wrote, with the chats each writes to, so that they need not be read back. ``sending`` (with
    ``deliver_now``, a resolving job): the private messages are sent beside the caller while this process's sends
    are slow (`delivery.start_now`), else here; the caller settles the step later (`settle`: the delivery job for
    what the sends left, the timers, the mark)."""
    store = ctx.store
    snap = snap or store.load(game_id)
    if snap is None or snap.followed >= snap.version:
        return
    if snap.status == "resolving" and not resolve_next:
        return
    if snap.status == "over":
        records.fold(ctx, game_id)  # before the last messages go out: whoever reads them and asks finds the record
    batches = [batch_for_version(v) for v in range(snap.followed + 1, snap.version + 1)]
    known = written or {}
    chats = list(dict.fromkeys(c for b in batches for c in known[b])) if all(b in known for b in batches) else None
    if deliver_now and sending is not None:
        under_way = delivery.start_now(ctx, game_id, batches, chats) or _sent_here(ctx, game_id, batches, chats)
        sending.append(Sending(game_id, snap, batches, marks, under_way, time.monotonic()))
        return
    if not (deliver_now and delivery.deliver_now(ctx, game_id, batches, chats)):
        scheduling.deliveries(ctx, game_id, *batches)
    store.mark_followed(game_id, snap.version, _schedule(ctx, game_id, snap, marks))


def _sent_here(
    ctx: Context, game_id: str, batches: list[str], chats: list[str] | None
) -> concurrent.futures.Future[tuple[bool, list[str]]]:
    """`delivery.deliver_now` by the caller (a quick sender): its outcome as a future already done, for `settle`
    (the sends are counted as they go)."""
    future: concurrent.futures.Future[tuple[bool, list[str]]] = concurrent.futures.Future()
    future.set_result((delivery.deliver_now(ctx, game_id, batches, chats), []))
    return future


def _schedule(ctx: Context, game_id: str, snap: Snapshot, marks: Marks | None) -> float:
    """The jobs the committed state ``snap`` waits for: an open window's deadline and reminder (and the bot's
    answers for seats taken meanwhile), or its resolution when bots answered it all. -> when the sweeper is to
    look at the game next: once it is over, to compact it (`upkeep.compact`)."""
    if snap.status == "collecting":
        answer_taken(ctx, game_id, snap, marks)
        scheduling.deadline(ctx, game_id, snap.current_window, snap.deadline)
        scheduling.next_reminder(ctx, game_id, snap.current_window, snap.opened, snap.deadline)
        return min(snap.deadline, snap.opened + ctx.settings.resolve_grace_seconds)  # the sweeper checks deliveries
    if snap.status == "resolving":
        scheduling.resolve(ctx, game_id, snap.current_window)
        return snap.opened + ctx.settings.resolve_grace_seconds
    return snap.opened + ctx.settings.finished_compact_after_seconds
