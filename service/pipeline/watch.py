"""A game's watch page, channel-neutral: its unguessable token, its address, and the game's public history.

    new_token() -> str                        a fresh token (128 random bits, URL-safe); `resolution.start_game`
                                              gives one to every game (meta ``"watch"``, indexed by the store)
    url(settings, meta) -> str | None         the page's address, ``<ARTEMIA_PUBLIC_URL>/w/<token>`` (None without
                                              that setting, or for a game without a token)
    watched(store, token) -> Watched | None   the game whose page has that token, as the page shows it now
    history(store, game_id) -> list[Frame]    every step of the game so far, as anyone may see it
    show_hidden(store, game_id)               after the game, its creator's choice: the page shows each seat's
                                              hidden cards and picks at every step too (meta ``"watch_hidden"``)
    hidden_shown(meta, over) -> bool          whether the page shows them (only ever for a finished game)

A `Frame` is the game when a window opened (or when it ended): its public view (`Game.public_view`) and the
public events (``visible_to`` None) that led there. Nothing else of the game enters a frame, so a page drawn from
frames cannot tell a hand, a Survival card, a Hunt card in hand or a face-down pick — unless the frames are asked
``with_hidden`` (only for a finished game whose creator chose so), when each also holds every seat's
`Game.private_view`.

The history is replayed from the store's action log (the config, then every applied action, appended by each
commit) and kept per process: a later call applies only the actions added since (the log only grows).
"""

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from service.config import Settings
from service.game import Game
from service.game.engine import new_game
from service.store import Snapshot, Store

TOKEN_BYTES = 16
OVER = "over"  # a frame's kind once the game is over (a window's kinds: explore, hunt, prereveal, reckoning, end)
CACHED_GAMES = 64  # histories kept per process (a whole 7-player game: ~0.4 MB), the least recently asked dropped first


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def url(settings: Settings, meta: dict) -> str | None:
    base, token = settings.public_url, meta.get("watch")
    if not base or not token or not base.startswith(("http://", "https://")):
        return None
    return f"{base.rstrip('/')}/w/{token}"


def public(event: dict) -> bool:
    """Whether an engine event may be shown to anyone (the group sees exactly these: `news.split_turns`)."""
    return event.get("visible_to") is None and event["type"] != "locked_in"


@dataclass(frozen=True)
class Frame:
    """The game as anyone saw it when a window opened (``kind``: the window's kind — "end" is a turn's end phase —
    or `OVER` once the game is over)."""

    turn: int
    kind: str
    view: dict
    events: list[dict] = field(default_factory=list)  # the public events since the previous frame
    hidden: dict[int, dict] | None = None  # seat -> its private view, in frames made ``with_hidden`` only
    applied: int = 0  # the actions of the log applied when it was made


def frame(game: Game, events: list[dict], with_hidden: bool = False, applied: int = 0) -> Frame:
    kind = game.window["kind"] if game.window is not None else OVER
    hidden = {seat: game.private_view(seat) for seat in range(game.players)} if with_hidden else None
    return Frame(game.turn, kind, game.public_view(), list(events), hidden, applied)


def names_at(meta: dict, applied: int) -> dict[int, str]:
    """Each seat's name as it was when ``applied`` actions had been played: a seat that changed hands since
    (a stand-in, a player who left) is named by whoever held it then (meta ``"holders"``: each change, with the
    number of actions applied at that moment)."""
    names = {int(seat): player.get("name") or "" for seat, player in meta.get("players", {}).items()}
    for change in reversed(meta.get("holders", [])):  # the earliest change after that moment names it last
        if change["until"] > applied:
            names[int(change["seat"])] = change["name"]
    return names


def hidden_shown(meta: dict, over: bool) -> bool:
    return over and bool(meta.get("watch_hidden"))


@dataclass(frozen=True)
class Watched:
    """A game as its watch page shows it now (`watched`)."""

    game_id: str
    snap: Snapshot
    meta: dict
    waiting: list[int] | None  # while the window collects: the seats the table is told it waits for, not answered
    cancelled: bool  # over, because it was cancelled


def watched(store: Store, token: str) -> Watched | None:
    """The game whose watch page has ``token``, as the page shows it now (None: no such page, or game)."""
    game_id = store.game_of_watch(token)
    if game_id is None:
        return None
    snap, meta = store.load_with_meta(game_id)
    if snap is None:
        return None
    waiting: list[int] | None = None
    if snap.status == "collecting":
        answers, expected, _, _ = store.window_state(game_id)
        # whom the table is told the window waits for (strict secrecy never names a seat asked only about cards)
        window = Game.from_json(snap.json).public_view()["window"]
        named = set(window["waiting"]) if window else set()
        waiting = sorted((expected & named) - set(answers))
    cancelled = snap.status == "over" and store.cancelled_at(game_id) is not None
    return Watched(game_id, snap, meta, waiting, cancelled)


def show_hidden(store: Store, game_id: str) -> None:
    """The creator's choice, once the game is over (the caller checks both): hidden choices on the page too."""
    store.replace_meta(game_id, {**store.meta(game_id), "watch_hidden": True})


@dataclass
class _Replay:
    game: Game
    applied: int  # actions of the log applied so far
    frames: list[Frame]
    with_hidden: bool
    pending: list[dict] = field(default_factory=list)  # public events since the last frame


_cache: OrderedDict[str, _Replay] = OrderedDict()
_lock = threading.Lock()


def history(store: Store, game_id: str, with_hidden: bool = False) -> list[Frame]:
    """The game's frames so far (empty for a game without an action log); ``with_hidden``: with every seat's
    private view (see the module docstring: only for a finished game whose creator chose so)."""
    config, actions = store.action_log(game_id)
    if config is None:
        return []
    key = f"{game_id}|hidden" if with_hidden else game_id
    with _lock:
        replay = _cache.pop(key, None)
        if replay is None or replay.applied > len(actions):
            game = new_game(config)
            replay = _Replay(game, 0, [frame(game, [], with_hidden)], with_hidden)
        _advance(replay, actions)
        _cache[key] = replay
        while len(_cache) > CACHED_GAMES:
            _cache.popitem(last=False)
        return list(replay.frames)


def _advance(replay: _Replay, actions: list[tuple[int, dict]]) -> None:
    game = replay.game
    for seat, action in actions[replay.applied :]:
        window = game.window["id"] if game.window else None
        replay.pending += [e for e in game.apply(seat, action) if public(e)]
        replay.applied += 1
        if (game.window["id"] if game.window else None) != window:
            replay.frames.append(frame(game, replay.pending, replay.with_hidden, replay.applied))
            replay.pending = []
