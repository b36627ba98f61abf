"""What the console's player types (the sandbox's one seat), answered in the language of the game:

    * a number presses that choice of the last screen shown (as a tap on Telegram's button would: the same
      screens, `service.channels.ui`), and a complete answer is stored;
    * ``card <name>`` / ``karta <name>`` says what that card does (it plays the card instead when that is all the
      card needs now; ``card <name>?`` only ever reads it);
    * ``board`` / ``deska`` writes the board as a PNG file and says where;
    * ``help``, ``status``, and any answer in the command language (`service.commands`).
Answers go through `service.pipeline.seats.answer`, as a Telegram press or message does.
"""

import tempfile
from pathlib import Path

from service import board, cardtexts, commands
from service.cardnames import fold
from service.channels import plain, screens, ui
from service.channels.screens import Reply
from service.commands.reading import named_card
from service.commands.writing import help_text
from service.game import Game
from service.i18n import translator
from service.i18n.names import cards_text
from service.pipeline import seats
from service.pipeline.context import Context
from service.pipeline.news import names_of
from service.store import Snapshot

BOARD_WORDS = {"board", "deska"}
PLAYS = ("survival", "hunt_card", "power")  # the actions that play a card (a power: the Drone's, the Gate's)


def answer(ctx: Context, game_id: str, seat: int, line: str, lang: str, choices: list[str]) -> Reply:
    """The reply to ``line`` typed at ``seat``; ``choices``: the data of the buttons of the last screen shown to
    the seat, numbered from 1."""
    view = seats.read(ctx, game_id)
    snap, meta = view.snap, view.meta or {}
    if snap is None:
        return Reply(translator(lang).gettext("There is no such game."))
    game = Game.from_json(snap.json)
    text = line.strip()
    if text.isdigit():
        return _press(ctx, snap, meta, game, seat, int(text), choices, lang)
    if fold(text) in BOARD_WORDS:
        return Reply(_board(game_id, game, meta, lang))
    card = named_card(text)
    if card is not None and text.endswith("?"):
        return Reply(card_text(card, game, seat, lang))
    so_far = _chosen(snap, game, seat, choices)
    try:
        actions = commands.parse(text, so_far.game if so_far else game, seat, lang=lang)
    except commands.CommandError as exc:  # "card Wrong Track" alone: what the card does, and how to play it
        return Reply(card_text(card, game, seat, lang) if card is not None else str(exc))
    if actions[0]["type"] == "_help":
        here = translator(lang).gettext(
            "Here you may also type: the number of a choice; card <name>? (what a card does); board (the board as "
            "a picture); quit."
        )
        return Reply("\n".join([help_text(game, seat, lang), here]))
    if actions[0]["type"] == "_status":
        return Reply(status(ctx, game_id, snap, meta, game, seat, lang))
    if snap.status == "over":
        return Reply(translator(lang).gettext("This game is over."))
    return _typed(ctx, snap, meta, game, seat, (so_far.actions if so_far else []) + actions, lang)


def _chosen(snap: Snapshot, game: Game, seat: int, choices: list[str]) -> ui.Stage | None:
    """What the seat has chosen so far on the last screen shown ("Chosen so far: Resist …"), when that screen is
    of the open window: a command typed now goes on from there, as the next number would."""
    try:
        shown = ui.decode(choices[-1]) if choices else None  # (its last button, "My cards" or "Back", keeps them)
        if shown is None or not shown.chosen or snap.window != shown.window or snap.status != "collecting":
            return None
        return ui.follow(game, seat, ui.Choice(shown.game_id, shown.window, seat, shown.chosen))
    except ui.BadCallback:
        return None


def _typed(ctx: Context, snap: Snapshot, meta: dict, game: Game, seat: int, actions: list[dict], lang: str) -> Reply:
    """A typed answer: stored when it is complete, else the screen that asks the rest (as the numbers would)."""
    first = ui.Choice(snap.game_id, snap.current_window, seat)
    choice = ui.choice_of(game, seat, first, actions)
    if choice is not None and snap.status == "collecting":
        try:
            if not ui.follow(game, seat, choice).complete:
                return screens.screen(snap, meta, game, seat, choice, lang)
        except ui.BadCallback:
            pass  # the ingest words what is wrong with it
    return screens.submit(ctx, snap, meta, game, seat, actions, lang)


def _press(
    ctx: Context, snap: Snapshot, meta: dict, game: Game, seat: int, number: int, choices: list[str], lang: str
) -> Reply:
    """The choice numbered ``number`` of the last screen: its next screen, or the answer it completes, stored."""
    if not 1 <= number <= len(choices):
        return Reply(translator(lang).gettext("There is no choice {n} on the last screen.").format(n=number))
    return screens.press(ctx, snap, meta, game, seat, choices[number - 1], lang)


def card_text(card: int | str, game: Game, seat: int, lang: str) -> str:
    """What a card does, in one paragraph ("📖 Wrong Track: …"), and how to play it when the seat may now."""
    said = f"📖 {cards_text([card], lang)}: {cardtexts.text(card, lang)}"
    playable = [a for a in game.legal_actions(seat) if a["type"] in PLAYS and card in (a.get("card"), a.get("via"))]
    if not playable:
        return said
    how = translator(lang).gettext(
        "To play it now: its number above, or type it with what it needs (as under the question)."
    )
    return f"{said}\n{how}"


def _board(game_id: str, game: Game, meta: dict, lang: str) -> str:
    """The board as a PNG file in the temporary directory, and where it is."""
    picture = board.picture(board.payload(game_id, game.public_view(), names_of(meta), lang))
    path = Path(tempfile.gettempdir()) / f"artemia-{game_id}-turn{game.turn}.png"
    path.write_bytes(picture.png())
    return translator(lang).gettext("The board: {path}").format(path=path)


def status(ctx: Context, game_id: str, snap: Snapshot, meta: dict, game: Game, seat: int, lang: str) -> str:
    """`status` in words: the table's status (as Telegram's /status shows it), then what your seat holds."""
    state = seats.state(ctx, game_id, seats.View(game_id, snap, meta), streaks=False)
    assert state is not None
    asked = plain.shown(game, sorted(state.expected)) if snap.status == "collecting" else []
    shown = asked or plain.cards_pending(game)
    table = ui.status(
        game.public_view(),
        names_of(meta),
        asked,
        state.answered,
        plain.deadline_shown(meta, snap.deadline) if shown else None,
        lang,
        **ui.clock_of(meta),
    )
    return "\n".join([table, ui.situation(game, seat, lang)])
