"""Random and property-based play: every game ends, cards are conserved, views keep secrets, the state round-trips
through JSON, replays are deterministic, and illegal actions change nothing."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.game import Game, IllegalAction, new_game
from service.game.cards import HUNT_CARDS, SURVIVAL_CARDS
from tests.engine_helpers import CREATURE, check_invariants, scenario

MAX_STEPS = 5000
PLAYOUT = settings(
    max_examples=170, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
SMALL = settings(
    max_examples=8, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def config(seed, players):
    return {"players": players, "seed": seed, "side": None, "expert": seed % 4 == 0}


def choose(g, rng):
    """One step of the seeded random policy: a seat asked (waited for, or ``may``), then a random legal action or
    the autoplay (for a seat waited for)."""
    waiting = g.waiting_for()
    assert waiting, f"window {g.window} waits for nobody"
    seat = rng.choice(waiting + g.may_answer())
    legal = g.legal_actions(seat)
    assert legal, f"seat {seat} is asked but has no legal action"
    if seat in waiting and rng.random() < 0.3:
        action = g.autoplay(seat)
        assert action in legal, f"autoplay {action} is not legal for seat {seat}"
        return seat, action
    return seat, rng.choice(legal)


def playout(seed, players, each_step=None):
    g = new_game(config(seed, players))
    rng = random.Random(seed)
    steps = 0
    while not g.is_over:
        seat, action = choose(g, rng)
        before = g
        g.apply(seat, action)
        steps += 1
        assert steps < MAX_STEPS, "the game does not end"
        if each_step:
            each_step(g, before)
    return g, steps


# ---------------------------------------------------------------- views
def _public_part(view, smoke_visible):
    """A view without its "you" part (and, for a Hunted under Smokescreen, without the discards they may see)."""
    view = {k: v for k, v in view.items() if k != "you"}
    if smoke_visible:
        view["hunted"] = [{k: v for k, v in h.items() if k != "discard"} for h in view["hunted"]]
    return view


def check_views(g):
    s = g.s
    public = g.public_view()
    json.dumps(public)
    assert "you" not in public
    assert isinstance(public["creature"]["hunt_cards"], int)
    assert isinstance(public["hunt_deck"], int) and isinstance(public["survival_deck"], int)
    for entry in public["hunted"]:
        assert all(isinstance(entry[k], int) for k in ("hand", "survival", "drawn_to_choose"))
        if not s["this_turn"]["revealed"]:
            assert isinstance(entry["played"], int), "played cards shown before the reveal"
    smoke = bool(s["this_turn"]["smokescreen"])
    for seat in range(g.players):
        view = g.view(seat)
        json.dumps(view)
        # Everything outside "you" is what everyone sees (a Hunted also sees discards under Smokescreen).
        hunted_smoke = smoke and seat != CREATURE
        assert _public_part(view, hunted_smoke) == _public_part(public, hunted_smoke)
        you = view["you"]
        assert you["seat"] == seat
        if seat == CREATURE:
            assert set(you) == {"seat", "role", "hunt_cards", "shown_by_phobia"}
            assert you["hunt_cards"] == sorted(s["players"][0]["hand"])
        else:
            h = s["players"][seat]
            assert set(you) == {"seat", "role", "hand", "survival", "drawn_to_choose", "played"}
            assert you["hand"] == sorted(h["hand"]) and you["survival"] == sorted(h["survival"])
            assert you["played"] == h["played"] and you["drawn_to_choose"] == sorted(h["drawn_to_choose"])
            if hunted_smoke:
                assert [e["discard"] for e in view["hunted"]] == [
                    s["players"][x]["discard"] for x in range(1, g.players)
                ]


def _perturbed(g, seat, rng):
    """A copy of the game whose secrets hidden from ``seat`` are changed (same sizes, other cards)."""
    p = g.copy()
    s = p.s
    places = list(range(1, 11))
    for other in range(1, g.players):
        if other == seat:
            continue
        h = s["players"][other]
        h["hand"] = rng.sample(places, len(h["hand"])) if len(h["hand"]) <= 10 else h["hand"][::-1]
        h["survival"] = rng.sample(SURVIVAL_CARDS, len(h["survival"]))
        h["drawn_to_choose"] = rng.sample(SURVIVAL_CARDS, len(h["drawn_to_choose"]))
        if not s["this_turn"]["revealed"]:
            h["played"] = rng.sample(places, len(h["played"]))
    if seat != CREATURE:
        creature = s["players"][0]
        creature["hand"] = rng.sample(HUNT_CARDS, len(creature["hand"]))
    rng.shuffle(s["hunt_deck"])
    rng.shuffle(s["survival_deck"])
    return p


def _with_waiting(view, original):
    """The view with the open window's waiting seats as ``original``'s: which seats are asked, and whether a card
    may still be played, are checked separately (tests/test_engine_secrecy.py: changed secrets may change who
    still has a question)."""
    if view["window"] is not None:
        view["window"]["waiting"] = original["window"]["waiting"]
        view["window"]["cards_pending"] = original["window"]["cards_pending"]
    return view


def check_secrets_differential(g, rng):
    """Changing what a seat may not know must not change that seat's view (nor the public view)."""
    for seat in [None] + list(range(g.players)):
        changed = _perturbed(g, seat if seat is not None else -1, rng)
        if seat is None:
            original = g.public_view()
            assert _with_waiting(changed.public_view(), original) == original
        else:
            original = g.view(seat)
            assert _with_waiting(changed.view(seat), original) == original, (
                f"seat {seat}'s view shows another seat's secret"
            )


