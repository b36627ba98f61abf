"""Traces of whole games, for checking that the engine plays exactly as the recorded reference did.

``trace_random(players, seed)`` plays a game with uniformly random legal actions and ``trace_bots`` with the bots;
each returns a SHA-256 of everything a caller can observe on the way: who is asked, the legal actions, auto-play's
choice, every applied action's events, the views whenever a window opens, and the result. The reference hashes
in ``tests/data/engine_traces.json`` were recorded with the engine before its restructuring (issue 11), then
re-recorded after issue 12's rule fixes (18 of the 420 games changed, all by the Drone/Gate fallback fix), then
again with the ``secrecy`` setting: views now name it; under ``fast`` the random and plain-bot games were otherwise
unchanged and 72 of the 90 eager-bot games changed (a planned pass now holds for the whole turn, and an eager
Creature says "no cards" with its tokens); ``strict`` games were added; then again when auto-play stopped
spending a Drone or Gate for a late player (50 of 360 random traces, which record auto-play's choice at every
step, and 17 of 360 bot games changed); then when a seat whose question appears only later in a deferred window
(a Detour moved it) was asked in a follow-up window instead of the same one (69 of 720 games changed, each one
where that happened: `tests/test_pipeline_resolution.py` says why). A mismatch means the rules or the public face
changed.
"""

import hashlib
import json
import random

from service.game import new_game
from service.game.bots import choose


def _dump(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def _views(game, digest):
    digest.update(
        _dump(
            {
                "window": game.window,
                "public": game.public_view(),
                "views": [game.view(s) for s in range(game.players)],
                "discards": [game.visible_discards(s) for s in range(game.players)],
            }
        )
    )


def trace_random(players, seed, secrecy, max_steps=4000):
    game = new_game({"players": players, "seed": seed, "secrecy": secrecy})
    rng, digest = random.Random(seed), hashlib.sha256()
    last_window = None
    for _ in range(max_steps):
        if game.is_over:
            break
        if game.window != last_window:
            _views(game, digest)
            last_window = game.window
        waiting = game.waiting_for()
        seat = rng.choice(waiting + game.may_answer())
        options = game.legal_actions(seat)
        action = rng.choice(options)
        digest.update(
            _dump(
                {
                    "waiting": waiting,
                    "seat": seat,
                    "options": options,
                    "auto": game.autoplay(seat) if seat in waiting else None,
                    "private": game.private_view(seat),
                    "action": action,
                }
            )
        )
        digest.update(_dump(game.apply(seat, action)))
    _views(game, digest)
    digest.update(_dump({"over": game.is_over, "winner": game.winner, "turn": game.turn}))
    return digest.hexdigest()


def trace_bots(players, seed, eager, secrecy):
    game = new_game({"players": players, "seed": seed, "secrecy": secrecy})
    rng, digest = random.Random(seed), hashlib.sha256()
    while not game.is_over:
        waiting = game.waiting_for() + game.may_answer()
        seat = waiting[rng.randrange(len(waiting))]
        for action in choose(game, seat, rng, eager):
            digest.update(_dump({"seat": seat, "action": action, "events": game.apply(seat, action)}))
            if game.is_over:
                break
    _views(game, digest)
    return digest.hexdigest()
