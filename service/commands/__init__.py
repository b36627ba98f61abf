"""The plain-text command language shared by every channel (Telegram, SMS, console): `parse` reads a line into the
engine actions it means for a seat now, or raises a `CommandError` that says why not and what is legal now.

Short, SMS-friendly, English or Czech, case-insensitive, diacritics optional. Places by number (1..10) or by name,
cards by name; any unique prefix of a name in either language works ("riv", "reka", "Řeku", "bazina", "sixth",
"sest"). Text in parentheses is a comment, so what `describe` writes ("play 3 (River)") parses back.

    what                                 English                       Czech                          action
    -----------------------------------  ----------------------------  -----------------------------  ----------
    choose the board side                side 1                        strana 1                       side
    play a place card (two after the     play 3 · 3 · play river       hraj 3 · hraj reku             play
      River or the Artefact, in order)   play 3 5                      hraj 3 5
    resist, taking cards back            resist 2 4 · r 2 4            vzdoruj 2 4                    resist
    give up                              give up                       vzdej se                       giveup
    keep a Survival card (Shelter)       keep dodge                    nech si uhyb                   keep_survival
    River: the card that stays           keep 3                        nech si 3                      keep
    play a card with its parameters:     card sixth 1 2 · c dodge      karta sestysmysl 1 2           survival,
      places, a seat (p2 / h2 / 2)       card mirage 2 7 · mirage 2 7  karta prelud 2 7               hunt_card
                                         card detour p2 3 4            karta oklika h2 3 4
                                         card flashback 2 7            karta flashback 2 7
      the Drone and the Gate             card drone · card gate 7      karta dron · karta brana 7     power
    place the tokens                     hunt 4 a7 · 4 7               lov 4 a7 · bytost 4 artemie 7  tokens
    no card now                          pass                          nic                            pass
    discard place cards                  discard 2 · d 2 4             odhod 2                        discard
    discard a Survival card (Toxin)      discard dodge                 odhod uhyb                     discard_surv.
    show cards (Phobia)                  show 1 2                      ukaz 1 2                       show
    lose 1 Will (Scream)                 lose will                     ztrat vuli                     lose_will
    use your place's power               power · take 4                sila · vezmi 4                 power
      Lair: copy the Creature's place    copy 8                        kopiruj 8
      Rover, Source                      reserve 7 · heal p2 · draw    rezerva 7 · vylec h2 · lizni
      in full, as `describe` writes it   power 1 use 8 via lair        sila 1 pouzij 8 pres doupe
    or take back one card instead        back 4 · take back 4 · 4      zpet 4 · vezmi zpet 4          takeback
    answer ahead                         plan take 4 · plan pass       plan vezmi 4 · plan nic        plan
    ask me about my cards later          later                         později                        call
    help, status (no game action)        help · ? · status             napoveda · stav                _help, _status

`take 4` names the cards the power takes back; the Jungle's or the Swamp's own card may go unsaid.

Bare numbers mean the one thing they can mean now: `3` plays the River in Exploration, keeps it at the River
question, discards it for the Artemia token; `4 7` places the Creature token on 4 and the Artemia token on 7.
A bare card name plays that card. Seats are `p2`/`h2`/`2`, or a player's name when the caller passes `names`.

Several commands may share a line and are returned in order: `resist 2 4 play 3`. Each is checked against the
seat's legal actions at that point (the earlier ones applied to a copy of the game). Once the seat has nothing
left to answer now, the rest of the line is a plan answered later in the turn: `play 2 take 4` returns the play
and ``{"type": "plan", "orders": [<Jungle's power taking 4 back>]}``. `plan …` makes the rest a plan explicitly,
and a command sent while the seat has nothing to answer becomes a plan by itself. A plan's orders are checked
for form only: the engine matches them exactly against the legal actions when the question comes, and asks as
usual when none matches. `pass`/`nic` when passing is not possible now means "no cards this turn" (a plan).

`help`/`?` and `status`/`stav` return ``[{"type": "_help"}]`` / ``[{"type": "_status"}]``; the channel answers them.
A command that is wrong, ambiguous or not possible now raises `CommandError`, whose message (in the language of
the command, or `lang`) says why and lists what is legal now.

Its parts: `words` (the vocabulary reading and writing share), `reading` (a line into commands), `writing` (actions
back into commands: `describe`, `summary`, `help_text`). This module matches the commands against the legal actions,
makes plans of what is answered later in the turn, and words the errors.
"""

