"""The searching bots (service/game/search.py, worlds.py, botseat.py): fair by construction and legal.

Fair: the search is given a seat's knowledge (observer.knowledge), so two games that differ only in what the
seat may not know give it the same knowledge and, for the same seed and rollout budget, the same decision; it
refuses anything but plain JSON, so it cannot hold a game. (The import-linter contract "The search sees a seat's
knowledge, never the game" keeps the observer and stored games out of its imports.)
"""

import json
import random
import time

import pytest

from service.game import CREATURE, new_game
from service.game.bots import choose
from service.game.botseat import answer
from service.game.engine import Game
from service.game.observer import knowledge
from service.game.search import LEVELS, decide
from service.game.worlds import world


def position(players: int, seed: int, stop) -> Game:
    """A bot game played from ``seed`` until ``stop(game)`` holds."""
    game, rng = new_game({"players": players, "seed": seed, "side": 1}), random.Random(seed)
    while not stop(game):
        assert not game.is_over, "the game ended before the position sought"
        seat = rng.choice(game.waiting_for())
        game.apply(seat, choose(game, seat, rng)[0])
    return game


def creature_to_hunt(game: Game) -> bool:
    """The Creature places its tokens in turn 2, after the Hunted played face down."""
    return game.turn >= 2 and game.window["kind"] == "hunt" and CREATURE in game.waiting_for()


def hunted_to_explore(game: Game) -> bool:
    return game.turn >= 2 and game.window["kind"] == "explore" and 1 in game.waiting_for()


def swap_secrets_from_creature(game: Game) -> Game:
    """The same game but for what the Creature cannot see: a Hunted's face-down card and hand swapped, another
    Survival card in a Hunted's hand, another order of the Survival deck, another seed."""
    other = game.copy()
    s = other.s
    h = s["players"][1]
    card = next(c for c in h["hand"] if c not in h["played"])
    h["hand"][h["hand"].index(card)], h["played"][0] = h["played"][0], card
    h["survival"][0], s["survival_deck"][0] = s["survival_deck"][0], h["survival"][0]
    s["survival_deck"].reverse()
    s["config"]["seed"] += 1
    return other


def swap_secrets_from_hunted(game: Game) -> Game:
    """The same game but for what Hunted 1 cannot see: the Creature's hand, the Hunt deck, Hunted 2's Survival
    card, the seed."""
    other = game.copy()
    s = other.s
    creature = s["players"][CREATURE]["hand"]
    creature[0], s["hunt_deck"][0] = s["hunt_deck"][0], creature[0]
    s["hunt_deck"].reverse()
    s["players"][2]["survival"][0], s["survival_deck"][0] = s["survival_deck"][0], s["players"][2]["survival"][0]
    s["config"]["seed"] += 1
    return other


@pytest.mark.parametrize(
    "seat, owner, stop, swap",
    [
        (CREATURE, 1, creature_to_hunt, swap_secrets_from_creature),
        (1, CREATURE, hunted_to_explore, swap_secrets_from_hunted),
    ],
)
def test_games_the_seat_cannot_tell_apart_give_the_same_decision(seat, owner, stop, swap):
    game = position(4, 11, stop)
    other = swap(game)
    assert other.s != game.s
    assert knowledge(other, seat) == knowledge(game, seat)
    assert knowledge(other, owner) != knowledge(game, owner)  # the seat whose secrets were changed sees it
    for level in LEVELS:
        for seed in (1, 2):
            mine = answer(game, seat, level, rollouts=12, seed=seed)
            assert answer(other, seat, level, rollouts=12, seed=seed) == mine
            assert mine in game.legal_actions(seat)


def test_the_knowledge_hides_every_secret_of_the_other_seats():
    game = position(4, 5, creature_to_hunt)
    k = knowledge(game, CREATURE)
    assert k["config"]["seed"] is None
    assert isinstance(k["hunt_deck"], int) and isinstance(k["survival_deck"], int)
    assert k["players"][CREATURE]["hand"] == game.s["players"][CREATURE]["hand"]
    for seat in game.hunted_seats():
        h = k["players"][seat]
        assert (h["hand"], h["survival"], h["played"]) == tuple(
            len(game.s["players"][seat][key]) for key in ("hand", "survival", "played")
        )
    hunted = knowledge(game, 1)
    assert hunted["players"][CREATURE]["hand"] == len(game.s["players"][CREATURE]["hand"])
    assert hunted["players"][1]["hand"] == game.s["players"][1]["hand"]
    assert hunted["players"][2]["hand"] == len(game.s["players"][2]["hand"])


def test_the_search_refuses_a_game_and_anything_but_plain_json():
    game = position(3, 2, hunted_to_explore)
    options = game.legal_actions(1)
    with pytest.raises(TypeError):
        decide(game, options, "hard", 1, rollouts=4)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        decide({**knowledge(game, 1), "game": game}, options, "hard", 1, rollouts=4)
    with pytest.raises(ValueError):
        decide(knowledge(game, 1), options, "impossible", 1, rollouts=4)
    with pytest.raises(ValueError):
        decide(knowledge(game, 1), options, "hard", 1, rollouts=None, budget_ms=None)  # no budget: no end


def test_the_time_cap_cuts_a_search_short_but_it_still_answers():
    """A machine too busy for the rollouts: past the cap the search stops, after one rollout per candidate."""
    game = position(3, 2, hunted_to_explore)
    options = game.legal_actions(1)
    start = time.perf_counter()
    action = decide(knowledge(game, 1), options, "hard", 1, rollouts=100_000, budget_ms=1)
    assert action in options and time.perf_counter() - start < 10  # 100,000 rollouts would take minutes


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 4), (5, 9), (7, 3)])
def test_sampled_worlds_agree_with_what_the_seat_knows(players, seed):
    """Over a whole game, every world sampled for the seat being asked keeps the seat's own cards and options,
    every count it sees, and holds each Hunt and Survival card once."""
    game, rng = new_game({"players": players, "seed": seed}), random.Random(seed)
    while not game.is_over:
        seat = rng.choice(game.waiting_for())
        k = knowledge(game, seat)
        sampled = Game(world(k, rng))
        assert sampled.legal_actions(seat) == game.legal_actions(seat)
        assert knowledge(sampled, seat) == k
        creature = sampled.s["players"][CREATURE]
        hunt = creature["hand"] + creature["played"] + sampled.s["hunt_deck"] + sampled.s["hunt_discard"]
        assert sorted(hunt) == sorted(set(hunt)) and len(hunt) == 20
        survival = sampled.s["survival_deck"] + sampled.s["survival_discard"]
        for h in sampled.s["players"][1:]:
            survival += h["survival"] + h["drawn_to_choose"]
        assert len(survival) == len(set(survival))
        game.apply(seat, choose(game, seat, rng)[0])


def test_a_searching_bot_plays_a_whole_game_legally():
    game, rng = new_game({"players": 3, "seed": 8}), random.Random(8)
    while not game.is_over:
        seat = rng.choice(game.waiting_for())
        action = answer(game, seat, "normal" if seat == CREATURE else "hard", rollouts=6)
        assert action in game.legal_actions(seat)
        json.dumps(action)
        game.apply(seat, action)
    assert game.winner in ("creature", "hunted")
