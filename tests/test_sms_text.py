"""SMS costs (GSM-7 / UCS-2 segments), the ASCII-only setting, and the standalone game texts."""

import random
from datetime import UTC, datetime

import fakeredis

from service.channels.sms.directory import Directory
from service.channels.sms.render import step_messages
from service.channels.sms.text import (
    ascii_only,
    cost,
    deadline_text,
    gsm_punctuation,
    news,
    outgoing,
    prepare,
    question,
    step_text,
)
from service.game import new_game
from service.game.bots import choose
from service.i18n.clock import when

# 2026-07-14 16:00 UTC is a Tuesday: 18:00 summer time in Prague
SUMMER = datetime(2026, 7, 14, 16, 0, tzinfo=UTC).timestamp()
WINTER = datetime(2026, 1, 13, 16, 0, tzinfo=UTC).timestamp()


def test_gsm7_single_and_concatenated_segments():
    assert cost("").segments == 0
    assert cost("a" * 160) == cost("a" * 160).__class__("GSM-7", 160, 1)
    assert cost("a" * 161).segments == 2
    assert cost("a" * 306).segments == 2 and cost("a" * 307).segments == 3
    assert cost("é£¥Ñ@").encoding == "GSM-7"  # these are in the GSM basic alphabet


def test_extension_characters_count_double_and_are_not_split():
    assert cost("[" * 80).units == 160 and cost("[" * 80).segments == 1
    assert cost("a" + "[" * 80).segments == 2
    # 152 septets, then an escape pair that does not fit the 153rd septet: it opens segment two
    assert cost("a" * 152 + "€" + "a" * 152).segments == 3
    assert cost("a" * 151 + "€" + "a" * 153).segments == 2


def test_any_other_character_makes_the_whole_message_ucs2():
    assert cost("Řeka").encoding == "UCS-2"
    assert cost("ř" * 70).segments == 1 and cost("ř" * 71).segments == 2
    assert cost("ř" * 134).segments == 2 and cost("ř" * 135).segments == 3
    assert cost("a" * 159 + "—").encoding == "UCS-2"  # one em dash turns 160 characters into 3 segments
    assert cost("a" * 159 + "—").segments == 3
    assert cost("😀" * 35).units == 70  # a surrogate pair is two units


def test_punctuation_is_always_made_gsm_and_ascii_mode_strips_diacritics():
    assert gsm_punctuation("„Řeka“ — 1|2…") == '"Řeka" - 1/2...'
    assert ascii_only("Příliš žluťoučký kůň úpěl ďábelské ódy") == "Prilis zlutoucky kun upel dabelske ody"
    assert ascii_only("Ω") == "?"
    assert prepare("hraj Řeku · 3", ascii=False) == "hraj Řeku - 3"
    assert prepare("hraj Řeku · 3", ascii=True) == "hraj Reku - 3"
    assert cost(prepare("Zúčtování", ascii=True)).encoding == "GSM-7"


def test_by_default_accents_go_only_where_they_cost_no_more_segments():
    short = "Kolo 2: zahraj místo."  # one segment with accents as without them: they stay
    assert outgoing(short, ascii=False, accents=False) == short
    long = "K7QX K3 Zúčtování: Řeka — vezmi si zpět 2 karty z odhozených; " + "ž" * 30  # 2 UCS-2, 1 GSM segment
    assert cost(gsm_punctuation(long)).segments == 2
    sent = outgoing(long, ascii=False, accents=False)
    assert sent.startswith("K7QX K3 Zuctovani: Reka - vezmi si zpet") and cost(sent).segments == 1
    assert outgoing(long, ascii=False, accents=True) == gsm_punctuation(long)  # ASCII OFF: always with them
    assert outgoing(short, ascii=True, accents=False) == "Kolo 2: zahraj misto."  # ASCII ON: never
    with_symbol = long + " Ω"  # a character no diacritic-stripping makes GSM: UCS-2 either way, accents kept
    assert outgoing(with_symbol, ascii=False, accents=False) == gsm_punctuation(with_symbol)


def test_the_ascii_setting_of_a_number_is_auto_until_it_says_on_or_off():
    directory = Directory(fakeredis.FakeRedis())
    assert (directory.prefs("+447700000001").ascii, directory.prefs("+447700000001").accents) == (False, False)
    for value, expected in (("0", (False, True)), ("1", (True, False)), ("auto", (False, False))):
        directory.set_prefs("+447700000001", 60, ascii=value)
        prefs = directory.prefs("+447700000001")
        assert (prefs.ascii, prefs.accents) == expected, value