# ---------------------------------------------------------------- the big playout
@pytest.mark.parametrize("players", range(2, 8))
@PLAYOUT
@given(seed=st.integers(0, 2**31 - 1))
def test_random_games_end_with_a_winner_and_keep_every_invariant(players, seed):
    last = {}

    def each_step(g, _):
        check_invariants(g)
        distances = (g.s["rescue"], g.s["assimilation"])
        if last:
            assert distances[0] <= last["d"][0] and distances[1] <= last["d"][1], "a counter moved backwards"
            assert last["d"][0] - distances[0] <= 3 and last["d"][1] - distances[1] <= 8
        last["d"] = distances
        assert g.window is None or g.waiting_for(), "an open window waits for nobody"

    g, _ = playout(seed, players, each_step)
    assert g.winner in ("creature", "hunted")
    assert (g.s["rescue"] == 0) == (g.winner == "hunted")
    assert (g.s["assimilation"] == 0) == (g.winner == "creature")
    assert g.window is None and g.waiting_for() == []


@pytest.mark.parametrize("players", range(2, 8))
@SMALL
@given(seed=st.integers(0, 2**31 - 1))
def test_views_hold_no_other_seats_secrets(players, seed):
    rng = random.Random(seed + 1)
    steps = {"n": 0}

    def each_step(g, _):
        check_views(g)
        steps["n"] += 1
        if steps["n"] % 4 == 0:
            check_secrets_differential(g, rng)

    playout(seed, players, each_step)


def test_smokescreen_view_is_checked_by_the_view_property():
    """Make sure check_views sees a Smokescreen turn (it would fail on a leak of the discards)."""
    g = scenario(hunted={1: {"hand": [1, 2], "discard": [3, 4, 5], "survival": ["smokescreen"]}})
    g.apply(1, {"type": "survival", "card": "smokescreen"})
    check_views(g)
    assert g.view(CREATURE)["hunted"][0]["discard"] is None and g.view(2)["hunted"][0]["discard"] == [3, 4, 5]


