"""Decision screens, callback data and group texts of the Telegram channel, over real bot-played games."""

import random

import pytest

from service import cardnames, cardtexts
from service.channels import ui
from service.game import bots, new_game
from service.i18n import events, spoken
from service.pipeline import news
from service.pipeline.ingest import check_answer
from tests.engine_helpers import act, play_turn, scenario

DEADLINE = 1_900_000_000.0
NAMES = {0: "Zora", 1: "Anna", 2: "Petr", 3: "Eva"}


def positions(games=8):
    """(game, asked seat) at every decision of a few bot-played games of every size."""
    for seed in range(games):
        rng = random.Random(seed)
        game = new_game({"players": 2 + seed % 6, "seed": seed, "side": None, "expert": seed % 2 == 0})
        while not game.is_over:
            waiting = game.waiting_for()
            seat = waiting[rng.randrange(len(waiting))]
            yield game.copy(), seat
            for action in bots.choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break


def leaves(nodes):
    for node in nodes:
        if node.index is not None:
            yield node.index
        yield from leaves(node.children)


def hunt_with_artemia_token():
    for seed in range(40):
        rng = random.Random(seed)
        game = new_game({"players": 4, "seed": seed, "side": None, "expert": False})
        while not game.is_over:
            if game.window["kind"] == "hunt" and len(game.legal_actions(0)) > 100:
                return game
            seat = game.waiting_for()[0]
            for action in bots.choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break
    raise AssertionError("no hunt with the Artemia token in 40 games")


def test_callback_data_round_trips_and_fits():
    choice = ui.Choice("g" * 20, 123456, 6, (12, 3, 101), (9, 2))
    data = choice.data()
    assert ui.decode(data) == choice
    assert len(data.encode()) <= 64
    with pytest.raises(ValueError):
        ui.Choice("g" * 40, 123456789, 0, tuple(range(100, 110)), (1, 2, 3)).data()


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "d:abc",
        "d:abc:1",
        "x:abc:1::",
        "d:ab-c:1::",
        "d:abc:1:1..2:",
        "d:abc:1::1--2",
        "d:abc:-1::",
        "d:abc:1:1234:",
        "d:abc:1::\n",
        "d:абв:1::",
        "d:abc:1:" + ".".join(["1"] * 11) + ":",
        "d:abc:1:0:1..2:",
        "d:abc:1:12::",
        "d:abc:1:x::",
        "d:abc:1:0:" + ".".join(["1"] * 11) + ":",
    ],
)
def test_garbled_callback_data_is_rejected(data):
    with pytest.raises(ui.BadCallback):
        ui.decode(data)


def test_every_screen_offers_every_legal_action_within_telegram_limits():
    screens = 0
    for game, seat in positions():
        legal = game.legal_actions(seat)
        assert sorted(leaves(ui.menu(legal, "en", NAMES))) == list(range(len(legal)))
        for lang in ("en", "cs"):
            screen = ui.decision(game, seat, ui.Choice("G1", game.window["id"], seat), DEADLINE, lang, NAMES)
            buttons = [b for row in screen.keyboard for b in row]
            assert 1 <= len(buttons) <= ui.MAX_BUTTONS
            assert all(1 <= len(row) <= ui.MAX_PER_ROW for row in screen.keyboard)
            assert all(len(b["data"].encode()) <= 64 and ui.decode(b["data"]) for b in buttons)
            screens += 1
    assert screens > 300


def press_until_complete(game, seat, rng, lang="en"):
    """A player pressing random buttons of their decision message until the answer is complete."""
    choice = ui.Choice("G1", game.window["id"], seat)
    for _ in range(30):
        screen = ui.decision(game, seat, choice, DEADLINE, lang, NAMES)
        buttons = [b for row in screen.keyboard for b in row if not b["text"].startswith(("«", "↺", "📖"))]
        choice = ui.decode(rng.choice(buttons)["data"])
        stage = ui.follow(game, seat, choice)
        if stage.complete:
            return choice, stage.actions
    raise AssertionError("the answer never completed")


def test_pressing_buttons_builds_answers_the_pipeline_accepts():
    rng = random.Random(1)
    for n, (game, seat) in enumerate(positions(5)):
        choice, actions = press_until_complete(game, seat, rng, "cs" if n % 2 else "en")
        assert check_answer(game.copy(), seat, actions, choice.window) is None
        screen = ui.locked_in(choice, ui.locked_in_lines(actions, DEADLINE, "en"), "en")
        assert screen.text.startswith("✅ Locked in:")
        assert screen.keyboard and ui.decode(screen.keyboard[0][0]["data"]) == ui.Choice("G1", choice.window, seat)