from typing import Any

from service.commands.reading import Command, Pattern, Reader, detect_language, read_commands, tokenize
from service.commands.words import (
    CARD_PARAMS,
    CREATURE_ONLY,
    LAYOUT,
    MARKERS,
    NOT_PLANNABLE,
    POWER_NEEDS,
    TARGET_OPTIONAL,
    Action,
    Fail,
    msg,
    typed,
)
from service.commands.writing import describe, summary
from service.game import Game
from service.game.cards import JUNGLE, LAIR, ROVER, SWAMP

ECHO_MAX = 20  # the most characters of a player's own text that an answer repeats (a reply may be a paid SMS)


def echo(text: str) -> str:
    """The player's ``text`` as an answer repeats it: at most `ECHO_MAX` characters, cut with "…"."""
    return text if len(text) <= ECHO_MAX else text[: ECHO_MAX - 1] + "…"


class CommandError(ValueError):
    """A command that is wrong, ambiguous or not possible now; the message says why and what is legal now."""


# ---------------------------------------------------------------------------------------------- matching
def _fits(pattern: Pattern, action: Action) -> bool:
    """Whether a legal action is one the pattern may mean. Lists match in any order; "at" is the place or the
    place used; "take" is at least these cards, plus perhaps the place's own card ("this card" of the Jungle and
    the Swamp), which may go unsaid; "take" with no cards is any power that takes cards back (the Lair's)."""
    if pattern["type"] != action["type"]:
        return False
    for key, want in pattern.items():
        have = action.get(key)
        if key == "at":
            if want not in (action.get("place"), action.get("use")):
                return False
        elif key == "take" and action["type"] == "power":
            if have is None or (want and (not set(want) <= set(have) or len(set(have) - set(want)) > 1)):
                return False
        elif isinstance(want, list):
            if not isinstance(have, list) or sorted(want) != sorted(have):
                return False
        elif have != want:
            return False
    return True


def _looseness(pattern: Pattern, action: Action) -> int:
    """How much of the action the pattern leaves unsaid: fields it does not name, lists in another order."""
    named = set(pattern) | {k for k in ("place", "use") if "at" in pattern and action.get(k) == pattern["at"]}
    unsaid = sum(1 for k in action if k not in named)
    return unsaid + sum(1 for k, v in pattern.items() if isinstance(v, list) and action.get(k) != v)


def _match(patterns: list[Pattern], legal: list[Action], text: str) -> Action:
    """The one legal action the command means: the first pattern that fits any decides, and among the actions
    it fits, the one it leaves least unsaid ("power 5 reserve 7" is the Rover, not the Drone)."""
    for pattern in patterns:
        if None in pattern.values():
            raise Fail("incomplete", text=text)
        hits = [a for a in legal if _fits(pattern, a)]
        if hits:
            least = min(_looseness(pattern, a) for a in hits)
            best = []
            for action in hits:  # the engine may offer the same action twice
                if _looseness(pattern, action) == least and action not in best:
                    best.append(action)
            if len(best) == 1:
                return best[0]
            raise Fail("ambiguous", text=text, actions=best) if len(best) <= 6 else Fail("incomplete", text=text)
    raise Fail("not_now", text=text)


# ---------------------------------------------------------------------------------------------- plans
def _my_places(game: Game, seat: int) -> list[int]:
    """Where the seat is this turn: its revealed positions, else the cards it played."""
    view = game.view(seat)
    me = next(h for h in view["hunted"] if h["seat"] == seat)
    return me["played"] if isinstance(me["played"], list) else view["you"]["played"]


def _plan_order(patterns: list[Pattern], game: Game, seat: int, text: str) -> Action:
    """The full action a command means as a planned order, checked for form only (see the module docstring)."""
    if len(patterns) != 1:
        raise Fail("plan_bare", text=text)
    action = dict(patterns[0])
    if action["type"] in NOT_PLANNABLE:
        raise Fail("not_plannable", text=text)
    if action["type"] != "pass" and (action["type"] in CREATURE_ONLY) != (seat == 0):
        raise Fail("only_hunted" if seat == 0 else "only_creature", text=text)
    if action["type"] in ("power", "takeback"):
        places = _my_places(game, seat)
        place = action.pop("at", action.get("place"))
        if place is None and len(places) != 1:
            raise Fail("plan_where", text=text)
        action["place"] = places[0] if place is None else place
    if action["type"] == "power":
        _complete_power(action, game, seat)
    effect = action.get("copy", action.get("card"))
    needed = [f for f, label in LAYOUT[action["type"]][1] if label is None and f != "copy"]
    needed += [] if effect in TARGET_OPTIONAL else CARD_PARAMS.get(effect or "", ())
    if None in action.values() or any(field not in action for field in needed):
        raise Fail("incomplete", text=text)
    return action


