"""The rules engine of *Not Alone* (Nejsme tu sami), built as decision windows for play by message.

Pure and deterministic: no Redis, network, clock or global randomness. All randomness comes from a seeded
counter kept in the state, so the same config and the same actions always give the same game, and the whole
state round-trips through JSON exactly. It runs compiled by mypyc (tools/build_engine.py, ``make engine``; see
the README's "Game engine" for what that asks of an edit) or, without a build, from these sources.

Public face
-----------
    game = new_game({"players": 5, "seed": 42, "side": None, "expert": False, "secrecy": "strict"})
    game.window            -> {"id": int, "kind": str} or None once the game is over
    game.waiting_for()     -> seats that must still answer the open window (0 = the Creature, 1..N = the Hunted
                              in seat order from the Creature's left)
    game.may_answer()      -> seats asked in the open window that it does not wait for; game.answering(s): either
    game.legal_actions(s)  -> every legal action for seat s now (finite; each one applicable)
    game.apply(s, action)  -> list of events; an illegal action raises IllegalAction (the message says why)
                              and leaves the state untouched
    game.autoplay(s)       -> a legal, sensible action for a late seat, chosen from what that seat may know
    game.view(s), game.public_view() -> JSON-serialisable views holding exactly what the seat / everyone may know
    game.private_view(s)   -> only the seat's own secrets (hand, Survival cards / Hunt cards); cheap
    game.visible_discards(s) -> each Hunted's discard pile as seat s sees it (None where Smokescreen hides it)
    game.is_over, game.winner ("creature" | "hunted" | None), game.turn
    game.is_terminal(), game.returns() -> OpenSpiel's names: is_over, and +1 / -1 per seat by side (0 before)
    game.to_json() / Game.from_json(text)

Events are dicts ``{"type": ..., "visible_to": None | [seats], ...}``; ``visible_to`` None means public.

Modules
-------
From the top down: a module imports only modules listed below it (tests/test_engine_architecture.py checks that no
engine module imports the engine or imports itself back, type-only imports counted). Game is the façade: the
rules, the questions and the views work on a table.Table, never on the engine.

    botseat.py     hands the searching bots a seat's knowledge (observer.knowledge) and options
    search.py      the searching bots (``normal``, ``hard``): determinised Monte Carlo from a seat's knowledge
    bots.py        today's bot policy (rollouts and the ``easy`` level), playing Games
    engine.py      Game, the façade: a table.Table with the public face above and the driver that runs a turn's
                   agenda of tasks (the rules' dispatch tables, the questions, the views)
    config.py      a game's config: its keys, what each allows, its defaults (checked by new_game)
    observer.py    the views: what each seat may see
    questions.py   whom a window waits for, and the deferred questions it asks each seat (memoised)
    rules/         the rules, by phase and by card (rules/__init__.py lists them); top down:
                   dispatch.py (the dispatch tables: task name -> function); the phases (turn, explore, ahead:
                   the questions ahead, prereveal, reckoning, play_cards); then
    registry.py    the card table: one entry per Hunt / Survival card (shape, options, effect, hooks); then
                   rules/survival.py, rules/hunt_cards.py (each card's rules)
    answers.py     answers given ahead (recorded answers and plans) and deciding a deferred question
    autoplay.py    auto-play for late seats, from what the seat may know
                   rules/secrecy.py (who is asked under the table's secrecy setting)
    worlds.py      samples the worlds the search plays in, from a seat's knowledge
                   rules/common.py (small rules every phase uses: randomness, counters, Will, decks, windows)
    table.py       Table: the state, what a game fixes (seats, secrecy) and the memo of values derived from it
    state.py       the state as TypedDicts (plain JSON), its format version and the migration of old snapshots
    cards.py       card and setup data from cards.json
    buildinfo.py   whether the engine runs compiled (mypyc, tools/build_engine.py) and that a build is current

Decision windows
----------------
A turn is a sequence of windows; a window that would ask nobody a real question is skipped.

    setup      the Creature chooses the board side (only when the config does not fix it)
    explore    every Hunted: optional Resist / Give Up / one phase-1 Survival card, then `play` (secret).
               The Creature is in this window only while it holds a playable phase-1 Hunt card.
    hunt       the Creature: optional phase-2 Hunt card(s), then `tokens`.
    prereveal  deferred questions before the reveal: River (which card stays), Vortex, Forbidden Zone,
               Ascendancy, Phobia.
    reckoning  after the reveal: phase-3 cards (live) and every Hunted's Reckoning questions (deferred): how to
               use each place, which card to discard to the Artemia token, Scream and Toxin choices.
    end        phase-4 cards (Stasis, Tracking, Amplifier, Double Back).

Under the table setting ``secrecy: "strict"`` (the default) what the table sees never depends on hidden cards and
nobody is asked a question whose only answer is to pass: after its first question of a turn a seat is asked about
its cards only if it said so there (``call``), and only when it holds one it may play; such questions are not
named (``observer.shown_waiting``: views list whom the table is told a window waits for, ``cards_pending`` says
that a card may still be played). Under ``"fast"`` holders are asked by name (rules/secrecy.py).

A seat may also be asked without being waited for (``may_answer``): the Creature's phase-1 card during the
exploration under strict secrecy, and a Hunted's *questions ahead* once their place is chosen (rules/ahead.py:
how they will use it, the River's card, the card for the Artemia token). A window closes when the seats it waits
for have answered; what a ``may`` seat did not answer is asked when its moment comes.

*Live* answers (card plays, Resist, Give Up, tokens) take effect at once, as at the table. *Deferred* answers
are recorded and applied when the rules reach that step, in rule order (seat order from the Creature's left,
token-free places first, then Target, Artemia, Creature). If an earlier step made a recorded answer illegal
(someone else used the Beach first, a token moved), the engine plays the sensible default for that step and
says so in a ``fallback`` event; a question that could not have been foreseen (Detour moved you) opens a short
follow-up window. A window asks the seats it waited for when it first asked somebody (its ``asked`` seats): a
seat that gets a question only later in it is waited for in a follow-up window (a new id) once those are done,
so a window never waits for a seat its question never reached.

Answering ahead: ``{"type": "plan", "orders": [action, ...]}`` is accepted from any seat at any time during a
turn. Whenever that seat is asked something later in the turn, the first order that is legal there answers it
without waiting ("no cards this turn" = ``[{"type": "pass"}]``, which holds until the turn ends; "use my place's
power" = ``{"type": "power"}``, optionally with ``place``/``use``: the plain power with the details auto-play
would choose, or an exact power action for chosen details).

Actions (all plain dicts; places are the numbers 1..10, cards are ids from cards.json)
-----------------------------------------------------------------------------------
    {"type": "side", "side": 1|2}
    {"type": "play", "cards": [p]} or [p, q] when a River/Artefact effect is pending (Artefact: resolution order)
    {"type": "resist", "cards": [..]}        1 Will for up to 2 cards, 2 Will for up to 4 (sorted)
    {"type": "giveup"}
    {"type": "keep_survival", "card": id}    keep one of the two cards drawn at the Shelter
    {"type": "survival", "card": id, ...}    plus the card's parameters, ``params`` in its entry of the card
    {"type": "hunt_card", "card": id, ...}   table (registry.py): e.g. sacrifice "discard": p; sixth-sense
                                             "cards": [..]; hologram "from": p, "to": q; mirage "places": [a, b]
                                             (left out when the Target token is already placed); detour "seat":
                                             h, "from": p, "to": q; flashback: the copied card's plus "copy": id
    {"type": "tokens", "creature": p} (+ "artemia": q when the Creature has that token and it is not placed)
    {"type": "pass"}                         no card now; in a place question whose only ways spend a Drone or
                                             Gate: use neither (a fallback never spends a card you did not name)
    {"type": "keep", "card": p}              River: the card that stays in play
    {"type": "discard", "cards": [..]}       Forbidden Zone, Ascendancy (all but two), Artemia token, Scream
    {"type": "show", "cards": [..]}          Phobia (all but two)
    {"type": "lose_will"}                    Scream
    {"type": "discard_survival", "card": id} Toxin
    {"type": "power", "place": p, "use": q, ...}   use the power of q from the place p you are on
                                             ("via": "lair" | "drone" | "gate" when q is not p);
                                             Lair/Jungle/Swamp: "take": [cards back to hand];
                                             Rover: "reserve": r; Source: "heal": seat or "draw": true
    {"type": "takeback", "place": p, "card": d}    instead of the power, take back one discarded card
    {"type": "plan", "orders": [..]}
    {"type": "call"}                         strict secrecy: ask me about my cards later this turn
    {"type": "ahead", "place": p, "answer": a}  a question ahead (rules/ahead.py); without "answer": decide later;
                                             "river": "keep" / "token": "artemia" instead of "place" for those

Rulings we had to choose are listed with their reasons in docs/rulings.md.
"""

from service.game import buildinfo

buildinfo.check()  # before any compiled module loads: never the rules of a build older than these sources

from service.game.engine import CREATURE, Game, IllegalAction, new_game  # noqa: E402
from service.game.rules.secrecy import DEFAULT as DEFAULT_SECRECY  # noqa: E402
from service.game.rules.secrecy import SETTINGS as SECRECY_SETTINGS  # noqa: E402

__all__ = ["CREATURE", "DEFAULT_SECRECY", "SECRECY_SETTINGS", "Game", "IllegalAction", "new_game"]
