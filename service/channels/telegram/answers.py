"""A seat's answers in private: the decision buttons pressed (the "I'm back" button too) and the game commands typed,
answered through the pipeline's one door (`service.pipeline.seats.answer`), whose outcome is worded here.
"""

from service import commands
from service.channels import plain, ui
from service.channels.telegram.handling import Env, Refused, _t, answer_query, reply, seat_names, seat_of
from service.channels.telegram.update import CallbackQuery, Message
from service.commands.writing import help_text
from service.pipeline import ingest, news, screens, seats

ANSWERED = (ingest.Status.ACCEPTED, ingest.Status.RESOLVE)


def asked_games(env: Env, user: int) -> list[tuple[str, int]]:
    """(game, seat) of every game where the user's seat is asked now."""
    return seats.asked(env.ctx, str(user))


def typed_answer(message: Message, asked: tuple[str, int], lang: str, env: Env, text: str) -> dict:
    game_id, seat = asked
    view = seats.read(env.ctx, game_id, with_meta=False)
    snap = view.snap
    if snap is None:  # gone (cancelled, expired) since asked_games read it
        raise Refused(_t(lang, "There is no such game."))
    if snap.window is None:  # over since asked_games read it (what submit would answer)
        raise Refused(_t(lang, "This game is over."))
    game = view.game
    try:
        actions = commands.parse(text, game, seat, lang=lang)
    except commands.CommandError as exc:
        raise Refused(str(exc)) from exc
    if any(a["type"].startswith("_") for a in actions):
        return reply(message, help_text(game, seat, lang))
    dedup = f"m{message.chat.id}_{message.message_id}"
    outcome = seats.answer(env.ctx, game_id, seat, actions, snap.window, dedup, view, typed=True)
    return reply(message, plain.submitted(outcome.result, game, seat, lang))


def on_back(query: CallbackQuery, game_id: str, lang: str, env: Env, view: seats.View) -> dict:
    """The "I'm back" button: the seat a bot plays is its player's again; the next question asks them."""
    snap, meta = view.snap, view.meta or {}
    seat = seat_of(meta, query.sender.id) if snap else None
    if snap is None or seat is None:
        return answer_query(query, _t(lang, "This is not your game."))
    if snap.status == "over":
        return answer_query(query, _t(lang, "This game is over."))
    env.tables.set_blocked(query.sender.id, False)
    seats.take_back(env.ctx, game_id, seat)
    return answer_query(query, _t(lang, "Welcome back! I will ask you from the next question on."))


def on_button(query: CallbackQuery, lang: str, env: Env, view: seats.View | None = None) -> dict:
    """A press of ``lang``'s user, admitted; ``view``: the game its button names, with its meta, read a moment ago
    (read here when None)."""
    back = ui.back_game(query.data)
    if back is not None:
        return on_back(query, back, lang, env, view or seats.read(env.ctx, back))
    try:
        choice = ui.decode(query.data)
    except ui.BadCallback:
        return answer_query(query, _t(lang, "This button is not valid."))
    view = view or seats.read(env.ctx, choice.game_id)
    snap, meta = view.snap, view.meta or {}
    seat = seat_of(meta, query.sender.id) if snap else None
    if snap is None or seat is None:
        return answer_query(query, _t(lang, "This is not your game."))
    if query.message is not None and str(query.message.chat.id) != meta["players"][str(seat)].get("chat"):
        # a forged press: the message named is in someone else's chat, and its screen would be edited there
        return answer_query(query, _t(lang, "This message is not yours: use the buttons in your private chat with me."))
    dedup = f"q{query.id}"
    closed = seats.press_closed(env.ctx, view, choice.window, dedup)
    if closed is not None:
        # retried: Telegram redelivering a press we stored (our reply was lost, say a 5xx in a failover): it
        # counted, though its window has closed or been resolved since
        return answer_query(query, _t(lang, "Locked in.") if closed.retried else ui.expired(lang))
    game = view.game
    try:
        stage = ui.follow(game, seat, choice)
        if not stage.complete:
            screen = ui.decision(game, seat, choice, snap.deadline, lang, seat_names(meta), **ui.clock_of(meta))
    except ui.ForeignButton:  # a button copied from another seat's keyboard
        return answer_query(query, _t(lang, "This button is from another player's choices, not yours."))
    except ui.ExpiredChoice:
        return answer_query(query, ui.expired(lang))
    except ui.BadCallback:
        return answer_query(query, _t(lang, "This button is not valid."))
    if stage.complete:
        outcome = seats.answer(env.ctx, choice.game_id, seat, stage.actions, choice.window, dedup, view)
        if outcome.status not in ANSWERED and outcome.status is not ingest.Status.DUP:
            return answer_query(query, plain.submitted(outcome.result, game, seat, lang, sep=" "))
        final = outcome.status is ingest.Status.RESOLVE
        names, clock = seat_names(meta), ui.clock_of(meta)
        lines = ui.locked_in_lines(stage.actions, snap.deadline, lang, names=names, final=final, **clock)
        # the reply is all a press writes: the message shows the answer (or the question ahead that follows it,
        # `TelegramChannel._answer_screen`) when the refresh job runs (the window stays open), or with the step
        # that closes the window (`TelegramChannel._answered`, or the next window's question)
        return answer_query(query, ui.locked_in_toast(lines, lang))
    if query.message is not None:
        # the pressed message is the seat's turn message: its next screen goes through the outbox
        screens.show(
            env.ctx,
            choice.game_id,
            query.id,
            str(query.message.chat.id),
            seat,
            news.seat_turn_slot(choice.game_id, news.load_news(snap.news), seat),
            snap.version,
            screen.text,
            screen.keyboard,
        )
    return answer_query(query)
