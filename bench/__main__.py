"""Run every ``bench/bench_*.py`` module's ``main()`` in sorted order (``python -m bench``)."""

import importlib
import pathlib
import sys
import traceback


def main() -> int:
    names = sorted(p.stem for p in pathlib.Path(__file__).parent.glob("bench_*.py"))
    if not names:
        print("bench: no bench/bench_*.py modules found")
        return 0
    failed = []
    for name in names:
        print(f"=== bench.{name} ===", flush=True)
        try:
            importlib.import_module(f"bench.{name}").main()
        except Exception:
            traceback.print_exc()
            failed.append(name)
    if failed:
        print(f"bench: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