def _complete_power(action: Action, game: Game, seat: int) -> None:
    """Fill in what a player leaves unsaid about a power, as the engine spells it: the place used is the one you
    are on (the Rover for the Drone); the Jungle and the Swamp also take back their own card; the Lair takes back
    the whole discard pile as it is now."""
    use = action.setdefault("use", ROVER if action.get("via") == "drone" else action["place"])
    take = set(action.get("take") or ())
    if use in (JUNGLE, SWAMP):
        take.add(action["place"])
    elif use == LAIR and not take:
        take = set(next(h["discard"] or () for h in game.view(seat)["hunted"] if h["seat"] == seat))
    if take:
        action["take"] = sorted(take)
    if use in POWER_NEEDS and not any(field in action for field in POWER_NEEDS[use]):
        action[POWER_NEEDS[use][0]] = None  # incomplete: which reserve card, or whom to heal


# ---------------------------------------------------------------------------------------------- parse
def parse(
    text: str, game: Game, seat: int, lang: str | None = None, names: dict[int, str] | None = None
) -> list[Action]:
    """The engine action(s) `text` means for `seat` now (see the module docstring); raises CommandError.

    `lang` ("en"/"cs") words the error; by default the command's own language. `names` optionally maps seats to
    player names, so that "card anticipation jana" works.
    """
    if text.strip() == "?":
        return [{"type": "_help"}]
    lang = lang or detect_language(text)
    try:
        commands = read_commands(Reader(tokenize(text), game, seat, names))
        if not commands:
            raise Fail("empty")
        for verb, _, _ in commands:
            if verb in MARKERS:
                return [{"type": MARKERS[verb]}]
        if game.is_over:
            raise Fail("game_over")
        return _resolve(commands, game, seat)
    except Fail as fail:
        raise CommandError(_explain(fail, game, seat, lang)) from None


def _resolve(commands: list[Command], game: Game, seat: int) -> list[Action]:
    """Each command as the legal action it means at its point of the line, or, once the seat has nothing to
    answer (or after `plan`), as a planned order; the plan comes last."""
    actions: list[Action] = []
    orders: list[Action] = []
    planning, sim = False, game
    for i, (verb, patterns, text) in enumerate(commands):
        planning = planning or verb == "plan"
        if verb == "plan":
            continue
        legal = [] if planning else typed(sim.legal_actions(seat))
        if not legal or (patterns == [{"type": "pass"}] and {"type": "pass"} not in legal):
            planning = True
            orders.append(_plan_order(patterns, sim, seat, text))
            continue
        if i + 1 < len(commands) and not any(_fits(p, a) for p in patterns for a in legal):
            # Not asked now but more follows ("power 4 power 9 heal p2" when the Beach needs no answer):
            # keep it as an answer ahead instead of refusing the whole line.
            orders.append(_plan_order(patterns, sim, seat, text))
            continue
        actions.append(_match(patterns, legal, text))
        if i + 1 < len(commands):  # the rest of the line is read against the game as this command leaves it
            sim = game.copy() if sim is game else sim
            sim.apply(seat, actions[-1])
    if planning and not orders:
        raise Fail("incomplete", text="plan")
    if orders:
        actions.append({"type": "plan", "orders": orders})
    return actions


def _explain(fail: Fail, game: Game, seat: int, lang: str) -> str:
    params: dict[str, Any] = {
        k: echo(v) if k in ("word", "text") and isinstance(v, str) else v for k, v in fail.params.items()
    }
    if "actions" in params:
        params["options"] = " / ".join(describe(a, lang) for a in params.pop("actions"))
    lines = summary(game, seat, lang)
    legal = msg("legal", lang, lines="; ".join(lines)) if lines else ""
    return " ".join(filter(None, [msg(fail.key, lang, **params), legal]))
