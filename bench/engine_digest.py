"""A digest of everything the engine shows over thousands of seeded games: run it on two commits to check that a
change of the engine (a faster one, say) changed no behaviour. Equal digests = the same games, step by step.

Plays, for 2 to 7 players under both ``secrecy`` settings, seeded games of these kinds: uniformly random legal
actions (as ``bench_engine.random_games_per_second`` plays), plain bots and eager bots (``bots.play_out``: bots
answer through ``autoplay`` and send plans ahead); plain bot games that, every few steps, also play random
actions in a world sampled from the answering seat's knowledge (``worlds.world``: a state built outside the
engine's driver, as the searching bots' rollouts are); and a few games of searching bots (``botseat``, few
rollouts). After every apply it hashes the events returned, the state (``to_json``), ``waiting_for`` and every
seat's ``legal_actions``; for each waiting seat also ``autoplay``'s answer. It also checks, every few steps, that
a fresh copy of the game (an empty memo) sees the same ``waiting_for`` and legal actions as the game itself: a
derived value kept too long would show there.

    PYTHONPATH=<tree> .venv/bin/python -m bench.engine_digest [games per kind, default 100]

prints the number of games and applies, and the digest.
"""

import hashlib
import random
import sys

import orjson

from service.game import Game, botseat, new_game, observer
from service.game.bots import choose
from service.game.worlds import world

FRESH_EVERY = 7  # compare with a fresh copy every this many applies
WORLD_EVERY = 5  # in the "worlds" games, play in a sampled world every this many steps
WORLD_APPLIES = 40  # for at most this many applies
SEARCH_GAMES = 2  # per player count and secrecy: the searching bots are slow


def _dump(value: object) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _seen(game: Game) -> tuple[list[int], list[list[dict[str, object]]]]:
    """What the game shows now: who it waits for and every seat's legal actions."""
    return game.waiting_for(), [game.legal_actions(seat) for seat in range(game.players)]


class Recorder:
    """Hashes what every apply returns and leaves, for the applies made through it."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.applies = 0

    def record(self, game: Game, events: list[object]) -> None:
        self.applies += 1
        seen = _seen(game)
        waiting, legal = seen
        autoplayed = [game.autoplay(seat) for seat in waiting if legal[seat]]  # a sampled world may offer none
        self.hash.update(_dump([events, seen, autoplayed]))
        self.hash.update(game.to_json().encode())
        if self.applies % FRESH_EVERY == 0:
            fresh = game.copy()
            if _seen(fresh) != seen:
                raise AssertionError(f"a fresh copy sees otherwise than the game itself: {game.to_json()}")

    def watch(self, game: Game) -> Game:
        """Start recording ``game``: what it shows before any apply."""
        self.record(game, [])
        return game

    def apply(self, game: Game, seat: int, action: dict[str, object]) -> None:
        """``game.apply``, recorded. (Called here, not patched onto the game: a compiled Game's methods are
        read-only.)"""
        self.record(game, game.apply(seat, action))


def random_applies(game: Game, rng: random.Random, recorder: Recorder, most: int | None = None) -> None:
    """Uniformly random legal actions, as ``bench_engine.random_games_per_second`` plays: to the game's end, or
    ``most`` of them."""
    played = 0
    while not game.is_over and (most is None or played < most):
        seat = rng.choice(game.waiting_for() + game.may_answer())
        recorder.apply(game, seat, rng.choice(game.legal_actions(seat)))
        played += 1


def bot_game(game: Game, rng: random.Random, recorder: Recorder, eager: bool) -> None:
    """``bots.play_out``'s game, each apply recorded."""
    while not game.is_over:
        waiting = game.waiting_for() + game.may_answer()
        seat = waiting[rng.randrange(len(waiting))]
        for action in choose(game, seat, rng, eager):
            recorder.apply(game, seat, action)
            if game.is_over:
                break


def game_with_worlds(game: Game, rng: random.Random, recorder: Recorder) -> None:
    """Plain bots; every few steps random actions in a world the answering seat cannot tell from this game."""
    step = 0
    while not game.is_over:
        seat = rng.choice(game.waiting_for())
        step += 1
        if step % WORLD_EVERY == 0:  # as a rollout: the seat's answer first, if that world allows it
            sampled = recorder.watch(Game(world(observer.knowledge(game, seat), random.Random(step))))
            answer = rng.choice(game.legal_actions(seat))
            if answer in sampled.legal_actions(seat):
                recorder.apply(sampled, seat, answer)
                random_applies(sampled, random.Random(step), recorder, WORLD_APPLIES)
        for action in choose(game, seat, rng):
            recorder.apply(game, seat, action)
            if game.is_over:
                break


def searching_game(game: Game, rng: random.Random, recorder: Recorder) -> None:
    while not game.is_over:
        seat = rng.choice(game.waiting_for())
        recorder.apply(game, seat, botseat.answer(game, seat, "hard", rollouts=2))


def main(games: int) -> None:
    recorder, played = Recorder(), 0
    for players in range(2, 8):
        for secrecy in ("strict", "fast"):
            for kind in ("random", "plain", "eager", "worlds", "search"):
                for seed in range(SEARCH_GAMES if kind == "search" else games):
                    game = recorder.watch(new_game({"players": players, "seed": seed, "secrecy": secrecy}))
                    rng = random.Random(seed)
                    if kind == "random":
                        random_applies(game, rng, recorder)
                    elif kind == "worlds":
                        game_with_worlds(game, rng, recorder)
                    elif kind == "search":
                        searching_game(game, rng, recorder)
                    else:
                        bot_game(game, rng, recorder, eager=kind == "eager")
                    played += 1
    print(f"{played} games, {recorder.applies} applies, digest {recorder.hash.hexdigest()}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
