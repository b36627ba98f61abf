"""Draw the board pictures of docs/board/ (2, 5 and 7 players, both board sides, Czech and English):

    .venv/bin/python tools/board_pictures.py [OUT_DIR]

Each is a bot-played game (fixed seeds, so the pictures are reproducible for a given engine) stopped at the
first Reckoning window (just after a reveal) of the turn named below, drawn from its public view as the group
sees it (`service.board`).
"""

import pathlib
import random
import sys

from service import board
from service.game import new_game
from service.game.bots import choose

NAMES = {0: "Eva", 1: "Anna", 2: "Petr", 3: "Zdeněk", 4: "Šárka", 5: "Jiří", 6: "Bob"}
# (players, board side, language, turn)
PICTURES = [(2, 1, "en", 4), (2, 2, "cs", 4), (5, 1, "cs", 5), (5, 2, "en", 5), (7, 1, "en", 3), (7, 2, "cs", 6)]


def view_at(players: int, side: int, turn: int) -> dict:
    game, rng = new_game({"players": players, "seed": players * 10 + side, "side": side}), random.Random(players)
    while not game.is_over and not (game.turn >= turn and game.window and game.window["kind"] == "reckoning"):
        seat = game.waiting_for()[0]
        for action in choose(game, seat, rng):
            game.apply(seat, action)
            if game.is_over:
                break
    return game.public_view()


def main(out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for players, side, lang, turn in PICTURES:
        names = {seat: name for seat, name in NAMES.items() if seat < players}
        picture = board.picture(board.payload("docs", view_at(players, side, turn), names, lang))
        path = out / f"board-{players}p-side{side}-{lang}.png"
        path.write_bytes(picture.png())
        print(path)


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/board"))