# ---------------------------------------------------------------- JSON and determinism
@pytest.mark.parametrize("players", [2, 4, 7])
@SMALL
@given(seed=st.integers(0, 2**31 - 1), cut=st.integers(0, 150))
def test_json_round_trip_gives_an_identical_continuation(players, seed, cut):
    g = new_game(config(seed, players))
    rng = random.Random(seed)
    for _ in range(cut):
        if g.is_over:
            break
        g.apply(*choose(g, rng))
    text = g.to_json()
    h = Game.from_json(text)
    assert h.to_json() == text and json.loads(text) == g.s
    assert h.public_view() == g.public_view() and h.waiting_for() == g.waiting_for()
    for seat in range(players):
        assert h.legal_actions(seat) == g.legal_actions(seat) and h.view(seat) == g.view(seat)
    rng_g, rng_h = random.Random(seed + 7), random.Random(seed + 7)
    while not g.is_over:
        seat, action = choose(g, rng_g)
        assert choose(h, rng_h) == (seat, action)
        # (compared at once: an event may share lists with the state, see test_reveal_event_is_not_changed...)
        assert json.loads(json.dumps(g.apply(seat, action))) == json.loads(json.dumps(h.apply(seat, action)))
        assert g.to_json() == h.to_json()
    assert h.is_over and h.winner == g.winner


@pytest.mark.parametrize("players", [3, 5, 6])
@SMALL
@given(seed=st.integers(0, 2**31 - 1))
def test_replay_is_deterministic(players, seed):
    g = new_game(config(seed, players))
    rng = random.Random(seed)
    log, states, events = [], [g.to_json()], []

    def snapshot(value):
        return json.loads(json.dumps(value))

    while not g.is_over:
        seat, action = choose(g, rng)
        log.append((seat, snapshot(action)))
        events.append(snapshot(g.apply(seat, action)))
        states.append(g.to_json())
    again = new_game(config(seed, players))
    assert again.to_json() == states[0]
    for i, (seat, action) in enumerate(log):
        assert snapshot(again.apply(seat, action)) == events[i]
        assert again.to_json() == states[i + 1]


def test_different_seeds_give_different_games():
    a, b = new_game(config(1, 5)), new_game(config(2, 5))
    assert a.s["hunt_deck"] != b.s["hunt_deck"] or a.s["survival_deck"] != b.s["survival_deck"]


# ---------------------------------------------------------------- illegal actions
MALFORMED = [
    None,
    "play",
    3,
    [],
    {},
    {"type": "nope"},
    {"type": "play"},
    {"type": "play", "cards": "1"},
    {"type": "play", "cards": [99]},
    {"type": "play", "cards": [1, 1]},
    {"type": "play", "cards": None},
    {"type": "tokens"},
    {"type": "tokens", "creature": 11},
    {"type": "resist", "cards": [42]},
    {"type": "survival", "card": "no-such-card"},
    {"type": "hunt_card", "card": "despair", "x": 1},
    {"type": "power", "place": 1},
    {"type": "takeback", "place": 1, "card": 7},
    {"type": "keep", "card": 3},
    {"type": "side", "side": 3},
    {"type": "giveup", "extra": True},
    {"type": "plan", "orders": "pass"},
    {"type": "plan", "orders": [{"type": "nope"}]},
    {"type": "plan", "orders": [{"type": "pass"}] * 21},
    {"type": "plan", "orders": [{"type": "plan"}]},
]


def assert_illegal(g, seat, action):
    before = g.to_json()
    with pytest.raises(IllegalAction):
        g.apply(seat, action)
    assert g.to_json() == before, f"{action!r} from seat {seat} changed the state"


