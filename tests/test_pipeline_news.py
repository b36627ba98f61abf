"""Outgoing messages per channel (service.pipeline.news) and the outbox's per-slot rules, on fakeredis."""

from pipeline_support import Clock, make_ctx

from service.game import new_game
from service.pipeline import delivery, news, outbox, telling
from service.store import Commit
from service.wiring import RoutingSender

TG_META = {
    "players": {
        "0": {"name": "Eva", "chat": "7003", "user": "7003", "lang": "en"},
        "1": {"name": "Anna", "chat": "7001", "user": "7001", "lang": "cs"},
        "2": {"name": "Petr", "chat": "7002", "user": "7002", "lang": "en"},
    },
    "group": "-100555",
    "lang": "en",
    "deadline_seconds": 60,
    "bots": [],
}


def step(ctx, game, events, asked, version=2, before=None, closing=(), answered=None, present=(), meta=TG_META):
    before = before or news.empty_news(game.turn)
    seen = {seat: 1e9 for seat in present}
    made = news.Step(
        "g1", meta, game, events, [], asked, 2e9, version, before, closing, answered or {}, seen, frozenset(present)
    )
    return telling.step_messages(ctx, made)


def test_telegram_gets_decision_messages_with_buttons_and_one_living_status():
    ctx = make_ctx()
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    out, after = step(ctx, game, [], game.waiting_for())
    by_chat = {m["chat"]: m for m in out}
    status = by_chat["-100555"]
    assert status["slot"] == "g1:s0" and status["seq"] == 200 and status["buttons"] is None
    assert status["text"].startswith("🌍 Turn 1")
    anna = by_chat["7001"]  # a Hunted asked to explore, in Czech
    assert anna["slot"] == "g1:p1" and anna["buttons"] and anna["buttons"][0][0]["data"].startswith("d:g1:1:")
    assert "Kolo 1" in anna["text"]
    assert "7003" not in by_chat  # the Creature is not asked and has no news
    assert after == {"turn": 1, "items": [], "private": {}, "segment": {"start": 0, "items": []}}


def test_each_seat_gets_one_private_message_per_turn_edited_as_the_turn_goes():
    ctx = make_ctx(edit_settle_seconds=2.0)
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    out, after = step(ctx, game, [], [1, 2])
    asked = {m["chat"]: m for m in out if m["chat"] in ("7001", "7002")}
    assert {m["slot"] for m in asked.values()} == {"g1:p1"} and all(m["buttons"] for m in asked.values())
    assert not any(m.get("settle") for m in asked.values())  # a question is never held back
    played = {"type": "played", "seat": 2, "cards": [4], "visible_to": [2]}
    out, after = step(ctx, game, [played], [], version=3, before=after)
    petr = [m for m in out if m["chat"] == "7002"]
    # the same turn: Petr's result edits his turn message (same slot, newer seq); nobody else hears of it
    assert [(m["slot"], m["seq"], m["buttons"]) for m in petr] == [("g1:p1", 300, None)]
    assert "4 " in petr[0]["text"] and not [m for m in out if m["chat"] in ("7001", "7003")]
    assert petr[0]["settle"] == 2.0  # results only: held a moment in case his next question follows
    assert [e["type"] for e in after["private"]["2"]] == ["played"]
    drawn = {"type": "drawn", "seat": 2, "cards": [6], "visible_to": [2]}
    ending = [drawn, {"type": "turn", "turn": 2, "visible_to": None}]
    out, ended = step(ctx, game, ending, [2], version=4, before=after, closing=(1, 2))
    petr = [m for m in out if m["chat"] == "7002"]
    # the turn ends in a window that asked Petr (his message shows buttons): it gets its last result, without
    # them; the next turn's question is a new message of its own
    assert [m["slot"] for m in petr] == ["g1:p1", "g1:p2"]
    assert "4 " in petr[0]["text"] and "6 " in petr[0]["text"] and petr[0]["buttons"] is None
    assert petr[1]["buttons"] and "6 " not in petr[1]["text"]
    assert ended["turn"] == 2 and "2" not in ended["private"]
    # ... in a window that did not ask him (his message shows his results): the end of the turn comes on top of
    # his next turn message, not as an edit of its own, and stays there as that message changes
    out, ended = step(ctx, game, ending, [2], version=4, before=after, closing=(1,))
    (petr,) = [m for m in out if m["chat"] == "7002"]
    assert petr["slot"] == "g1:p2" and petr["buttons"]
    assert petr["text"].startswith("End of turn 1:\nYou draw: 6 Swamp.\nYou were not caught this turn.\nRescue")
    assert "You play" not in petr["text"]  # what his older message shows already is not repeated
    assert [e["type"] for e in ended["private"]["2"]] == [news.TURN_OVER]
    played = {"type": "played", "seat": 2, "cards": [1], "visible_to": [2]}
    out, _ = step(ctx, game, [played], [], version=5, before=ended)
    (petr,) = [m for m in out if m["chat"] == "7002"]
    # under turn 1's end, turn 2's own results have their own heading
    assert petr["slot"] == "g1:p2" and "not caught this turn.\n\nTurn 2:\nYou play: 1 " in petr["text"]


