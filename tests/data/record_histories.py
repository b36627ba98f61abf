"""How tests/data/engine_histories_v0.json was made (with the engine before issue 11, from the repository root):
python tests/data/record_histories.py tests/data/engine_histories_v0.json
"""

import json
import random
import sys

sys.path.insert(0, ".")
from service.game import new_game
from service.game.bots import choose

games = []
for seed in range(6):
    cfg = {"players": 2 + seed, "seed": 500 + seed, "side": None if seed % 2 else 2, "expert": seed == 3}
    game, rng = new_game(cfg), random.Random(seed)
    moves, states = [], {0: game.to_json()}
    while not game.is_over:
        waiting = game.waiting_for()
        seat = waiting[rng.randrange(len(waiting))]
        for action in choose(game, seat, rng, eager=seed % 2 == 0):
            moves.append([seat, action])
            game.apply(seat, action)
            if len(moves) % 37 == 0:
                states[len(moves)] = game.to_json()
            if game.is_over:
                break
    states[len(moves)] = game.to_json()
    keep = sorted(states)
    keep = [keep[0], keep[len(keep) // 3], keep[2 * len(keep) // 3], keep[-1]]
    games.append({"config": cfg, "moves": moves, "states": {str(k): states[k] for k in keep}})
with open(sys.argv[1], "w") as f:
    json.dump(
        {
            "_note": "Whole bot games played by the engine before issue 11 (state format 0): the moves from the "
            "start and that engine's to_json() after some of them; see tests/test_engine_snapshots.py.",
            "games": games,
        },
        f,
        sort_keys=True,
        separators=(",", ":"),
    )
