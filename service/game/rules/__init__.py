"""The rules, by phase, and the dispatch tables that connect them to the driver (service/game/engine.py).

Every rule takes the game as a table.Table (the state and what a game fixes) and imports the small helpers below
it (common.py, cards, state), never the engine. This package's ``__init__`` imports nothing: Python loads it
before any one rule module, so an import here would load every rule with the first (and the answers ahead, which
import common.py and which the rules import, would import themselves back). The dispatch tables are dispatch.py.

    common.py      small rules every phase uses (counters, Will, decks, windows, who sees what)
    turn.py        the turn's agenda and the windows each phase opens; the end of the turn
    explore.py     phase 1: Resist, Give Up, keeping a Survival card, playing place cards
    play_cards.py  which Hunt / Survival cards may be played now (from the card table), playing one, tokens
    prereveal.py   phase 2's reactions before the reveal (Forbidden Zone, Ascendancy, Phobia, River, Vortex)
    reckoning.py   phase 3: places, powers and tokens
    survival.py, hunt_cards.py   each card's options and effect, listed in service/game/registry.py
    secrecy.py     the table setting that decides what whom a window waits for may tell the table (``call``)
    ahead.py       the hunt's questions ahead: how a Hunted will use their place, said before the reveal
    dispatch.py    the dispatch tables: task name -> function (TASKS, QUESTIONS), live actions, action types

A *task* is an agenda entry ``[name, *args]``; TASKS runs it. A *deferred* task asks its seat a question
(QUESTIONS gives the options) whose answer may be recorded before the task runs. A *live* action is a window's
own question, applied at once (LIVE_ACTIONS).
"""