def test_a_seat_reading_its_chat_gets_the_next_turn_on_the_same_message_and_one_away_a_new_one():
    ctx = make_ctx()
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    _, after = step(ctx, game, [], [1, 2])
    played = {"type": "played", "seat": 2, "cards": [4], "visible_to": [2]}
    _, after = step(ctx, game, [played], [2], version=3, before=after)
    drawn = {"type": "drawn", "seat": 2, "cards": [6], "visible_to": [2]}
    ending = [drawn, {"type": "turn", "turn": 2, "visible_to": None}]
    # Petr answered the window that ends the turn a moment ago (its question's buttons are on his message): one
    # edit of that message, the whole turn he leaves on top of his next question
    said = {1: [{"type": "pass"}], 2: [{"type": "pass"}]}
    out, ended = step(ctx, game, ending, [1, 2], version=4, before=after, closing=(1, 2), answered=said, present=(2,))
    (petr,) = [m for m in out if m["chat"] == "7002"]
    assert petr["slot"] == "g1:p1" and petr["seq"] == 400 and petr["buttons"] and not petr.get("settle")
    assert petr["text"].startswith("Turn 1:\nYou play: 4 Beach.\nYou draw: 6 Swamp.\nYou were not caught")
    assert "\n\n🎯 Turn " in petr["text"]  # (the game object itself is still at turn 1)
    assert ended["since"] == {"2": 1} and ended["seen"] == {"2": 1e9}
    assert news.seat_turn_slot("g1", ended, 2) == "g1:p1" and news.seat_turn_slot("g1", ended, 1) == "g1:p2"
    # Anna was not: her old message gets its last edit, and her next question is a new message that notifies her
    anna = [m for m in out if m["chat"] == "7001"]
    assert [(m["slot"], m["buttons"] is None) for m in anna] == [("g1:p1", True), ("g1:p2", False)]
    # without a group the table's news comes into each player's chat, below the turn message: a new one, always
    alone = {**TG_META, "group": None}
    out, _ = step(ctx, game, ending, [1, 2], 4, after, closing=(1, 2), answered=said, present=(2,), meta=alone)
    petr = [m for m in out if m["chat"] == "7002" and m.get("slot")]
    assert [(m["slot"], m["buttons"] is None) for m in petr] == [("g1:p1", True), ("g1:p2", False)]
    # the rest of turn 2 edits the message it went on in
    out, later = step(ctx, game, [played], [], version=5, before=ended)
    (petr,) = [m for m in out if m["chat"] == "7002"]
    assert petr["slot"] == "g1:p1" and petr["text"].startswith("Turn 1:") and later["since"] == {"2": 1}
    assert "\n\nTurn 2:\nYou play: 4 Beach." in petr["text"]  # turn 2's results under a heading of their own
    # ... and when turn 2 ends with Petr away, that message gets its last edit and turn 3 a new one
    ending = [{"type": "turn", "turn": 3, "visible_to": None}]
    out, third = step(ctx, game, ending, [2], version=6, before=later, closing=(2,))
    petr = [m for m in out if m["chat"] == "7002"]
    assert [(m["slot"], m["buttons"] is None) for m in petr] == [("g1:p1", True), ("g1:p3", False)]
    assert "since" not in third


