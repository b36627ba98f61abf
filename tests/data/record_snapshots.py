"""How tests/data/engine_snapshots_v0.json was made (kept as a record; it reads state format 0's terse keys).

Run once with the engine before issue 11's restructuring: bot games are played, and the first state matching each
predicate below is saved with the moves that followed it and what that engine answered to them (events in full,
option lists and views as hashes, the first and last views in full).  tests/test_engine_snapshots.py replays them.
"""

import hashlib
import json
import random
import sys

sys.path.insert(0, ".")
from service.game import Game, new_game
from service.game.bots import choose


def h(v):
    return hashlib.sha256(json.dumps(v, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def views(game):
    return {
        "window": game.window,
        "waiting": game.waiting_for(),
        "public": game.public_view(),
        "views": [game.view(s) for s in range(game.players)],
        "discards": [game.visible_discards(s) for s in range(game.players)],
    }


def expected(game, moves):
    g = Game.from_json(game.to_json())
    out = {"start": views(g), "steps": []}
    last = g.window
    for seat, action in moves:
        step = {
            "options": h(g.legal_actions(seat)),
            "auto": g.autoplay(seat) if seat in g.waiting_for() else None,
            "events": g.apply(seat, action),
        }
        if g.window != last:
            step["views"] = h(views(g))
            last = g.window
        out["steps"].append(step)
    out["end"] = views(g)
    out["end"]["result"] = {"over": g.is_over, "winner": g.winner, "turn": g.turn}
    return out


def w(s):
    return s["window"]["kind"] if s["window"] else None


PREDICATES = {
    "setup": lambda s: w(s) == "setup",
    "explore_limbo": lambda s: w(s) == "explore" and any(p.get("limbo") for p in s["players"][1:]),
    "explore_creature_card": lambda s: (
        w(s) == "explore" and s["window"]["live"][0] == "wait" and any(x == "done" for x in s["window"]["live"][1:])
    ),
    "explore_forcefield": lambda s: w(s) == "explore" and s["t"]["ff"],
    "explore_river_pending": lambda s: w(s) == "explore" and any(p.get("pending") == "river" for p in s["players"][1:]),
    "hunt_with_cards": lambda s: w(s) == "hunt" and s["t"]["cards"] and s["t"]["surv"],
    "prereveal": lambda s: w(s) == "prereveal",
    "prereveal_answered": lambda s: w(s) == "prereveal" and s["t"]["answered"],
    "reckoning_answered": lambda s: w(s) == "reckoning" and s["t"]["answered"] and any(s["orders"]),
    "reckoning_smoke": lambda s: w(s) == "reckoning" and s["t"]["smoke"],
    "reckoning_clone": lambda s: w(s) == "reckoning" and "clone" in s["t"]["effects"],
    "end": lambda s: w(s) == "end" and s["t"]["cards"],
    "end_tracking_stasis": lambda s: w(s) == "end" and (s["limit_next"] == 2 or s["t"]["stasis"]),
    "despair_persecution": lambda s: (
        s["window"] is not None
        and ("despair" in s["t"].get("effects", ()) or "persecution" in s["t"].get("effects", ()))
        and w(s) == "reckoning"
    ),
}
found = {}
for seed in range(400):
    players = 2 + seed % 6
    cfg = {"players": players, "seed": seed, "side": None if seed % 3 == 0 else 1 + seed % 2, "expert": seed % 5 == 0}
    game, rng = new_game(cfg), random.Random(seed)
    history = [game.to_json()]
    moves = []
    while not game.is_over:
        waiting = game.waiting_for()
        seat = waiting[rng.randrange(len(waiting))]
        for action in choose(game, seat, rng, eager=seed % 2 == 0):
            moves.append((seat, action))
            game.apply(seat, action)
            history.append(game.to_json())
            if game.is_over:
                break
    for i, snap in enumerate(history):
        s = json.loads(snap)
        for name, pred in PREDICATES.items():
            if name not in found and not (s["winner"]) and pred(s):
                found[name] = (cfg, snap, moves[i : i + 50])
    if "finished" not in found:
        found["finished"] = (cfg, history[-1], [])
    if len(found) == len(PREDICATES) + 1:
        break
print(sorted(found), len(found), len(PREDICATES) + 1)
out = []
for name, (cfg, snap, moves) in sorted(found.items()):
    game = Game.from_json(snap)
    out.append(
        {
            "name": name,
            "config": cfg,
            "state": snap,
            "moves": [[s, a] for s, a in moves],
            "expected": expected(game, moves),
        }
    )
NOTE = (
    "Engine snapshots saved by the engine before issue 11's restructuring (state format 0: terse keys), each "
    "with the moves that continue it and what that engine answered; see tests/test_engine_snapshots.py."
)
with open("tests/data/engine_snapshots_v0.json", "w") as file:
    json.dump({"_note": NOTE, "snapshots": out}, file, sort_keys=True, separators=(",", ":"))