def illegal_attempts(g, rng):
    waiting = g.waiting_for()
    for seat in range(g.players):
        if g.answering(seat):
            legal = g.legal_actions(seat)
            for action in MALFORMED:
                if action not in legal:
                    assert_illegal(g, seat, action)
        else:
            # another seat's legal action, or any action at all, from a seat that is not asked
            for other in waiting:
                for action in rng.sample(g.legal_actions(other), min(3, len(g.legal_actions(other)))):
                    assert_illegal(g, seat, action)
            assert_illegal(g, seat, {"type": "pass"})
    for seat in (-1, g.players, "1", 1.0, None):
        assert_illegal(g, seat, {"type": "pass"})
    # out of window: an action of a kind that belongs to another window
    kinds = {a["type"] for seat in waiting for a in g.legal_actions(seat)}
    for action in (
        {"type": "tokens", "creature": 3},
        {"type": "keep", "card": 1},
        {"type": "side", "side": 1},
        {"type": "lose_will"},
        {"type": "keep_survival", "card": "dodge"},
    ):
        if action["type"] not in kinds:
            for seat in waiting:
                assert_illegal(g, seat, action)


@pytest.mark.parametrize("players", [2, 4, 7])
@SMALL
@given(seed=st.integers(0, 2**31 - 1))
def test_illegal_actions_raise_and_change_nothing(players, seed):
    g = new_game(config(seed, players))
    rng = random.Random(seed)
    step = 0
    while not g.is_over:
        if step % 9 == 0:
            illegal_attempts(g, rng)
        g.apply(*choose(g, rng))
        step += 1
    assert_illegal(g, 0, {"type": "pass"})
    assert_illegal(g, 1, {"type": "plan", "orders": []})


def test_wrong_cards_are_illegal():
    g = scenario(hunted={1: {"hand": [1, 2], "discard": [3, 4, 5]}})
    for action in (
        {"type": "play", "cards": [3]},
        {"type": "play", "cards": [1, 2]},
        {"type": "resist", "cards": [1, 2]},
        {"type": "resist", "cards": [3, 9]},
        {"type": "resist", "cards": [5, 4]},
        {"type": "survival", "card": "dodge"},
        {"type": "play", "cards": [6]},
    ):
        assert_illegal(g, 1, action)


@pytest.mark.parametrize(
    "action", [{"type": ["play"]}, {"type": {"a": 1}}, {"type": "plan", "orders": [{"type": ["pass"]}]}]
)
def test_unhashable_action_type_is_illegal(action):
    g = scenario()
    assert_illegal(g, 1, action)


def test_autoplay_places_the_artemia_token_when_due():
    g = scenario(rescue=6, creature=["fierceness", "clone", "anticipation"])
    g.apply(1, {"type": "play", "cards": [1]})
    g.apply(2, {"type": "play", "cards": [2]})
    assert g.window["kind"] == "hunt"
    action = g.autoplay(CREATURE)
    assert action in g.legal_actions(CREATURE)


def test_autoplay_is_legal_in_every_window_of_a_game():
    for seed in range(6):
        g = new_game(config(seed, 2 + seed))
        while not g.is_over:
            for seat in g.waiting_for():
                if g.window["kind"] != "hunt":
                    assert g.autoplay(seat) in g.legal_actions(seat)
            seat = g.waiting_for()[0]
            g.apply(seat, g.autoplay(seat) if g.window["kind"] != "hunt" else g.legal_actions(seat)[-1])


# ---------------------------------------------------------------- events are snapshots
def test_reveal_event_is_not_changed_by_later_steps():
    g = scenario()
    events = []
    events += g.apply(1, {"type": "play", "cards": [2]})
    events += g.apply(2, {"type": "play", "cards": [4]})
    events += g.apply(CREATURE, {"type": "tokens", "creature": 9})
    reveal = next(e for e in events if e["type"] == "reveal")
    assert reveal["played"] == {"1": [2], "2": [4]}


def test_exploration_window_does_not_reveal_the_creatures_phase_one_cards():
    with_ff = scenario(creature=["force-field", "fierceness", "anticipation"])
    without = scenario(creature=["clone", "fierceness", "anticipation"])
    assert with_ff.view(1)["window"]["waiting"] == without.view(1)["window"]["waiting"]
