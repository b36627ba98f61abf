"""How tests/data/engine_traces.json was made: run from the repository root with the engine to use as reference."""
import json, sys, time
sys.path.insert(0, ".")
from tests.engine_traces import trace_random, trace_bots
t=time.time()
data = {"random": {f"{p}:{s}": trace_random(p, s) for p in range(2, 8) for s in range(40)},
        "bots": {f"{p}:{s}:{int(e)}": trace_bots(p, s, e) for p in range(2, 8) for s in range(15) for e in (False, True)}}
json.dump(data, open("tests/data/engine_traces.json", "w"), indent=0, sort_keys=True)
print(time.time()-t)