def test_resist_is_a_sub_menu_and_then_the_play_follows_on_the_same_message():
    for game, seat in positions():
        legal = game.legal_actions(seat)
        resist = [i for i, a in enumerate(legal) if a["type"] == "resist"]
        if len(resist) > 1 and any(a["type"] == "play" for a in legal):
            break
    root = ui.menu(legal, "en")
    sub = next(i for i, node in enumerate(root) if node.label.startswith("Resist"))
    assert [node.index for node in root[sub].children] == resist
    first = ui.Choice("G1", game.window["id"], seat)
    screen = ui.decision(game, seat, first.open((sub,)), DEADLINE, "en")
    assert screen.keyboard[-2] == [{"text": "« Back", "data": first.data()}]
    assert screen.keyboard[-1] == [{"text": "📖 My cards", "data": first.open((ui.CARDS_MENU,)).data()}]
    after_resist = first.choose(resist[0])
    stage = ui.follow(game, seat, after_resist)
    assert not stage.complete and stage.actions == [legal[resist[0]]]
    screen = ui.decision(game, seat, after_resist, DEADLINE, "en")
    assert "Chosen so far: Resist (−1 Will): take back " in screen.text
    assert all(ui.decode(b["data"]).chosen[:1] == (resist[0],) for row in screen.keyboard[:-2] for b in row)


def test_a_hundred_token_pairs_are_two_steps():
    game = hunt_with_artemia_token()
    legal = game.legal_actions(0)
    root = ui.menu(legal, "en")
    places = [node for node in root if node.label.startswith("Creature token")]
    assert len(places) == 10 and all(len(node.children) == 10 for node in places)
    assert {legal[leaf.index]["creature"] for leaf in places[3].children} == {4}
    assert (
        sum(len(row) for row in ui.decision(game, 0, ui.Choice("G1", game.window["id"], 0), DEADLINE, "en").keyboard)
        <= 20
    )


def test_forged_and_stale_choices_are_refused():
    game, seat = next(positions(1))
    window = game.window["id"]
    legal = game.legal_actions(seat)
    with pytest.raises(ui.ExpiredChoice):
        ui.follow(game, seat, ui.Choice("G1", window + 1, seat))
    with pytest.raises(ui.BadCallback):
        ui.follow(game, seat, ui.Choice("G1", window, seat, (len(legal),)))
    with pytest.raises(ui.BadCallback):
        ui.decision(game, seat, ui.Choice("G1", window, seat, (), (99,)), DEADLINE, "en")
    not_asked = next(s for s in range(game.players) if s not in game.waiting_for())
    with pytest.raises(ui.BadCallback):
        ui.follow(game, not_asked, ui.Choice("G1", window, not_asked))
    complete = next(i for i in range(len(legal)) if ui.follow(game, seat, ui.Choice("G1", window, seat, (i,))).complete)
    with pytest.raises(ui.BadCallback):
        ui.follow(game, seat, ui.Choice("G1", window, seat, (complete, 0)))
    other = next(s for s in range(game.players) if s != seat)
    with pytest.raises(ui.ForeignButton):  # the same press on another seat's keyboard is not this seat's answer
        ui.follow(game, seat, ui.Choice("G1", window, other, (complete,)))


def test_status_says_who_answered_not_what_and_speaks_czech():
    game = new_game({"players": 4, "seed": 3, "side": 1, "expert": False})
    other = game.copy()
    game.apply(1, game.legal_actions(1)[0])
    other.apply(1, other.legal_actions(1)[-1])
    view = game.public_view()
    text = ui.status(view, NAMES, [1, 2, 3], {1}, DEADLINE, "en")
    assert text == ui.status(other.public_view(), NAMES, [1, 2, 3], {1}, DEADLINE, "en")  # what: never
    assert "✅ Anna · ⏳ Petr · ⏳ Eva" in text
    assert "Answer by" in text and "UTC" in text
    assert "Rescue counter: " in text
    assert "📡 The Marker counter is not on the Beach: the next use of the Beach puts it there." in text
    # the track drawn: 🔵 at 15 spaces from the star, the Artemia symbols of side 1 on the 6 nearest, 🔴 at 9
    assert "🔵········ⒶⒶⒶⒶⒶⒶ⭐········🔴" in text.splitlines()
    assert "🔵 Rescue counter: 15 spaces to ⭐ · 🔴 Assimilation counter: 9 spaces to ⭐" in text
    assert "Ⓐ: an Artemia symbol; while 🔵 stands on one, the Creature also places the Artemia token." in text
    side_two = new_game({"players": 4, "seed": 3, "side": 2, "expert": False}).public_view()
    two = ui.status({**side_two, "rescue": 5}, NAMES, [1, 2, 3], set(), DEADLINE, "en")
    assert "🔵·Ⓐ·Ⓐ⭐········🔴" in two.splitlines() and "🔵 stands on one now." in two
    assert "Artemia spaces" not in two  # no bare list of numbers
    czech = ui.status(view, NAMES, [1, 2, 3], {1}, DEADLINE, "cs")
    assert "Odpověz do" in czech and "Pláž" in czech
    assert "SEČ" in czech or "SELČ" in czech
    assert "🔵 Ukazatel záchrany: do ⭐ zbývá 15 políček · 🔴 Ukazatel asimilace: do ⭐ zbývá 9 políček" in czech


