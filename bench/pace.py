"""Pace: how many times a turn stops for people, when players answer only the questions they are sent.

    python -m bench.pace --players 4 --games 1000 [--secrecy strict|fast] [--json]

Plays ``games`` bot games (seeds 0..games-1). A seat is *sent a question* when a window asks it (waits for it, or
offers it a question it need not answer: ``game.may_answer``); at a random moment among the seats asked, it
answers with the options of that question only (``game.legal_actions``), screen after screen in one sitting as
the chat shows them (a follow-up such as the place's question ahead comes at once), and never sends a plan. Counted per turn (the setup window is not part of a turn):

* a *wait*: a window that stopped for somebody;
* a *question*: a seat a window asked, waited for or not (``may_answer``: the Creature's phase-1 card during the
  exploration under strict secrecy, a Hunted's question ahead during the hunt), once per window and seat however
  many screens its answer took;
* a *pass-only question*: one whose options, when the seat was first asked in that window, were all ``pass``.

A *player-turn* is one seat in one turn (turns x players). The last line printed is the JSON summary
``{"games", "waits_median", "waits_mean", "waits_p90", "pass_only_per_player_turn",
"questions_per_player_turn"}`` (with ``--json``, the only line). Deterministic: the same seeds give the same
figures on any machine.
"""

import argparse
import json
import random
import statistics
from dataclasses import dataclass, field

from service.game import SECRECY_SETTINGS, new_game
from service.game.bots import choose


@dataclass
class Tally:
    waits: list[int] = field(default_factory=list)  # per turn
    questions: int = 0
    pass_only: int = 0
    player_turns: int = 0


def play(players: int, seed: int, secrecy: str, tally: Tally) -> None:
    """One bot game; adds its turns to ``tally``."""
    game = new_game({"players": players, "seed": seed, "secrecy": secrecy})
    rng = random.Random(seed)
    windows: dict[int, tuple[int, str]] = {}  # window id -> (turn, kind)
    asked: set[tuple[int, int]] = set()  # (window id, seat)

    def look() -> None:
        window = game.window
        if window is None:
            return
        windows.setdefault(window["id"], (game.turn, window["kind"]))
        if window["kind"] == "setup":
            return
        for seat in game.waiting_for() + game.may_answer():
            if (window["id"], seat) not in asked:
                asked.add((window["id"], seat))
                tally.questions += 1
                options = game.legal_actions(seat)
                tally.pass_only += all(o["type"] == "pass" for o in options)

    look()
    while not game.is_over:
        waiting = game.waiting_for() + game.may_answer()
        seat = waiting[rng.randrange(len(waiting))]
        window = game.window["id"]
        # One sitting: the seat answers every screen of its question, follow-ups included (its place's question
        # ahead comes at once, in the next window when its place was the last one chosen).
        while not game.is_over and game.answering(seat) and (game.window["id"] == window or ahead_only(game, seat)):
            for action in choose(game, seat, rng, eager=False):
                if action["type"] == "plan":
                    continue  # an answer ahead of its question: not what this bench's players do
                game.apply(seat, action)
                if game.is_over:
                    break
                look()
    per_turn: dict[int, int] = {}
    for turn, kind in windows.values():
        if kind != "setup":
            per_turn[turn] = per_turn.get(turn, 0) + 1
    tally.waits += per_turn.values()
    tally.player_turns += game.turn * players


def ahead_only(game, seat: int) -> bool:
    """Whether all the seat is asked now is its place's question ahead (rules/ahead.py)."""
    return all(option["type"] == "ahead" for option in game.legal_actions(seat))


def percentile(sorted_values: list[int], fraction: float) -> int:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def measure(players: int, games: int, secrecy: str) -> dict:
    tally = Tally()
    for seed in range(games):
        play(players, seed, secrecy, tally)
    waits = sorted(tally.waits)
    return {
        "games": games,
        "waits_median": statistics.median(waits),
        "waits_mean": round(statistics.mean(waits), 3),
        "waits_p90": percentile(waits, 0.9),
        "pass_only_per_player_turn": round(tally.pass_only / tally.player_turns, 4),
        "questions_per_player_turn": round(tally.questions / tally.player_turns, 4),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pace", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 8))
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--secrecy", default="strict", choices=SECRECY_SETTINGS)
    parser.add_argument("--json", action="store_true", help="print the JSON summary only")
    args = parser.parse_args(argv)
    result = measure(args.players, args.games, args.secrecy)
    if not args.json:
        print(
            f"{args.players} players, {args.secrecy}, {args.games} games: waits per turn median "
            f"{result['waits_median']}, mean {result['waits_mean']}, p90 {result['waits_p90']}; per player-turn "
            f"{result['questions_per_player_turn']} questions, {result['pass_only_per_player_turn']} pass-only"
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