def test_reading_the_chat_means_a_button_pressed_moments_ago():
    # Anna pressed 5 s ago, Petr typed 5 s ago (the reply to it came below his turn message), Eva pressed 20 s ago
    seen, typed, present = news.reading({}, {1: 100.0, 2: 100.0, 0: 85.0}, {2}, 105.0, 15.0)
    assert seen == {0: 85.0, 1: 100.0, 2: 100.0} and typed == {2} and present == {1}
    told = {"seen": {str(s): at for s, at in seen.items()}, "typed": sorted(typed)}
    # the next window: Petr presses, Anna does not answer (her press is 12 s old), Eva types
    seen, typed, present = news.reading(told, {2: 110.0, 0: 111.0}, {0}, 112.0, 15.0)
    assert seen == {0: 111.0, 1: 100.0, 2: 110.0} and typed == {0} and present == {1, 2}
    # ... and a window later, nobody answered in person: what each seat did last still counts, for 15 s
    assert news.reading({"seen": {"0": 111.0, "2": 110.0}, "typed": [0]}, {}, set(), 120.0, 15.0)[2] == {2}
    assert news.reading(told, {}, set(), 120.0, 0.0)[2] == frozenset()  # 0: nobody is ever taken as reading


def test_a_carried_turn_end_with_no_news_of_its_own_still_tells_the_counters():
    ctx = make_ctx()
    # the Creature holds a phase-1 card: under fast secrecy the exploration waits for it too
    game = new_game({"players": 3, "seed": 2, "side": 1, "expert": False, "secrecy": "fast"})
    _, after = step(ctx, game, [], [1, 2])
    played = {"type": "hunt_card", "seat": 0, "card": "virus", "visible_to": [0]}
    out, after = step(ctx, game, [played], [1, 2], version=3, before=after, closing=(0,))
    assert [m["slot"] for m in out if m["chat"] == "7003"] == ["g1:p1"]  # the Creature's turn message
    turn = {"type": "turn", "turn": 2, "visible_to": None}
    out, _ = step(ctx, game, [turn], [0, 1, 2], version=4, before=after, closing=(1, 2))
    (eva,) = [m for m in out if m["chat"] == "7003"]  # the end of its turn added nothing: the counters, on top
    assert eva["slot"] == "g1:p2" and eva["text"].startswith("End of turn 1:\nRescue counter: ")


def test_a_seat_whose_answer_the_step_tells_nothing_of_sees_it_locked_in_without_buttons():
    ctx = make_ctx(edit_settle_seconds=2.0)
    # the Creature holds a phase-1 card: under fast secrecy the exploration waits for it too
    game = new_game({"players": 3, "seed": 2, "side": 1, "expert": False, "secrecy": "fast"})
    _, after = step(ctx, game, [], [0, 1, 2])
    passed = [{"type": "pass"}]
    # the window closes on Anna's answer; Eva (the Creature) answered before it, and nothing of the step is hers:
    # her turn message showed the question (or her answer with a button to change it), and now shows it final
    out, _ = step(ctx, game, [], [1, 2], version=3, before=after, closing=(0, 1, 2), answered={0: passed, 1: passed})
    (eva,) = [m for m in out if m["chat"] == "7003"]
    assert eva["slot"] == "g1:p1" and eva["seq"] == 300 and eva["buttons"] is None and eva["settle"] == 2.0
    assert eva["text"] == "✅ Locked in: No card now"
    # Anna is asked again in the same turn: her next question is her message's version, nothing else
    (anna,) = [m for m in out if m["chat"] == "7001"]
    assert anna["buttons"] and anna["slot"] == "g1:p1"
    # the window ends the turn, and Eva's end of turn tells her nothing: her old message still loses its buttons
    turn = {"type": "turn", "turn": 2, "visible_to": None}
    out, _ = step(ctx, game, [turn], [0, 1, 2], version=4, before=after, closing=(0, 1, 2), answered={0: passed})
    eva = [m for m in out if m["chat"] == "7003"]
    assert [(m["slot"], m["buttons"] is None) for m in eva] == [("g1:p1", True), ("g1:p2", False)]
    assert eva[0]["text"] == "✅ Locked in: No card now"
    # a seat that did not answer in person (the deadline's auto-play tells it so) gets no such line
    out, _ = step(ctx, game, [], [1, 2], version=5, before=after, closing=(0, 1, 2), answered={1: passed})
    assert not [m for m in out if m["chat"] == "7003"]
    # the step that ends the game: every seat's message says how it ended, under its results, and nothing is held
    # back (no question can follow)
    game.s["winner"] = "hunted"
    played = {"type": "played", "seat": 2, "cards": [4], "visible_to": [2]}
    out, _ = step(ctx, game, [played], [], version=6, before=after, closing=(0, 1, 2), answered={0: passed})
    private = {m["chat"]: m for m in out if not m["group"]}
    assert sorted(private) == ["7001", "7002", "7003"]
    assert all(m["slot"] == "g1:p1" and m["buttons"] is None and not m.get("settle") for m in private.values())
    assert private["7003"]["text"] == "🏁 Game over. The Hunted win!"
    assert private["7002"]["text"].startswith("You play: 4 ") and private["7002"]["text"].endswith("Hunted win!")
    assert private["7001"]["text"].startswith("🏁 Konec hry.")  # Anna reads Czech


