"""The submit / deadline / commit scripts against a plain Python model of a window, on random sequences."""

import fakeredis
from hypothesis import given, settings
from hypothesis import strategies as st

from service.store import Commit, Store

G = "m"
SEATS = (0, 1, 2, 3)

operation = st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(SEATS), st.integers(1, 3), st.sampled_from(["a", "b", "c", None])),
    st.tuples(st.just("deadline"), st.integers(1, 3), st.booleans()),
    st.tuples(st.just("commit"), st.integers(1, 3)),
)


def opening(version: int, window: int, closed: int | None) -> Commit:
    return Commit(
        version=version,
        window=closed,
        engine_json="{}",
        next_window=window,
        status="collecting",
        deadline=100.0,
        now=0.0,
        expected=[1, 2],
        prefilled={},
        streaks={},
        messages=[],
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(operation, max_size=40))
def test_scripts_follow_the_window_model(ops):
    store = Store(fakeredis.FakeRedis(server=fakeredis.FakeServer()))
    store.commit(G, opening(0, 1, None))
    # the model
    version, window, status, answers, seen, resolves = 1, 1, "collecting", {}, set(), {}
    refresh_pending = False  # no refresh job takes the mark here: only the first accepted answer asks for one
    for op in ops:
        if op[0] == "submit":
            _, seat, w, dedup = op
            got = store.submit(G, w, seat, [{"type": "x", "n": len(answers)}], dedup, 1.0)
            if dedup is not None and dedup in seen:  # recorded before in this window
                want = ("DUP", 0, False, False)
            elif w != window:
                want = ("STALE", 0, False, False)
            elif status != "collecting":
                want = ("CLOSED", 0, False, False)
            else:
                answers[seat] = True
                if dedup is not None:
                    seen.add(dedup)
                missing = len({1, 2} - set(answers))
                want = ("ACCEPTED", missing, not refresh_pending, False) if missing else ("RESOLVE", 0, False, False)
                refresh_pending = refresh_pending or bool(missing)
                if not missing:
                    status = "resolving"
                    resolves[window] = resolves.get(window, 0) + 1
            assert got == want
        elif op[0] == "deadline":
            _, w, late = op
            got, _ = store.close_at_deadline(G, w, 150.0 if late else 50.0)
            if w != window or status != "collecting":
                assert got == "NOOP"
            elif not late:
                assert got == "EARLY"
            else:
                assert got == "CLOSED"
                status = "resolving"
                resolves[window] = resolves.get(window, 0) + 1
        else:
            _, w = op
            got = store.commit(G, opening(version, w + 1, w))
            if w == window and status == "resolving":
                assert got == version + 1
                version, window, status, answers = version + 1, w + 1, "collecting", {}
                seen = set()  # a commit forgets the closed window's ids: a late repeat is STALE
            else:
                assert got == 0
        snap = store.load(G)
        assert (snap.version, snap.window, snap.status) == (version, window, status)
        assert set(store.answers(G)) == set(answers)
    assert all(n == 1 for n in resolves.values())  # each window closed exactly once
