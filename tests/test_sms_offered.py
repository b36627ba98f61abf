"""Issue 15, point 3: what an SMS question offers is always accepted. Whole games where every seat answers at
random with only what its message offers, read out of the text as a person reads it (`bench.bench_sms.typed`),
through the router's reading (`routing.read_answer`) and the engine's check: no refusal at all."""

import random

import pytest

from bench.bench_sms import offered, refusals, typed


@pytest.mark.parametrize(("lang", "ascii"), [("en", False), ("cs", False), ("cs", True)])
@pytest.mark.parametrize("players", [3, 5])
def test_random_players_answering_only_offered_options_are_never_refused(players, lang, ascii):
    runs = [refusals(players, seed, lang, ascii) for seed in range(8)]  # 5 players, seed 6: "pass" after "pass"
    assert sum(answers for answers, _, _ in runs) > 50 * len(runs)  # whole games were played, by text
    assert [example for _, _, examples in runs for example in examples] == []


def test_the_reader_makes_every_choice_an_option_offers():
    rng = random.Random(3)
    text = "K7QX T2 Exploration: resist 2 of 1, 4, 5 (1 Will); card Mirage 1+2 1+6 or 2+3; play 1, 2 or 5. By Tue 18:00 CEST."
    options = offered(text, "en")
    assert options == ["resist 2 of 1, 4, 5 (1 Will)", "card Mirage 1+2 1+6 or 2+3", "play 1, 2 or 5"]
    for _ in range(20):
        resist = typed(options[0], "en", rng).split()
        assert resist[0] == "resist" and len(resist) == 3 and set(resist[1:]) < {"1", "4", "5"}
        assert typed(options[1], "en", rng) in ("card Mirage 1+2", "card Mirage 1+6", "card Mirage 2+3")
        assert typed(options[2], "en", rng) in ("play 1", "play 2", "play 5")
    assert typed("hunt 1-10 a1-10", "en", rng).split()[0] == "hunt"
    assert typed("hraj 3 nebo 4", "cs", rng) in ("hraj 3", "hraj 4")