def test_the_reveal_is_a_new_status_message_that_lives_until_the_next_reveal():
    ctx = make_ctx()
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    tokens = {"type": "tokens", "tokens": {"creature": [4]}, "visible_to": None}
    reveal = {"type": "reveal", "turn": 1, "played": {"1": [2], "2": [4]}, "visible_to": None}
    caught = {"type": "caught", "seat": 2, "place": 4, "visible_to": None}
    _, after = step(ctx, game, [], [1, 2])
    out, after = step(ctx, game, [tokens, reveal, caught], [], version=3, before=after)
    group = [m for m in out if m["chat"] == "-100555"]
    # the old message is closed (no one is waited for any more); the reveal opens the new one, with the tokens
    assert [m["slot"] for m in group] == ["g1:s0", "g1:s1"] and "⏳" not in group[0]["text"]
    assert (
        group[1]["text"].index("Reveal")
        < group[1]["text"].index("Petr was caught")
        < group[1]["text"].index("🌍 Turn 1")
    )  # the news first, then where the game is
    assert [i["type"] for i in after["segment"]["items"]] == ["tokens", "reveal", "caught"]
    assert "placed its tokens" in group[1]["text"] and "placed its tokens" not in group[0]["text"]
    # the next turn begins in the same message: edited, not sent anew, and the reveal stays on it
    out, after = step(ctx, game, [{"type": "turn", "turn": 2, "visible_to": None}], [1, 2], version=4, before=after)
    group = [m for m in out if m["chat"] == "-100555"]
    assert [(m["slot"], m["seq"]) for m in group] == [("g1:s1", 400)]
    assert "Reveal" in group[0]["text"] and "Turn 2" in group[0]["text"]
    assert after["turn"] == 2 and after["segment"]["start"] == 1


def test_the_group_reads_who_won_once_in_each_message_of_the_games_end():
    ctx = make_ctx(status_picture=False)
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    _, after = step(ctx, game, [], [1, 2])
    game.s["winner"] = "hunted"
    reached = {"type": "counter", "counter": "rescue", "distance": 0, "visible_to": None}
    over = {"type": "game_over", "winner": "hunted", "visible_to": None}
    out, _ = step(ctx, game, [reached, over], [], version=3, before=after)
    closing, ending = [m for m in out if m["chat"] == "-100555"]
    assert ending["text"].startswith("🏁 Game over. The Hunted win!")
    assert closing["text"].count("win!") <= 1
    # a group short of budget gets the closing status's news on top of the game-over message (`outbox.fold`)
    ctx.store.write_batch("g1", "v3", [closing, ending])
    head, following = ctx.store.lane("g1", "-100555")
    assert outbox.fold(ctx.store, "g1", "-100555", closing, head, [following])
    sent_as = outbox.with_prefix(ctx.store, "g1", "-100555", ending)["text"]
    assert sent_as.startswith("Rescue counter: 0 to go.\n") and sent_as.count("win!") == 1, sent_as
    # the game ends at a reveal: the reveal's status message tells the end too
    reveal = {"type": "reveal", "turn": 1, "played": {"1": [2], "2": [4]}, "visible_to": None}
    out, _ = step(ctx, game, [reveal, reached, over], [], version=3, before=after)
    opened = [m for m in out if m["chat"] == "-100555"][-1]
    assert "🏁 Game over. The Hunted win!" in opened["text"] and opened["text"].count("win!") == 1, opened["text"]