def test_times_of_a_short_step_show_the_seconds():
    moment = 1_900_000_015.0
    assert ui.when(moment, "en", "UTC") == "Sun 17 Mar, 17:46 UTC"
    assert ui.when(moment, "en", "UTC", precise=True) == "Sun 17 Mar, 17:46:55 UTC"
    assert ui.clock_of({"deadline_seconds": 30}) == {"tz": None, "precise": True}
    assert ui.clock_of({"deadline_seconds": 600, "tz": "Europe/London"}) == {"tz": "Europe/London", "precise": False}
    game = new_game({"players": 3, "seed": 3, "side": 1, "expert": False})
    screen = ui.decision(
        game, 1, ui.Choice("G", game.window["id"], 1), moment, "en", **ui.clock_of({"deadline_seconds": 30})
    )
    assert "Answer by Sun 17 Mar, 17:46:55 UTC." in screen.text.splitlines()


def test_reveal_and_game_end_texts():
    event = {"type": "reveal", "turn": 2, "visible_to": None, "played": {"1": [4], "2": [3, 10], "3": []}}
    text = events.reveal(event, NAMES, "en")
    assert text.splitlines() == [
        "🔦 Reveal of turn 2!",
        "Anna → 4 Beach",
        "Petr → 3 River, 10 Artefact",
        "Eva → nowhere (gave up)",
    ]
    assert "Pláž" in events.reveal(event, NAMES, "cs") and "Odhalení – 2. kolo!" in events.reveal(event, NAMES, "cs")
    view = new_game({"players": 2, "seed": 1, "side": 1, "expert": False}).public_view() | {"winner": "hunted"}
    assert "The Hunted win!" in events.game_over(view, NAMES, "en")
    assert "Vyhráli Lovení!" in events.game_over(view, NAMES, "cs")


def test_a_move_played_for_a_player_that_plays_no_card_is_said_plainly():
    def said(kind: str, actions: list[dict], lang: str) -> str | None:
        return events.line({"type": kind, "seat": 1, "actions": actions, "visible_to": [1]}, NAMES, lang, me=1)

    passed = [{"type": "pass"}]
    assert said("bot_played", passed, "en") == "🤖 The bot played no card for you this time."
    assert said("timed_out", passed, "en") == "⏰ Time ran out — I played no card for you this time."
    assert said("bot_played", passed, "cs") == "🤖 Bot za tebe tentokrát nezahrál žádnou kartu."
    assert said("timed_out", passed, "cs") == "⏰ Čas vypršel — tentokrát jsem za tebe nezahrál žádnou kartu."
    played = [{"type": "play", "cards": [2]}]
    assert said("bot_played", played, "en") == "🤖 The bot played 2 Jungle for you."


def test_no_cards_this_turn_is_one_tap_that_answers_every_card_question_of_the_turn():
    game = new_game({"players": 3, "seed": 2, "side": 1, "secrecy": "fast"})  # the Creature holds a phase-1 card
    assert (
        game.window["kind"] == "explore" and 0 in game.waiting_for() and game.legal_actions(0)[-1] == {"type": "pass"}
    )
    screen = ui.decision(game, 0, ui.Choice("G1", game.window["id"], 0), DEADLINE, "cs", NAMES)
    no_cards = [b for row in screen.keyboard for b in row if b["text"].startswith("🚫")]
    assert len(no_cards) == 1 and "karty" in no_cards[0]["text"]
    stage = ui.follow(game, 0, ui.decode(no_cards[0]["data"]))
    assert stage.complete and stage.actions == [ui.NO_CARDS_PLAN]
    assert check_answer(game.copy(), 0, stage.actions, game.window["id"]) is None
    for action in stage.actions:
        game.apply(0, action)
    turn, asked_creature = game.turn, []
    while game.turn == turn:
        asked_creature += [game.window["kind"]] if 0 in game.waiting_for() else []
        seat = game.waiting_for()[0]
        game.apply(seat, game.autoplay(seat))
    assert asked_creature == ["hunt"]  # its tokens; no card question after the one tap


