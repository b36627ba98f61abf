"""The card table (service/game/registry.py): complete, in agreement with cards.json, and the parameter shapes
it declares are the ones the rules offer and the command language reads."""

import random

import pytest

from service.cardnames import name
from service.commands.words import CARD_PARAMS, TARGET_OPTIONAL, VIA_CARDS
from service.game import new_game
from service.game.bots import choose
from service.game.cards import CARDS, HUNT_CARDS, SURVIVAL_CARDS
from service.game.registry import CARD_LIST, CARD_RULES


def test_every_hunt_and_survival_card_has_one_entry():
    assert sorted(card.id for card in CARD_LIST) == sorted(HUNT_CARDS + SURVIVAL_CARDS)
    assert len(CARD_LIST) == len(CARD_RULES)


@pytest.mark.parametrize("card", CARD_LIST, ids=lambda c: c.id)
def test_entry_agrees_with_cards_json(card):
    data = CARDS[card.id]
    assert (card.kind, card.phase, card.symbol) == (data["kind"], data["phase"], data["symbol"])
    assert name(card.id, "en") and name(card.id, "cs")  # both languages name it


def test_command_language_reads_the_shapes_from_the_table():
    assert CARD_PARAMS == {c.id: c.params for c in CARD_LIST if c.params}
    assert set(VIA_CARDS) == {"drone", "gate"}
    assert TARGET_OPTIONAL == {"force-field", "clone", "mirage", "scream", "toxin"}


def _offered_parameters(seeds):
    """Parameter names of every card play offered in bot games, by the card whose effect it is."""
    seen = {}
    for seed in seeds:
        game, rng = new_game({"players": 2 + seed % 6, "seed": seed}), random.Random(seed)
        while not game.is_over:
            seat = rng.choice(game.waiting_for())
            for action in game.legal_actions(seat):
                if action["type"] in ("survival", "hunt_card"):
                    effect = action.get("copy", action["card"])
                    seen.setdefault(effect, set()).add(frozenset(action) - {"type", "card", "copy"})
            for action in choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break
    return seen


def test_offered_parameters_match_the_declared_shape():
    for card, shapes in _offered_parameters(range(60)).items():
        rule = CARD_RULES[card]
        allowed = {frozenset(rule.params)} | ({frozenset()} if rule.target_optional else set())
        assert shapes <= allowed, (card, shapes, rule.params)