def test_a_blocked_player_gets_nothing_and_console_chats_get_readable_text():
    ctx = make_ctx()
    ctx.store.redis.set("tg:blocked:7001", 1)
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    out, _ = step(ctx, game, [{"type": "played", "seat": 1, "cards": [2], "visible_to": [1]}], [1, 2])
    assert "7001" not in {m["chat"] for m in out}
    meta = {
        **TG_META,
        "group": "console:table",
        "players": {**TG_META["players"], "1": {"name": "You", "chat": "console:you", "user": "u"}},
    }
    out, _ = telling.step_messages(
        ctx,
        news.Step(
            "g1",
            meta,
            game,
            [{"type": "played", "seat": 1, "cards": [2], "visible_to": [1]}],
            [],
            [1],
            2e9,
            2,
            news.empty_news(1),
        ),
    )
    news_lines, question = [m for m in out if m["chat"] == "console:you"]
    assert news_lines["text"] == "You play: 2 Jungle."
    # the question as Telegram asks it, its buttons the console numbers
    assert question["text"].startswith("🎯 Turn 1") and "=" not in question["text"]
    assert question["buttons"] and all(
        button["data"].startswith("d:g1:") for row in question["buttons"] for button in row
    )


def test_a_console_player_without_a_group_reads_the_tables_news_and_their_own_in_order():
    ctx = make_ctx()
    game = new_game({"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"})
    meta = {
        **TG_META,
        "group": None,
        "reader": 1,
        "players": {**TG_META["players"], "1": {"name": "You", "chat": "console:you", "user": "u", "lang": "en"}},
    }
    events = [
        {"type": "played", "seat": 1, "cards": [2], "visible_to": [1]},
        {"type": "tokens", "tokens": {"creature": [2]}},
        {"type": "caught", "seat": 1, "place": 2},
    ]
    out, _ = telling.step_messages(ctx, news.Step("g1", meta, game, events, [], [1], 2e9, 2, news.empty_news(1)))
    story = "\n".join(m["text"] for m in out if m["chat"] == "console:you").splitlines()
    # one story, as it happened: the seat's own pick (private) before the tokens and the catch (public)
    assert story[:3] == [
        "You play: 2 Jungle.",
        "The Creature placed its tokens: Creature token: 2 Jungle.",
        "You were caught at 2 Jungle.",
    ], story


def test_an_older_version_of_a_living_message_is_skipped_and_a_rejected_one_fails_alone():
    clock = Clock()
    ctx = make_ctx(clock=clock)
    out = [
        {"chat": "grp", "text": "new", "seat": None, "group": True, "slot": "s", "seq": 300},
        {"chat": "grp", "text": "old", "seat": None, "group": True, "slot": "s", "seq": 200},
        {"chat": "c1", "text": "bad", "seat": 1, "group": False},
    ]
    ctx.store.commit(
        "o1",
        Commit(
            version=0,
            window=None,
            engine_json="{}",
            next_window=1,
            status="collecting",
            deadline=clock.now + 60,
            now=clock.now,
            expected=[1],
            prefilled={},
            streaks={},
            messages=out,
        ),
    )

    class Rejecting:
        def __init__(self, inner):
            self.inner = inner

        def send(self, chat, text, buttons=None, slot=None):
            if text == "bad":
                raise outbox.RejectedSendError("Bad Request: message text is empty")
            return self.inner.send(chat, text, buttons)

    ctx.sender = Rejecting(ctx.sender)
    assert delivery.drain(ctx, "o1", "grp") == ["sent", "superseded"]  # the older version, written later: skipped
    assert delivery.drain(ctx, "o1", "c1") == ["failed"]
    assert delivery.deliver_batch(ctx, "o1", "v1") == []  # never tried again
    assert ctx.store.streaks("o1") == {}  # a rejected message does not make the player unreachable
    assert [m["text"] for m in ctx.sender.inner.sent()] == ["new"]


def test_routing_sender_picks_the_channel_by_chat_kind_and_configuration():
    ctx = make_ctx(telegram_bot_token="1:x", twilio_account_sid="AC1")
    router = RoutingSender(ctx.store.redis, ctx.settings)
    assert [router.channel(c) for c in ("-100123", "-100123/7", "42", "sms:+447777", "console:you")] == [
        "telegram",
        "telegram",
        "telegram",
        "sms",
        "console",
    ]
    plain = RoutingSender(ctx.store.redis, make_ctx().settings)
    assert plain.channel("42") == "console"  # no token: nothing goes to Telegram
