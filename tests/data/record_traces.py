"""How tests/data/engine_traces.json was made: run from the repository root with the engine to use as reference."""

import json
import sys
import time

sys.path.insert(0, ".")
from tests.engine_traces import trace_bots, trace_random

started = time.time()
data = {
    "random": {
        f"{p}:{s}:{secrecy}": trace_random(p, s, secrecy)
        for p in range(2, 8)
        for secrecy, seeds in (("fast", 40), ("strict", 20))
        for s in range(seeds)
    },
    "bots": {
        f"{p}:{s}:{int(e)}:{secrecy}": trace_bots(p, s, e, secrecy)
        for p in range(2, 8)
        for s in range(15)
        for e in (False, True)
        for secrecy in ("fast", "strict")
    },
}
with open("tests/data/engine_traces.json", "w") as out:
    json.dump(data, out, indent=0, sort_keys=True)
print(f"{time.time() - started:.1f} s")
