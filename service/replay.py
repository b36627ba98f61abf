"""Game logs and their replay: the format of bug reports and of scenario-test fixtures.

It lives beside the engine, not in it, because a log line may be a typed command (`service.commands`).

A log is plain text. The first non-comment line is the game's config as JSON (`service.game.new_game`'s; a log
written before the ``secrecy`` setting existed needs ``"secrecy": "fast"`` to replay as it was played); every
other line is
``seat: command``, where the command is either the text command language (``2: play 3``) or a JSON action
(``2: {"type": "play", "cards": [3]}``). Lines starting with ``#`` and blank lines are ignored.

    python -m service.replay FILE      (or: artemia-replay FILE; FILE "-" reads standard input)
    python -m service.replay FILE --board out.png [--turn N] [--lang cs|en]

prints one JSON line per window that opens (its public view) and a final JSON line with the result; a line that
cannot be applied prints an error line naming it and the command exits with status 1. With ``--board`` it draws
the board (`service.board`: what the group sees) as a PNG instead: at the last window of turn ``N``, or at the end
of the log; a turn the log never reaches is an error (status 1).
"""

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service import board, commands
from service.game.engine import Game, IllegalAction, new_game


class ReplayError(ValueError):
    """A log line that could not be read or applied; the message names the line."""


def parse_log(text: str) -> tuple[dict[str, Any], list[tuple[int, int, str]]]:
    """(config, [(line_number, seat, command_text)]) from a log's text."""
    config: dict[str, Any] | None = None
    moves: list[tuple[int, int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if config is None:
            try:
                config = json.loads(line)
            except json.JSONDecodeError as error:
                raise ReplayError(f"line {number}: the first line must be the config as JSON ({error})") from None
            continue
        seat, sep, command = line.partition(":")
        if not sep or not seat.strip().isdigit():
            raise ReplayError(f"line {number}: expected 'seat: command', got {line!r}")
        moves.append((number, int(seat), command.strip()))
    if config is None:
        raise ReplayError("the log is empty: it needs a config line")
    return config, moves


def to_actions(game: Game, seat: int, command: str) -> list[dict[str, Any]]:
    """The engine actions one log command stands for."""
    if command.startswith("{"):
        action: dict[str, Any] = json.loads(command)
        return [action]
    return commands.parse(command, game, seat)


def replay(text: str, on_window: Callable[[Game], None] | None = None) -> Game:
    """Apply a log; returns the game. Calls ``on_window(game)`` whenever a new window opens."""
    config, moves = parse_log(text)
    try:
        game = new_game(config)
    except IllegalAction as error:
        raise ReplayError(f"the config line: {error}") from None
    last_window = None
    steps: list[tuple[int, int | None, str]] = [(0, None, "")] + [(n, s, c) for n, s, c in moves]
    for number, seat, command in steps:
        if seat is not None:
            try:
                for action in to_actions(game, seat, command):
                    game.apply(seat, action)
            except (IllegalAction, ValueError) as error:
                raise ReplayError(f"line {number}: {seat}: {command}: {error}") from None
        window = game.window
        if on_window and window != last_window:
            on_window(game)
        last_window = window
    return game


def write_log(config: dict[str, Any], moves: list[tuple[int, dict[str, Any]]]) -> str:
    """A log's text from a config and ``[(seat, action), ...]`` (actions written as JSON)."""
    lines = [json.dumps(config, sort_keys=True)]
    lines += [f"{seat}: {json.dumps(action, sort_keys=True)}" for seat, action in moves]
    return "\n".join(lines) + "\n"


def result(game: Game) -> dict[str, Any]:
    return {
        "result": {
            "over": game.is_over,
            "winner": game.winner,
            "turn": game.turn,
            "rescue": game.s["rescue"],
            "assimilation": game.s["assimilation"],
        }
    }


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m service.replay", description="Replay a game log.")
    parser.add_argument("file", help="the log; '-' reads standard input")
    parser.add_argument("--board", metavar="PNG", help="draw the board as a PNG here instead of printing views")
    parser.add_argument("--turn", type=int, help="with --board: the board at the last window of this turn")
    parser.add_argument("--lang", choices=("en", "cs"), default="en", help="with --board: its language")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(sys.argv[1:] if argv is None else argv)
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    views: list[dict[str, Any]] = []  # with --board: the public view at the last window of the turn asked

    def show(game: Game) -> None:
        if args.board is None:
            print(json.dumps({"window": game.window, "view": game.public_view()}, sort_keys=True))
        elif args.turn == game.turn:
            views[:] = [game.public_view()]

    try:
        game = replay(text, on_window=show)
    except ReplayError as error:
        print(json.dumps({"error": str(error)}))
        return 1
    if args.board is not None:
        if args.turn is None:
            views[:] = [game.public_view()]
        if not views:
            print(json.dumps({"error": f"the log never reaches turn {args.turn} (it ends in turn {game.turn})"}))
            return 1
        picture = board.picture(board.payload("replay", views[0], {}, args.lang))
        Path(args.board).write_bytes(picture.png())
    print(json.dumps(result(game), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
