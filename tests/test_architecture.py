"""The house's arrows run one way: no module imports another that (directly or not) imports it back.

import-linter (run by ``make test``, contracts in pyproject.toml) checks the layers; this checks that there is no
import cycle at all between modules, imports inside functions included — and that there is one door to a game: no
channel calls a Store method that reads or writes one (it asks the pipeline).
"""

from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]


def cycles(graph) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="c", imported="d")
    assert cycles(graph) == [{"a", "b", "c"}]


def test_no_module_imports_itself_back():
    graph = grimp.build_graph("service", "workers", exclude_type_checking_imports=True, cache_dir=None)
    assert cycles(graph) == []


# --- one door: the channels ask the pipeline for a game, never the store -----------------------------------------

# Store methods a channel may call: none reads or writes a game.
CHANNEL_STORE_METHODS = {
    "take_send_token",  # a chat's send budget (shared with the senders, `service.pipeline.outbox.budget`): no game's
    "replicated",  # whether this deployment's writes wait for a replica (the SMS endpoint's answer to a 5xx)
}
# (module, method) pairs allowed in one module only: a channel's own records kept in a game's shard.
CHANNEL_OWNED = {
    # Telegram's file ids of a game's board pictures (``{g:G}:tg:boards``, `telegram.sender.known_file`): Telegram's
    # own record, kept on the game's shard so that it goes with the game; no game state is read or written
    ("service/channels/telegram/boards.py", "at"),
}


def _store_calls(tree) -> list[tuple[int, str]]:
    """(line, method) of every call of a method on a store: ``….store.m(…)``, or ``store.m(…)`` for a name bound
    to ``….store`` (``store = ctx.store``, ``store, x = ctx.store, …``) or a parameter named ``store``."""
    import ast

    names = {"store"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            pairs = []
            for target in node.targets:
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs += zip(target.elts, node.value.elts)
                else:
                    pairs.append((target, node.value))
            for target, value in pairs:
                if isinstance(target, ast.Name) and isinstance(value, ast.Attribute) and value.attr == "store":
                    names.add(target.id)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            on_store = (isinstance(owner, ast.Attribute) and owner.attr == "store") or (
                isinstance(owner, ast.Name) and owner.id in names
            )
            if on_store:
                found.append((node.lineno, node.func.attr))
    return found


def game_store_calls(base: Path = REPO, under: str = "service/channels") -> list[str]:
    """``path:line method`` of every call of a Store method that reads or writes a game, in the channels."""
    import ast

    from service.store import Store

    game_methods = {name for name in dir(Store) if not name.startswith("_")} - CHANNEL_STORE_METHODS
    out = []
    for path in sorted((base / under).rglob("*.py")):
        module = path.relative_to(base).as_posix()
        for line, method in _store_calls(ast.parse(path.read_text(), module)):
            if method in game_methods and (module, method) not in CHANNEL_OWNED:
                out.append(f"{module}:{line} {method}")
    return out


def test_the_scan_finds_a_channel_reading_a_game_through_the_store(tmp_path):
    (tmp_path / "bad.py").write_text(
        "def f(ctx, env, store):\n"
        "    ctx.store.load('g')\n"
        "    env.ctx.store.meta('g')\n"
        "    mine, n = env.ctx.store, 1\n"
        "    mine.expected('g')\n"
        "    store.submit('g')\n"
        "    ctx.store.redis.get('k')\n"  # a channel's own key: not a Store method
        "    ctx.store.take_send_token('c', 0)\n"
    )
    hits = game_store_calls(tmp_path, ".")
    assert [hit.split(" ")[1] for hit in hits] == ["load", "meta", "expected", "submit"]


def test_no_channel_reads_or_writes_a_game_through_the_store():
    """One door: a channel asks the pipeline (`service.pipeline.seats`, `watch`, …) for a game, and keeps only its
    own records (the SMS directory, Telegram's tables) in keys of its own."""
    assert game_store_calls() == []