def test_under_strict_the_creature_may_play_its_phase_1_card_on_a_screen_that_sets_no_deadline():
    game = new_game({"players": 3, "seed": 2, "side": 1, "secrecy": "strict"})
    assert game.may_answer() == [0] and 0 not in game.waiting_for()
    screen = ui.decision(game, 0, ui.Choice("G1", game.window["id"], 0), DEADLINE, "en", NAMES)
    assert "Nothing waits for you: the chance ends when the last of them has chosen." in screen.text
    assert "Answer by" not in screen.text
    card = next(b for row in screen.keyboard for b in row if b["text"].startswith("Play "))
    stage = ui.follow(game, 0, ui.decode(card["data"]))
    assert stage.complete and not stage.more


def test_a_hunted_chooses_a_place_and_is_then_asked_its_question_ahead_on_the_same_message():
    game = scenario(hunted={1: {"hand": [1, 2, 3], "discard": [4, 5]}}, secrecy="strict")
    first = ui.Choice("G1", game.window["id"], 1)
    screen = ui.decision(game, 1, first, DEADLINE, "en", NAMES)
    jungle = next(b for row in screen.keyboard for b in row if b["text"] == "Play 2 Jungle")
    stage = ui.follow(game, 1, ui.decode(jungle["data"]))
    assert stage.complete and stage.more  # stored at once; the question ahead follows
    after = ui.decision(game, 1, ui.decode(jungle["data"]), DEADLINE, "en", NAMES)
    assert "✅ Locked in: Play 2 Jungle" in after.text
    assert "If the Creature does not catch you at 2 Jungle" in after.text and "nothing waits for it" in after.text
    labels = [b["text"] for row in after.keyboard for b in row]
    assert "⏳ Decide after the reveal" in labels and "Answer by" not in after.text
    assert ui.choice_of(game, 1, first, stage.actions) == ui.decode(jungle["data"])


def test_the_no_cards_button_is_refused_where_pass_is_not_an_answer():
    game = new_game({"players": 3, "seed": 3, "side": 1, "secrecy": "strict"})
    with pytest.raises(ui.BadCallback):
        ui.follow(game, 1, ui.Choice("G1", game.window["id"], 1, (ui.NO_CARDS,)))


def test_the_readers_own_events_are_worded_in_the_second_person():
    power = {"type": "power", "seat": 1, "use": 4, "place": 4, "visible_to": None}
    assert events.line(power, NAMES, "en", me=1) == "You use the power of 4 Beach."
    assert events.line(power, NAMES, "en", me=2) == "Anna uses the power of 4 Beach."
    assert events.line(power, NAMES, "cs", me=1) == "Používáš schopnost lokace 4 Pláž."
    will = {"type": "will", "seat": 1, "will": 2, "visible_to": None}
    assert events.line(will, NAMES, "cs", me=1) == "Zbývají ti 2 žetony vůle."
    assert events.line({"type": "caught", "seat": 1, "place": 3}, NAMES, "en", me=1) == "You were caught at 3 River."


def test_questions_name_the_place_and_what_each_choice_does_and_buttons_read_as_spoken():
    found = {}
    for game, seat in positions():
        kinds = {a["type"] for a in game.legal_actions(seat)}
        if {"power", "takeback"} <= kinds and "power" not in found:
            found["power"] = (game, seat)
        if kinds == {"keep"} and "river" not in found:
            found["river"] = (game, seat)
        if len(found) == 2:
            break
    game, seat = found["power"]
    place = next(a["place"] for a in game.legal_actions(seat) if a["type"] == "takeback")
    for lang, head, back in (
        ("en", f"You explored {events.cards_text([place], 'en')}: use its power, or take back one card", "Take back "),
        ("cs", f"Prozkoumal(a) jsi lokaci {events.cards_text([place], 'cs')}: použij její efekt, NEBO", "Vzít zpět "),
    ):
        screen = ui.decision(game, seat, ui.Choice("G1", game.window["id"], seat), DEADLINE, lang, NAMES)
        lines = screen.text.splitlines()
        assert lines[1].startswith(head), lines
        assert any(line.startswith(events.cards_text([place], lang) + ": ") for line in lines)  # what it does
        labels = [b["text"] for row in screen.keyboard for b in row]
        assert any(label.startswith(back) for label in labels), labels  # "Take back 4 Beach"
        assert not any(label.startswith(("back ", "power ", "zpet ", "sila ")) for label in labels), labels
        assert lines[-1].startswith(("Or type: ", "Nebo napiš: "))  # the typed form stays as a hint
        assert all(len(b["data"].encode()) <= ui.CALLBACK_LIMIT for row in screen.keyboard for b in row)
    game, seat = found["river"]
    screen = ui.decision(game, seat, ui.Choice("G1", game.window["id"], seat), DEADLINE, "en", NAMES)
    assert screen.text.splitlines()[1].startswith("The River: you played ")
    labels = [b["text"] for row in screen.keyboard[:-1] for b in row]
    assert labels and all(label.startswith("Keep ") and label.endswith(" in play") for label in labels)