def test_deadline_is_absolute_local_time_with_its_zone():
    assert deadline_text(SUMMER, "Europe/Prague", "en") == "Tue 18:00 CEST"
    assert deadline_text(WINTER, "Europe/Prague", "cs") == "út 17:00 SEČ"  # the zone as Czech names it
    assert deadline_text(SUMMER, "America/New_York", "en") == "Tue 12:00 EDT"
    assert deadline_text(SUMMER + 30, "Europe/Prague", "en", precise=True) == "Tue 18:00:30 CEST"  # a short step


def test_question_stands_on_its_own():
    game = new_game({"players": 3, "seed": 7, "side": 1, "expert": False})
    text = question("K7QX", game, 1, SUMMER, "en", "Europe/Prague")
    assert text.startswith("K7QX T1 Exploration: play ")
    assert text.endswith("By Tue 18:00 CEST.")
    hand = game.view(1)["you"]["hand"]
    assert f"play {min(hand)}-{max(hand)}" in text or all(str(c) in text for c in hand)
    cs = question("K7QX", game, 1, SUMMER, "cs", "Europe/Prague")
    assert cs.startswith("K7QX K1 Průzkum: hraj ") and cs.endswith("Do út 18:00 SELČ.")


def test_news_shows_only_what_the_seat_may_see():
    events = [
        {"type": "played", "seat": 2, "cards": [5], "visible_to": [2]},
        {"type": "reveal", "turn": 1, "played": {"1": [3], "2": [5, 7]}, "visible_to": None},
        {"type": "caught", "seat": 2, "place": 5, "visible_to": None},
        {"type": "will", "seat": 2, "will": 1, "visible_to": None},
        {"type": "counter", "counter": "rescue", "distance": 9, "visible_to": None},
        {"type": "counter", "counter": "assimilation", "distance": 4, "visible_to": None},
    ]
    assert news(events, 1, "en") == "Places: p1 3, p2 5+7. Caught: p2@5. Will: p2 1. Rescue 9 Assim. 4."
    assert news([events[0]], 1, "en") == ""


def test_a_bot_game_fits_two_segments_per_message_in_ascii_mode():
    game, rng = new_game({"players": 5, "seed": 11}), random.Random(11)
    worst = {False: 0, True: 0}
    events = []
    while not game.is_over:
        for seat in game.waiting_for():
            for ascii in (False, True):
                text = step_text("K7QX", game, seat, events, SUMMER, "cs", "Europe/Prague", ascii)
                assert text.startswith("K7QX ")
                worst[ascii] = max(worst[ascii], cost(text).segments)
        seat = game.waiting_for()[0]
        events = []
        for action in choose(game, seat, rng):
            events += game.apply(seat, action)
    assert worst[True] <= 2
    assert worst[False] >= worst[True]


def test_the_sms_of_a_live_table_shows_its_deadline_to_the_second():
    game = new_game({"players": 2, "seed": 1, "side": None, "expert": False})
    meta = {"players": {"0": {"chat": "sms:+447700000099"}, "1": {"chat": None}}, "code": "AB23"}
    directory = Directory(fakeredis.FakeRedis())
    for seconds, shown in ((120, "18:00:30"), (3600, "18:00 ")):
        [sms] = step_messages({**meta, "deadline_seconds": seconds}, game, [], [0], SUMMER + 30, directory)
        assert shown in sms["text"], sms["text"]


def test_every_channel_words_a_time_alike_in_the_tables_zone_and_the_languages_format():
    assert when(WINTER, "cs", "Europe/Prague").startswith("17:00 SEČ (") and ". " in when(WINTER, "cs", "Europe/Prague")
    assert when(WINTER, "en", "Europe/Prague").endswith(", 17:00 CET")  # not "+0100"
    assert when(WINTER, "en", "Europe/London").endswith(", 16:00 GMT")
    assert when(WINTER, "en", "UTC").endswith(", 16:00 UTC")
    day = when(WINTER, "cs", "Europe/Prague").split("(")[1]
    assert day.split()[1].endswith(".")  # "út 8. 12.": Czech writes the day and the month with a dot
    assert deadline_text(WINTER, "Europe/Prague", "en").split()[-1] == when(WINTER, "en", "Europe/Prague").split()[-1]
    assert deadline_text(WINTER, "Europe/Prague", "cs").split()[-1] == when(WINTER, "cs", "Europe/Prague").split()[1]
