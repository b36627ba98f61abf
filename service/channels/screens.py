"""A decision screen answered one tap (or typed number) at a time, for the channels that show Telegram's screens as
choices in a message they send anew (the console, WhatsApp): the next screen of a choice, or the answer it
completes, stored through the pipeline. Pure words and one call into `service.pipeline.seats`; no I/O of its own.
"""

from dataclasses import dataclass

from service.channels import plain, ui
from service.game import Game
from service.i18n import translator
from service.pipeline import ingest, seats
from service.pipeline.context import Context
from service.pipeline.news import names_of
from service.store import Snapshot


@dataclass(frozen=True)
class Reply:
    text: str
    buttons: list | None = None  # a screen's keyboard: the console numbers its choices, WhatsApp lists them
    screen: ui.Choice | None = None  # the screen whose keyboard it is
    closed: bool = False  # the answer was the last its window waited for: the step's news follows at once


def press(ctx: Context, snap: Snapshot, meta: dict, game: Game, seat: int, data: str, lang: str) -> Reply:
    """The button ``data`` pressed by ``seat``: its next screen, or the answer it completes, stored. A button of a
    closed window, of another seat or naming nothing legal is refused with a line that says so."""
    try:
        choice = ui.decode(data)
        if seats.press_closed(ctx, seats.View(snap.game_id, snap, meta), choice.window, None) is not None:
            raise ui.ExpiredChoice(f"window {choice.window} is not open")
        stage = ui.follow(game, seat, choice)
        if not stage.complete:
            return screen(snap, meta, game, seat, choice, lang)
    except ui.ExpiredChoice:
        return Reply(ui.expired(lang))
    except ui.BadCallback:
        return Reply(translator(lang).gettext("This button is not valid."))
    return submit(ctx, snap, meta, game, seat, stage.actions, lang)


def submit(ctx: Context, snap: Snapshot, meta: dict, game: Game, seat: int, actions: list[dict], lang: str) -> Reply:
    """The answer stored, and the question the seat is still asked that nothing waits for (a question ahead)."""
    view = seats.View(snap.game_id, snap, meta)
    outcome = seats.answer(ctx, snap.game_id, seat, actions, snap.current_window, view=view)
    said = plain.submitted(outcome.result, game, seat, lang)
    if not outcome.stored or outcome.status is ingest.Status.RESOLVE:
        return Reply(said, closed=outcome.stored)
    more = ui.asked_more(game, seat, ui.Choice(snap.game_id, snap.current_window, seat), list(outcome.actions))
    if more is None:
        return Reply(said)
    shown = screen(snap, meta, game, seat, more, lang)
    return Reply("\n\n".join([said, shown.text]), shown.buttons, shown.screen)


def screen(snap: Snapshot, meta: dict, game: Game, seat: int, choice: ui.Choice, lang: str) -> Reply:
    """The screen of ``choice`` (a question, or a step of its answer). Raises `ui.BadCallback` for a choice that
    names nothing valid."""
    deadline = plain.deadline_shown(meta, snap.deadline)
    shown = ui.decision(game, seat, choice, deadline, lang, names_of(meta), **ui.clock_of(meta))
    return Reply(shown.text, shown.keyboard, choice)