def test_a_hunted_moved_by_a_detour_is_told_so_in_the_follow_up_question():
    g = scenario(
        creature=["detour", "anticipation", "fierceness"],
        hunted={1: {"hand": [10, 1, 2, 3], "discard": [6, 7]}, 2: {"hand": [2, 3, 4, 5], "discard": [6, 7]}},
    )
    play_turn(g, {1: [10], 2: [2]}, tokens={"creature": 10}, until="reckoning")
    act(g, 0, {"type": "hunt_card", "card": "detour", "seat": 1, "from": 10, "to": 5})
    act(g, 2, {"type": "takeback", "place": 2, "card": 6})
    for lang, head in (
        ("en", f"The Creature's Detour moved you to {events.cards_text([5], 'en')}: use its power, or take back"),
        ("cs", f"Oklika Bytosti tě přesunula na lokaci {events.cards_text([5], 'cs')}: použij její efekt, NEBO"),
    ):
        screen = ui.decision(g, 1, ui.Choice("G1", g.window["id"], 1), DEADLINE, lang, NAMES)
        assert screen.text.splitlines()[1].startswith(head), screen.text


def test_my_cards_shows_the_texts_of_the_seats_cards_and_goes_back_to_the_question():
    for game, seat in positions():
        if seat != 0 and game.view(seat)["you"]["survival"]:
            break
    first = ui.Choice("G1", game.window["id"], seat)
    question = ui.decision(game, seat, first, DEADLINE, "cs", NAMES)
    [mine] = [b for row in question.keyboard for b in row if b["text"] == "📖 Moje karty"]
    page = ui.decision(game, seat, ui.decode(mine["data"]), DEADLINE, "cs", NAMES)
    you = game.view(seat)["you"]
    for card in sorted(you["hand"]) + you["survival"]:
        assert f"• {events.cards_text([card], 'cs')}: {cardtexts.text(card, 'cs')}" in page.text.splitlines()
    assert page.keyboard == [[{"text": "« Zpět k otázce", "data": first.data()}]]
    creature = next(g for g, s in positions() if s == 0 and g.view(0)["you"]["hunt_cards"])
    page = ui.my_cards(creature, 0, first, "en")
    assert all(f"• {cardnames.name(c, 'en')}: " in page.text for c in creature.view(0)["you"]["hunt_cards"])


def test_a_power_says_what_it_gave_the_reserve_card_and_the_will_regained():
    rover = {"type": "power", "seat": 1, "place": 5, "use": 5, "reserve": 6, "visible_to": None}
    assert events.line(rover, NAMES, "en") == "Anna uses the power of 5 Rover. Taken from the reserve: 6 Swamp."
    assert (
        events.line(rover, NAMES, "cs", me=1)
        == "Používáš schopnost lokace 5 Průzkumné vozidlo. Bereš si z rezervy 6 Bažina."
    )
    source = {"type": "power", "seat": 1, "place": 9, "use": 9, "heal": 2, "visible_to": None}
    assert events.line(source, NAMES, "en", me=2) == "Anna uses the power of 9 Source. You regain 1 Will."
    assert events.line(source, NAMES, "en", me=1) == "You use the power of 9 Source. Petr regains 1 Will."
    assert news.about(source, 2) and news.about(source, 1) and not news.about(source, 3)


def test_an_answer_ahead_is_spoken_too():
    assert spoken.spoken({"type": "plan", "orders": [{"type": "pass"}]}, "cs") == "Tento tah žádné karty"
    take = {"type": "plan", "orders": [{"type": "power", "place": 2, "use": 2, "take": [2, 4]}]}
    assert spoken.spoken(take, "en") == "Later: Use 2 Jungle: take back 2 Jungle, 4 Beach"
