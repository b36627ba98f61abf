"""The game state and the rules: decision windows, legal actions, applying them, auto-play and views.

The state is one plain JSON-able dict (``Game.s``) so that it round-trips exactly and copies cheaply. The turn is
an *agenda* of tasks kept in the state; the driver (``_advance``) runs tasks until one needs a person, then opens
a window. See the package docstring for the windows and the action shapes, and docs/rulings.md for choices.
"""

import itertools
import json
import random

from service.game.cards import (
    ADJACENT, ADJACENT_PAIRS, ARTEFACT, ARTEMIA_SPACES, BEACH, HUNT_CARDS, HUNT_HAND, JUNGLE, LAIR,
    PAIR_TOKEN_CARDS, PHASE, PLACE_NUMBERS, PLACE_TARGET_CARDS, PLAYERS_MAX, PLAYERS_MIN, RESERVE_COPIES,
    RESERVE_PLACES, RIVER, ROVER, SEAT_CARDS, SHELTER, SOURCE, START_DISTANCES, STARTING_PLACES, SURVIVAL_CARDS,
    SWAMP, SYMBOL, WILL_MAX, WRECK,
)

CREATURE = 0
ACTION_TYPES = {
    "side", "play", "resist", "giveup", "keep_survival", "survival", "hunt_card", "tokens", "pass", "keep",
    "discard", "show", "lose_will", "discard_survival", "power", "takeback", "plan",
}
# Tasks whose decisions are collected in a window before they run, and the window that collects them.
DEFERRED_KIND = {"fz": "prereveal", "ascendancy": "prereveal", "phobia": "prereveal", "river": "prereveal",
                 "vortex": "prereveal", "scream": "reckoning", "toxin": "reckoning", "artemia": "reckoning",
                 "resolve": "reckoning"}
# How much a Hunted values holding each place card (used by auto-play to choose what to keep).
PLACE_VALUE = {1: 5, 2: 3, 3: 4, 4: 6, 5: 5, 6: 3, 7: 6, 8: 8, 9: 7, 10: 6}
SURVIVAL_KEEP_ORDER = ["dodge", "wrong-track", "adrenaline", "sixth-sense", "amplifier", "detector", "hologram",
                       "gate", "drone", "double-back", "vortex", "strike-back", "smokescreen", "ingenuity",
                       "sacrifice"]


class IllegalAction(ValueError):
    """An action that is not legal now; the message says why. The state is unchanged."""


class _NeedAnswer(Exception):
    """Raised by a deferred task that needs a person's answer before it can run."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


def new_game(config):
    """A new game from ``{"players": 2..7, "seed": int, "side": None|1|2, "expert": bool}``."""
    players = int(config.get("players", 0))
    if not PLAYERS_MIN <= players <= PLAYERS_MAX:
        raise IllegalAction(f"a game needs {PLAYERS_MIN} to {PLAYERS_MAX} players, not {players}")
    side = config.get("side")
    if side not in (None, 1, 2):
        raise IllegalAction("the board side is 1 or 2 (or None to let the Creature choose)")
    seed = int(config.get("seed", 0))
    rescue, assimilation = START_DISTANCES[players]
    s = {
        "config": {"players": players, "seed": seed, "side": side, "expert": bool(config.get("expert", False))},
        "rng": 0, "side": side, "turn": 0, "wid": 0, "window": None, "winner": None,
        "rescue": rescue, "assimilation": assimilation, "marker": False,
        "reserve": [RESERVE_COPIES[players] if p in RESERVE_PLACES else 0 for p in range(11)],
        "hunt_deck": [], "hunt_discard": [], "survival_deck": [], "survival_discard": [],
        "players": [], "tokens": {"creature": [], "target": [], "artemia": []},
        "t": {}, "limit_next": 1, "orders": [[] for _ in range(players)], "agenda": [],
    }
    game = Game(s)
    s["hunt_deck"] = game._shuffled(HUNT_CARDS)
    s["survival_deck"] = game._shuffled(SURVIVAL_CARDS)
    s["players"].append({"hand": [s["hunt_deck"].pop() for _ in range(HUNT_HAND)], "played": []})
    for _ in range(players - 1):
        s["players"].append({"hand": list(STARTING_PLACES), "discard": [], "played": [], "pos": [],
                             "will": WILL_MAX, "surv": [s["survival_deck"].pop()], "limbo": [],
                             "pending": None, "next": None})
    s["agenda"] = [["choose_side"]] if side is None else [["start_turn"]]
    game._advance([])
    return game


_TOKENS = tuple({"type": "tokens", "creature": c} for c in PLACE_NUMBERS)
_TOKENS_WITH_ARTEMIA = tuple({"type": "tokens", "creature": c, "artemia": a} for c in PLACE_NUMBERS for a in PLACE_NUMBERS)


def _combos(items, k):
    return [sorted(c) for c in itertools.combinations(sorted(items), min(k, len(items)))]


class Game:
    """One game of Not Alone. All state lives in ``self.s`` (plain JSON types). Change it only through
    ``apply``: values derived from it are cached in ``self._memo``, which code editing ``self.s`` by hand (test
    builders) must clear."""

    def __init__(self, state):
        self.s = state
        self._memo = {}  # derived values (upcoming tasks, live options) of the current state; reset on change

    # ------------------------------------------------------------------ serialisation
    def to_json(self):
        return json.dumps(self.s, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text):
        return cls(json.loads(text))

    def copy(self):
        return Game.from_json(self.to_json())

    # ------------------------------------------------------------------ public face
    @property
    def window(self):
        w = self.s["window"]
        return None if w is None else {"id": w["id"], "kind": w["kind"]}

    @property
    def turn(self):
        return self.s["turn"]

    @property
    def is_over(self):
        return self.s["winner"] is not None

    @property
    def winner(self):
        return self.s["winner"]

    @property
    def players(self):
        return self.s["config"]["players"]

    def hunted_seats(self):
        return range(1, self.players)

    def waiting_for(self):
        w = self.s["window"]
        if w is None:
            return []
        live = w["live"]
        if not w["deferred"]:
            return [seat for seat in range(self.players) if live[seat] == "wait"]
        with_tasks = self._upcoming_tasks()
        return [seat for seat in range(self.players)
                if live[seat] == "wait" or (seat in with_tasks and self._next_question(seat) is not None)]

    def legal_actions(self, seat):
        w = self.s["window"]
        if w is None or not 0 <= seat < self.players:
            return []
        if w["live"][seat] == "wait":
            return self._live_options(seat)
        if w["deferred"]:
            question = self._next_question(seat)
            if question is not None:
                return question[1]
        return []

    def apply(self, seat, action):
        """Apply one seat's action; returns the events it caused. Raises IllegalAction, changing nothing."""
        if self.is_over:
            raise IllegalAction("the game is over")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str) \
                or action["type"] not in ACTION_TYPES:
            raise IllegalAction(f"unknown action {action!r}")
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r} in this game")
        events = []
        recheck = {seat}
        if action["type"] == "plan":
            self._set_plan(seat, action, events)
            self._memo = {}
        else:
            w = self.s["window"]
            if w["live"][seat] == "wait":
                self._check(seat, action, self._live_options(seat))
                self._apply_live(seat, action, events)
                self._memo = {}
                recheck = {seat, CREATURE}
            else:
                question = self._next_question(seat) if w["deferred"] else None
                if question is None:
                    raise IllegalAction(self._not_waiting_reason(seat))
                key, options = question
                self._check(seat, action, options)
                self.s["orders"][seat].append({"key": key, "action": action})
                self.s["t"]["answered"].append(f"{seat}:{key}")
                self._memo.pop(("question", seat), None)  # an answer changes only this seat's questions
        self._advance(events, recheck)
        return events

    def autoplay(self, seat):
        """A legal, sensible action for a seat that missed its deadline, using only what that seat may know."""
        w = self.s["window"]
        if w is None:
            raise IllegalAction("the game is over")
        if w["live"][seat] == "wait":
            return self._auto_live(seat)
        question = self._next_question(seat) if w["deferred"] else None
        if question is None:
            raise IllegalAction(self._not_waiting_reason(seat))
        return self._pick(seat, *question)

    # ------------------------------------------------------------------ checking
    def _check(self, seat, action, options):
        if action in options:
            return
        same_type = [o for o in options if o["type"] == action["type"]]
        if not options:
            raise IllegalAction(self._not_waiting_reason(seat))
        if not same_type:
            kinds = ", ".join(sorted({o["type"] for o in options}))
            raise IllegalAction(f"'{action['type']}' is not possible now; you may: {kinds}")
        card = action.get("card")
        if card is not None and not any(o.get("card") == card for o in same_type):
            raise IllegalAction(f"you cannot play {card} now")
        if action["type"] == "play":
            need = len(same_type[0]["cards"])
            raise IllegalAction(f"play {need} place card(s) from your hand"
                                + (" (not a place under the Force Field)" if self.s["t"].get("ff") else ""))
        raise IllegalAction(f"that {action['type']} is not allowed now (for example: {same_type[0]})")

    def _not_waiting_reason(self, seat):
        waiting = self.waiting_for()
        who = ", ".join("the Creature" if s == CREATURE else f"seat {s}" for s in waiting)
        return f"nothing to answer for seat {seat} now" + (f"; waiting for {who}" if who else "")

    def _set_plan(self, seat, action, events):
        orders = action.get("orders")
        if not isinstance(orders, list) or len(orders) > 20:
            raise IllegalAction("a plan is a list of up to 20 actions")
        for order in orders:
            if not isinstance(order, dict) or not isinstance(order.get("type"), str) \
                    or order["type"] not in ACTION_TYPES - {"plan"}:
                raise IllegalAction(f"a plan may not hold {order!r}")
        keyed = [o for o in self.s["orders"][seat] if o["key"] is not None]
        self.s["orders"][seat] = keyed + [{"key": None, "action": o} for o in orders]
        events.append({"type": "plan", "seat": seat, "orders": orders, "visible_to": [seat]})

    # ------------------------------------------------------------------ randomness (seeded counter in the state)
    def _rng(self):
        self.s["rng"] += 1
        return random.Random(self.s["config"]["seed"] * 1_000_003 + self.s["rng"])

    def _shuffled(self, cards):
        cards = list(cards)
        self._rng().shuffle(cards)
        return cards

    def _peek_rng(self, seat):
        """Randomness for auto-play that does not advance the game's own counter."""
        w = self.s["window"]
        return random.Random(f"{self.s['config']['seed']}:{w['id'] if w else 0}:{seat}:{self.s['rng']}")

    # ------------------------------------------------------------------ small helpers
    def _h(self, seat):
        return self.s["players"][seat]

    def _has(self, card):
        """Whether a Hunt card with this effect (Flashback counts as its copy) was played this turn."""
        return card in self.s["t"].get("effects", ())

    def _entry(self, card):
        return next(entry for entry in self.s["t"]["cards"] if entry["as"] == card)

    def _owned(self, h):
        return set(h["hand"]) | set(h["discard"]) | set(h["played"])

    def _discard_audience(self):
        """Who may learn which cards moved in or out of discard piles: all, or only the Hunted under Smokescreen."""
        return list(self.hunted_seats()) if self.s["t"].get("smoke") else None

    def _can_survive(self, seat):
        t = self.s["t"]
        return not t.get("despair") and seat not in t["surv"]

    def _move(self, counter, events):
        """Move a counter one space toward its victory space; the game ends the moment one arrives."""
        if self.s["winner"] is not None:
            return
        self.s[counter] -= 1
        events.append({"type": "counter", "counter": counter, "distance": self.s[counter], "visible_to": None})
        if self.s[counter] <= 0:
            self.s["winner"] = "hunted" if counter == "rescue" else "creature"
            self.s["window"] = None
            self.s["agenda"] = []
            events.append({"type": "game_over", "winner": self.s["winner"], "visible_to": None})

    def _lose_will(self, seat, amount, events):
        h = self._h(seat)
        before = h["will"]
        h["will"] = max(0, before - amount)
        events.append({"type": "will", "seat": seat, "will": h["will"], "visible_to": None})
        if before > 0 and h["will"] == 0 and not self.s["t"]["zero"]:
            self.s["t"]["zero"] = True
            self._move("assimilation", events)

    def _draw(self, deck, discard):
        if not self.s[deck]:
            self.s[deck] = self._shuffled(self.s[discard])
            self.s[discard] = []
        return self.s[deck].pop() if self.s[deck] else None

    def _survival_available(self):
        return len(self.s["survival_deck"]) + len(self.s["survival_discard"])

    def _discard_place(self, seat, card):
        h = self._h(seat)
        h["hand"].remove(card)
        h["discard"].append(card)

    def _play_survival(self, seat, card, events, **params):
        h = self._h(seat)
        h["surv"].remove(card)
        self.s["survival_discard"].append(card)
        self.s["t"]["surv"].append(seat)
        events.append({"type": "survival", "seat": seat, "card": card, "visible_to": None})
        if params:
            events.append({"type": "survival_detail", "seat": seat, "card": card, **params,
                           "visible_to": self._discard_audience()})

    # ------------------------------------------------------------------ the driver
    def _advance(self, events, recheck=None):
        """Run the agenda until somebody must answer. ``recheck``: the live seats whose answer may have
        become automatic since the last call (None: all of them)."""
        s = self.s
        while s["winner"] is None:
            w = s["window"]
            if w is not None:
                self._answer_from_orders(events, recheck)
                recheck = None
                if s["winner"] is not None:
                    return
                if self.waiting_for():
                    s["wid"] = max(s["wid"], w["id"])  # the window now waits for a person: spend its id
                    return
                s["window"] = None
                self._memo = {}
                continue
            task = s["agenda"][0]
            try:
                done = getattr(self, "_task_" + task[0])(events, *task[1:])
            except _NeedAnswer as need:
                self._open_window(need.kind, [], deferred=True)
                self._memo = {}
                continue
            finally:
                self._memo = {}
            if done is not False and s["agenda"] and s["agenda"][0] is task:
                s["agenda"].pop(0)

    def _open_window(self, kind, live_seats, deferred=False):
        live = [None] * self.players
        for seat in live_seats:
            live[seat] = "wait"
        self.s["window"] = {"id": self.s["wid"] + 1, "kind": kind, "live": live, "deferred": deferred}

    def _answer_from_orders(self, events, seats=None):
        """Answer live questions from the seats' plans, or where only one answer is possible."""
        w = self.s["window"]
        orders = self.s["orders"]
        if w["kind"] != "explore":  # a card played in any other window can take away another seat's options
            seats = None
        progress = True
        while progress and self.s["window"] is w and self.s["winner"] is None:
            progress = False
            for seat in range(self.players):
                if w["live"][seat] != "wait" or (seats is not None and seat not in seats and not orders[seat]):
                    continue
                options = self._live_options(seat)
                if not options:  # e.g. a Sacrifice took away the Creature's only card play
                    w["live"][seat] = "done"
                    progress = True
                    continue
                action = self._from_orders(seat, None, options)
                if action is None and len(options) == 1:
                    action = options[0]
                if action is not None:
                    self._apply_live(seat, action, events)
                    self._memo = {}
                    seats = None
                    progress = True
                    break

    def _from_orders(self, seat, key, options):
        orders = self.s["orders"][seat]
        for wanted in ((key,) if key is not None else ()) + (None,):
            for i, order in enumerate(orders):
                if order["key"] == wanted:
                    action = self._order_answer(seat, order["action"], options)
                    if action is not None:
                        del orders[i]
                        return action
        return None

    def _order_answer(self, seat, order, options):
        """The option a planned action answers: itself, or for a bare "use my place's power" order (``power``
        with at most ``place``/``use``) the best plain power of that place, details chosen as auto-play would."""
        if order in options:
            return order
        if order["type"] != "power" or set(order) - {"type", "place", "use"}:
            return None
        fitting = [o for o in options if o["type"] == "power" and "via" not in o
                   and all(o[k] == v for k, v in order.items() if k != "type")]
        return max(fitting, key=lambda o: self._power_score(seat, o)) if fitting else None

    def _decide(self, seat, key, options, events):
        """The answer to a deferred question: a recorded answer or plan, the only option, or a fallback."""
        action = self._from_orders(seat, key, options)
        if action is not None:
            return action
        if f"{seat}:{key}" in self.s["t"]["answered"]:  # answered, but an earlier step left that answer out
            self.s["orders"][seat] = [o for o in self.s["orders"][seat] if o["key"] != key]
            action = options[0] if len(options) == 1 else self._pick(seat, key, options)
            events.append({"type": "fallback", "seat": seat, "question": key, "action": action,
                           "visible_to": [seat]})
            return action
        if len(options) == 1:
            return options[0]
        raise _NeedAnswer(DEFERRED_KIND[key.split(":")[0]])

    # ------------------------------------------------------------------ deferred questions
    def _next_question(self, seat):
        """The first question this seat must still answer in the open deferred window, as (key, options)."""
        key = ("question", seat)
        if key not in self._memo:
            self._memo[key] = self._compute_next_question(seat)
        return self._memo[key]

    def _compute_next_question(self, seat):
        answered = self.s["t"]["answered"]
        for task in self._upcoming_tasks().get(seat, ()):
            key = self._task_key(task)
            if f"{seat}:{key}" in answered:
                continue
            options = getattr(self, "_options_" + task[0])(*task[1:])
            if len(options) < 2 or self._matches_orders(seat, key, options):
                continue
            return key, options
        return None

    def _matches_orders(self, seat, key, options):
        return any(o["key"] in (key, None) and self._order_answer(seat, o["action"], options) is not None
                   for o in self.s["orders"][seat])

    @staticmethod
    def _task_key(task):
        return task[0] if len(task) == 2 else f"{task[0]}:{task[2]}"

    def _upcoming_tasks(self):
        """The deferred tasks the open window collects answers for, by seat: up to the next reveal or card
        window."""
        if "upcoming" not in self._memo:
            by_seat = {}
            for task in self._compute_upcoming_tasks():
                if task[0] in DEFERRED_KIND:
                    by_seat.setdefault(task[1], []).append(task)
            self._memo["upcoming"] = by_seat
        return self._memo["upcoming"]

    def _compute_upcoming_tasks(self):
        tasks = []
        for task in self.s["agenda"]:
            if task[0] in ("reveal", "end_cards"):
                break
            if task[0] == "prereveal":
                tasks.extend(self._prereveal_tasks())
            elif task[0] == "reckon":
                tasks.extend(self._reckon_tasks())
            else:
                tasks.append(task)
        return tasks

    # ------------------------------------------------------------------ setup and turns
    def _task_choose_side(self, events):
        self._open_window("setup", [CREATURE])
        self.s["agenda"][0] = ["start_turn"]
        return False

    def _task_start_turn(self, events):
        s = self.s
        s["turn"] += 1
        s["t"] = {"cards": [], "effects": [], "limit": s["limit_next"], "surv": [], "answered": [], "despair": False,
                  "sacrifice": False, "smoke": False, "ff": [], "dodge": [], "detector": [], "beach": False,
                  "wreck": False, "caught": False, "zero": False, "anticipated": False, "stasis": False,
                  "revealed": False, "phobia": None, "artemia_board": False}
        s["limit_next"] = 1
        s["orders"] = [[] for _ in range(self.players)]
        events.append({"type": "turn", "turn": s["turn"], "visible_to": None})
        s["agenda"] = [["explore"], ["hunt"], ["prereveal"], ["reveal"], ["cards", 3], ["reckon"],
                       ["zero"], ["end_cards"], ["end_turn"]]
        return False

    def _task_explore(self, events):
        live = list(self.hunted_seats())
        if self._creature_card_options(1):
            live.insert(0, CREATURE)
        self._open_window("explore", live)

    def _task_hunt(self, events):
        self.s["t"]["artemia_board"] = self.s["rescue"] in ARTEMIA_SPACES[self.s["side"]]
        self._open_window("hunt", [CREATURE])

    def _task_prereveal(self, events):
        self.s["agenda"][0:1] = self._prereveal_tasks()
        return False

    def _task_reckon(self, events):
        self.s["agenda"][0:1] = self._reckon_tasks()
        return False

    def _task_cards(self, events, phase):
        live = [seat for seat in range(self.players) if self._card_options(seat, phase)]
        self._open_window("reckoning" if phase == 3 else "end", live, deferred=phase == 3)

    def _card_names(self, seat):
        phase = 3 if self.s["window"]["kind"] == "reckoning" else 4
        return sorted({o["card"] for o in self._card_options(seat, phase) if o["type"] != "pass"})

    def _offer_responses(self, w):
        """After a card in a card window, ask again any seat that can now answer with a card it could not play
        before (a Dodge after a Detour onto the Creature token, a Cataclysm after a Wrong Track...)."""
        self._memo = {}
        for seat in range(self.players):
            if w["live"][seat] == "wait":
                continue
            names = self._card_names(seat)
            before = w.get("passed", {}).get(str(seat), [])
            if set(names) - set(before):
                w["live"][seat] = "wait"

    def _task_end_cards(self, events):
        self._task_cards(events, 4)

    # ------------------------------------------------------------------ live options
    def _live_options(self, seat):
        key = ("live", seat)
        if key not in self._memo:
            self._memo[key] = self._compute_live_options(seat)
        return list(self._memo[key])

    def _compute_live_options(self, seat):
        kind = self.s["window"]["kind"]
        if kind == "setup":
            return [{"type": "side", "side": 1}, {"type": "side", "side": 2}]
        if kind == "explore":
            return self._explore_options(seat) if seat != CREATURE else self._card_options(seat, 1)
        if kind == "hunt":
            return self._creature_card_options(2) + self._token_options()
        return self._card_options(seat, 3 if kind == "reckoning" else 4)

    def _apply_live(self, seat, action, events):
        kind = action["type"]
        w = self.s["window"]
        if kind == "side":
            self.s["side"] = action["side"]
            events.append({"type": "side", "side": action["side"], "visible_to": None})
            w["live"][seat] = "done"
        elif kind == "play":
            self._h(seat)["played"] = list(action["cards"])
            self._h(seat)["hand"] = [c for c in self._h(seat)["hand"] if c not in action["cards"]]
            events.append({"type": "played", "seat": seat, "cards": action["cards"], "visible_to": [seat]})
            events.append({"type": "locked_in", "seat": seat, "visible_to": None})
            w["live"][seat] = "done"
        elif kind == "tokens":
            self._place_tokens(action, events)
            w["live"][seat] = "done"
        elif kind == "pass":
            if w["kind"] in ("reckoning", "end"):
                w.setdefault("passed", {})[str(seat)] = self._card_names(seat)
            w["live"][seat] = "done"
        else:
            getattr(self, "_do_" + kind)(seat, action, events)
            self._memo = {}
            if self.s["window"] is not w:
                return
            if w["kind"] in ("reckoning", "end"):
                options = self._live_options(seat)
                if all(o["type"] == "pass" for o in options):
                    w["live"][seat] = "done"
                self._offer_responses(w)
            elif seat == CREATURE and w["kind"] == "explore" and len(self._live_options(seat)) <= 1:
                w["live"][seat] = "done"

    # ------------------------------------------------------------------ phase 1: exploration
    def _explore_options(self, seat):
        h = self._h(seat)
        if h["limbo"]:  # pairs drawn at the Shelter, chosen one pair at a time
            return [{"type": "keep_survival", "card": c} for c in h["limbo"][:2]]
        options = []
        discard = h["discard"]
        if discard and h["will"] >= 2:
            options += [{"type": "resist", "cards": c} for c in _combos(discard, 2)]
            if h["will"] == 3 and len(discard) > 2:
                options += [{"type": "resist", "cards": c} for c in _combos(discard, 4)]
        if h["will"] < WILL_MAX or discard:
            options.append({"type": "giveup"})
        options += self._survival_options(seat, 1)
        forbidden = self.s["t"]["ff"]
        playable = [c for c in sorted(h["hand"]) if c not in forbidden]
        if h["pending"] == "artefact":
            options += [{"type": "play", "cards": [a, b]} for a in playable for b in playable if a != b]
        elif h["pending"] == "river":
            options += [{"type": "play", "cards": [a, b]} for a, b in itertools.combinations(playable, 2)]
        else:
            options += [{"type": "play", "cards": [c]} for c in playable]
        return options

    def _do_keep_survival(self, seat, action, events):
        h = self._h(seat)
        pair, h["limbo"] = h["limbo"][:2], h["limbo"][2:]
        h["surv"].append(action["card"])
        self.s["survival_discard"] += [c for c in pair if c != action["card"]]
        events.append({"type": "kept_survival", "seat": seat, "visible_to": None})

    def _do_resist(self, seat, action, events):
        h = self._h(seat)
        cost = 1 if len(action["cards"]) <= 2 else 2
        h["will"] -= cost
        for card in action["cards"]:
            h["discard"].remove(card)
            h["hand"].append(card)
        events.append({"type": "resist", "seat": seat, "will": h["will"], "visible_to": None})
        events.append({"type": "took_back", "seat": seat, "cards": action["cards"],
                       "visible_to": self._discard_audience()})

    def _do_giveup(self, seat, action, events):
        h = self._h(seat)
        h["will"] = WILL_MAX
        h["hand"] += h["discard"]
        h["discard"] = []
        events.append({"type": "giveup", "seat": seat, "visible_to": None})
        self._move("assimilation", events)

    # ------------------------------------------------------------------ Survival cards
    def _survival_options(self, seat, phase):
        if not self._can_survive(seat):
            return []
        h = self._h(seat)
        options = []
        for card in sorted(set(h["surv"])):
            if PHASE[card] == phase:
                options += [{"type": "survival", "card": card, **p} for p in self._survival_params(seat, card)]
        return options

    def _survival_params(self, seat, card):
        h = self._h(seat)
        s, t = self.s, self.s["t"]
        if card == "adrenaline":
            return [{}] if h["will"] < WILL_MAX else []
        if card == "ingenuity":
            return [{}] if not s["marker"] else []
        if card == "sacrifice":
            return [{"discard": c} for c in sorted(h["hand"])] if not t["cards"] else []
        if card == "sixth-sense":
            return [{"cards": c} for c in _combos(h["discard"], 2)] if h["discard"] else []
        if card == "smokescreen":
            return [{}] if not t["smoke"] else []
        if card == "strike-back":
            return [{}] if s["players"][CREATURE]["hand"] else []
        if card == "detector":
            return [{}] if set(h["pos"]) & set(s["tokens"]["artemia"]) and seat not in t["detector"] else []
        if card == "dodge":
            return [{}] if set(h["pos"]) & set(self._creature_places()) and seat not in t["dodge"] else []
        if card == "hologram":
            return self._token_moves(s["tokens"]["artemia"])
        if card == "wrong-track":  # the Creature token and a Clone's Target may share a place: offer it once
            return self._token_moves(sorted(set(self._creature_places())))
        if card == "amplifier":
            return [{}] if s["marker"] else []
        if card == "double-back":
            return [{"place": p} for p in sorted(h["played"])]
        return []  # vortex, drone and gate are offered where they are used (prereveal and place questions)

    @staticmethod
    def _token_moves(places):
        return [{"from": a, "to": b} for a in sorted(places) for b in sorted(ADJACENT[a]) if b not in places]

    def _creature_places(self):
        tokens = self.s["tokens"]
        return tokens["creature"] + (tokens["target"] if self._has("clone") else [])

    def _do_survival(self, seat, action, events):
        card = action["card"]
        params = {k: v for k, v in action.items() if k not in ("type", "card")}
        h = self._h(seat)
        s, t = self.s, self.s["t"]
        self._play_survival(seat, card, events, **params)
        if card == "adrenaline":
            h["will"] += 1
        elif card == "ingenuity":
            s["marker"] = True
        elif card == "sacrifice":
            self._discard_place(seat, action["discard"])
            t["sacrifice"] = True
        elif card == "sixth-sense":
            for c in action["cards"]:
                h["discard"].remove(c)
                h["hand"].append(c)
        elif card == "smokescreen":
            t["smoke"] = True
        elif card == "strike-back":
            hand = s["players"][CREATURE]["hand"]
            taken = self._rng().sample(sorted(hand), min(2, len(hand)))
            for c in taken:
                hand.remove(c)
                s["hunt_deck"].insert(0, c)
            events.append({"type": "strike_back", "count": len(taken), "visible_to": None})
        elif card == "vortex":
            h["played"][h["played"].index(action["give"])] = action["take"]
            h["discard"].remove(action["take"])
            h["discard"].append(action["give"])
        elif card == "detector":
            t["detector"].append(seat)
        elif card == "dodge":
            t["dodge"].append(seat)
        elif card == "hologram":
            self._move_token("artemia", action)
        elif card == "wrong-track":
            self._move_token("creature" if action["from"] in s["tokens"]["creature"] else "target", action)
        elif card == "amplifier":
            s["marker"] = False
            self._move("rescue", events)
        elif card == "double-back":
            h["played"].remove(action["place"])
            h["hand"].append(action["place"])

    def _move_token(self, token, action):
        places = self.s["tokens"][token]
        places[places.index(action["from"])] = action["to"]

    # ------------------------------------------------------------------ Hunt cards
    def _creature_card_options(self, phase):
        t = self.s["t"]
        if t["sacrifice"] or len(t["cards"]) >= t["limit"]:
            return []
        options = []
        for card in sorted(self.s["players"][CREATURE]["hand"]):
            copy = None
            if card == "flashback":
                if not self.s["hunt_discard"] or self.s["hunt_discard"][-1] == "flashback":
                    continue
                copy = self.s["hunt_discard"][-1]
            effect = copy or card
            if PHASE[effect] != phase or (copy and self._has(effect)):
                continue
            base = {"type": "hunt_card", "card": card, **({"copy": copy} if copy else {})}
            options += [{**base, **params} for params in self._hunt_params(effect)]
        return options

    def _card_options(self, seat, phase):
        if seat == CREATURE:
            options = self._creature_card_options(phase)
        else:
            options = self._survival_options(seat, phase)
        return options + [{"type": "pass"}] if options else []

    def _hunt_params(self, card):
        s = self.s
        tokens = s["tokens"]
        hunted = list(self.hunted_seats())
        if card == "anticipation":
            return [{"seat": h} for h in hunted]
        if card in SEAT_CARDS:
            return [{"seat": h} for h in hunted if len(self._h(h)["hand"]) >= 3]
        if card in PAIR_TOKEN_CARDS:
            if PAIR_TOKEN_CARDS[card] == "target" and tokens["target"]:
                return [{}]
            return [{"places": list(pair)} for pair in ADJACENT_PAIRS]
        if card in PLACE_TARGET_CARDS:
            return [{}] if tokens["target"] else [{"place": p} for p in PLACE_NUMBERS]
        if card == "cataclysm":
            return [{"place": p} for p in PLACE_NUMBERS]
        if card == "detour":
            return [{"seat": h, "from": p, "to": q} for h in hunted for p in self._h(h)["pos"]
                    for q in sorted(ADJACENT[p])]
        return [{}]

    def _do_hunt_card(self, seat, action, events):
        s, t = self.s, self.s["t"]
        card = action["card"]
        effect = action.get("copy", card)
        s["players"][CREATURE]["hand"].remove(card)
        s["players"][CREATURE]["played"].append(card)
        entry = {k: v for k, v in action.items() if k != "type"}
        entry["as"] = effect
        t["cards"].append(entry)
        t["effects"].append(effect)
        events.append({"type": "hunt_card", **entry, "visible_to": None})
        tokens = s["tokens"]
        if effect in PAIR_TOKEN_CARDS and "places" in action:
            tokens[PAIR_TOKEN_CARDS[effect]] = list(action["places"])
        elif effect in PLACE_TARGET_CARDS and "place" in action:
            tokens["target"] = [action["place"]]
        if effect == "force-field":
            t["ff"] = list(action["places"])
            self._unlock_forbidden(events)
        elif effect == "despair":
            t["despair"] = True
        elif effect == "tracking":
            s["limit_next"] = 2
        elif effect == "stasis":
            t["stasis"] = True
        elif effect == "detour":
            pos = self._h(action["seat"])["pos"]
            pos[pos.index(action["from"])] = action["to"]

    def _unlock_forbidden(self, events):
        """Force Field after a Hunted chose a place it forbids: that choice goes back to hand, to choose again."""
        w = self.s["window"]
        for seat in self.hunted_seats():
            h = self._h(seat)
            if set(h["played"]) & set(self.s["t"]["ff"]):
                h["hand"] += h["played"]
                h["played"] = []
                w["live"][seat] = "wait"
                events.append({"type": "choose_again", "seat": seat, "visible_to": None})

    def _token_options(self):
        t, tokens = self.s["t"], self.s["tokens"]
        needs_artemia = (t["artemia_board"] or any(SYMBOL[e] == "artemia" for e in t["effects"])) \
            and not tokens["artemia"]
        return list(_TOKENS_WITH_ARTEMIA if needs_artemia else _TOKENS)

    def _place_tokens(self, action, events):
        tokens = self.s["tokens"]
        tokens["creature"] = [action["creature"]]
        if "artemia" in action:
            tokens["artemia"] = [action["artemia"]]
        events.append({"type": "tokens", "tokens": {k: list(v) for k, v in tokens.items()}, "visible_to": None})

    # ------------------------------------------------------------------ phase 2 reactions, before the reveal
    def _prereveal_tasks(self):
        tasks = []
        if self._has("forbidden-zone"):
            tasks += [["fz", seat] for seat in self.hunted_seats() if self._h(seat)["hand"]]
        for card in ("ascendancy", "phobia"):
            if self._has(card):
                tasks.append([card, self._entry(card)["seat"]])
        for seat in self.hunted_seats():
            h = self._h(seat)
            if h["pending"] == "river" and len(h["played"]) == 2:
                tasks.append(["river", seat])
            if "vortex" in h["surv"] and self._can_survive(seat) and h["discard"]:
                tasks.append(["vortex", seat])
        return tasks

    def _options_fz(self, seat):
        return [{"type": "discard", "cards": [c]} for c in sorted(self._h(seat)["hand"])]

    def _options_ascendancy(self, seat):
        hand = self._h(seat)["hand"]
        if len(hand) <= 2:
            return []
        return [{"type": "discard", "cards": sorted(set(hand) - set(keep))} for keep in _combos(hand, 2)]

    def _options_phobia(self, seat):
        return [{"type": "show", **o} for o in
                ({"cards": d["cards"]} for d in self._options_ascendancy(seat))]

    def _options_river(self, seat):
        return [{"type": "keep", "card": c} for c in self._h(seat)["played"]]

    def _options_vortex(self, seat):
        h = self._h(seat)
        if "vortex" not in h["surv"] or not self._can_survive(seat):
            return []
        return [{"type": "pass"}] + [{"type": "survival", "card": "vortex", "give": g, "take": d}
                                     for g in h["played"] for d in sorted(h["discard"])
                                     if d not in self.s["t"]["ff"]]

    def _task_fz(self, events, seat):
        self._discard_from_hand(seat, self._decide(seat, "fz", self._options_fz(seat), events), events)

    def _task_ascendancy(self, events, seat):
        options = self._options_ascendancy(seat)
        if options:
            self._discard_from_hand(seat, self._decide(seat, "ascendancy", options, events), events)

    def _discard_from_hand(self, seat, action, events):
        for card in action["cards"]:
            self._discard_place(seat, card)
        events.append({"type": "discarded", "seat": seat, "count": len(action["cards"]), "visible_to": None})
        events.append({"type": "discarded_cards", "seat": seat, "cards": action["cards"],
                       "visible_to": self._discard_audience()})

    def _task_phobia(self, events, seat):
        options = self._options_phobia(seat)
        if options:
            action = self._decide(seat, "phobia", options, events)
            self.s["t"]["phobia"] = {"seat": seat, "cards": action["cards"]}
            events.append({"type": "shown", "seat": seat, "cards": action["cards"], "visible_to": [CREATURE, seat]})

    def _task_river(self, events, seat):
        action = self._decide(seat, "river", self._options_river(seat), events)
        h = self._h(seat)
        h["hand"] += [c for c in h["played"] if c != action["card"]]
        h["played"] = [action["card"]]

    def _task_vortex(self, events, seat):
        options = self._options_vortex(seat)
        if options:
            action = self._decide(seat, "vortex", options, events)
            if action["type"] == "survival":
                self._do_survival(seat, action, events)

    def _task_reveal(self, events):
        for seat in self.hunted_seats():
            h = self._h(seat)
            h["pos"] = list(h["played"])
        self.s["t"]["revealed"] = True
        events.append({"type": "reveal", "visible_to": None, "turn": self.turn,
                       "played": {str(seat): list(self._h(seat)["played"]) for seat in self.hunted_seats()}})

    # ------------------------------------------------------------------ phase 3: the Reckoning
    def _reckon_tasks(self):
        """The Reckoning in rule order: free places (seat order), then Target, Artemia and Creature tokens."""
        tokens = self.s["tokens"]
        t = self.s["t"]
        clone = self._has("clone")
        target_cards = [c for c in ("scream", "toxin") if self._has(c)] if not clone else []
        stages = {"free": [], "target": [], "artemia": [], "creature": []}
        for seat in self.hunted_seats():
            for p in self._h(seat)["pos"]:
                target = p in tokens["target"] and not clone
                artemia = p in tokens["artemia"] and seat not in t["detector"]
                caught = p in self._creature_places() and seat not in t["dodge"]
                if caught:
                    stages["creature"].append(["catch", seat, p])
                if artemia:
                    stages["artemia"].append(["artemia", seat, p])
                if target:
                    stages["target"] += [[card, seat, p] for card in target_cards]
                if not (caught or artemia):
                    stages["target" if target else "free"].append(["resolve", seat, p])
        return stages["free"] + stages["target"] + stages["artemia"] + stages["creature"]

    def _ineffective(self, p):
        tokens = self.s["tokens"]
        return ((p in tokens["target"] and (self._has("mirage") or self._has("toxin")) and not self._has("clone"))
                or (self._has("interference") and p in (BEACH, WRECK))
                or (self._has("cataclysm") and self._entry("cataclysm")["place"] == p))

    def _options_resolve(self, seat, p):
        if self._ineffective(p):
            return []
        h = self._h(seat)
        options = self._power_options(seat, p, p, None)
        if p == LAIR:
            for q in sorted(set(self._creature_places()) - {LAIR, ARTEFACT}):
                options += self._power_options(seat, p, q, "lair")
        if self._can_survive(seat):
            if "drone" in h["surv"] and p != ROVER:
                options += self._power_options(seat, p, ROVER, "drone")
            if "gate" in h["surv"]:
                for q in sorted(ADJACENT[p] - {ARTEFACT}):
                    options += self._power_options(seat, p, q, "gate")
        return options + [{"type": "takeback", "place": p, "card": d} for d in sorted(h["discard"])]

    def _this_card(self, seat, p):
        """The place card a Hunted played for the position p (differs from p only after a Detour)."""
        h = self._h(seat)
        card = h["played"][h["pos"].index(p)] if p in h["pos"] and len(h["played"]) == len(h["pos"]) else p
        return card if card in h["played"] else None

    def _power_options(self, seat, p, use, via):
        s, t = self.s, self.s["t"]
        h = self._h(seat)
        base = {"type": "power", "place": p, "use": use, **({"via": via} if via else {})}
        discard = sorted(h["discard"])
        persecution = self._has("persecution")
        if use in (LAIR, JUNGLE, SWAMP):
            this = [] if use == LAIR else [c for c in [self._this_card(seat, p)] if c is not None]
            if use == LAIR:
                takes = [[d] for d in discard] if persecution else ([discard] if discard else [])
            elif persecution:
                takes = [this] * bool(this) + [[d] for d in discard]
            else:
                takes = [sorted(this + c) for c in (_combos(discard, 1 if use == JUNGLE else 2) or [[]])]
            return [{**base, "take": take} for take in takes if take]
        if use in (RIVER, ARTEFACT):
            other = "artefact" if use == RIVER else "river"
            return [base] if h["next"] != other else []
        if use == BEACH:
            return [base] if not t["beach"] else []
        if use == WRECK:
            return [base] if not t["wreck"] else []
        if use == ROVER:
            owned = self._owned(h)
            return [{**base, "reserve": r} for r in RESERVE_PLACES if s["reserve"][r] and r not in owned]
        if use == SHELTER:
            return [base] if not t["despair"] and self._survival_available() else []
        if use == SOURCE:
            options = [{**base, "heal": x} for x in self.hunted_seats() if 0 < self._h(x)["will"] < WILL_MAX]
            if not t["despair"] and self._survival_available():
                options.append({**base, "draw": True})
            return options
        return []

    def _task_resolve(self, events, seat, p):
        options = self._options_resolve(seat, p)
        if not options:
            return
        action = self._decide(seat, f"resolve:{p}", options, events)
        h = self._h(seat)
        if action["type"] == "takeback":
            h["discard"].remove(action["card"])
            h["hand"].append(action["card"])
            events.append({"type": "takeback", "seat": seat, "card": action["card"],
                           "visible_to": self._discard_audience()})
            return
        if action.get("via") in ("drone", "gate"):
            self._play_survival(seat, action["via"], events)
        self._use_power(seat, action, events)

    def _use_power(self, seat, action, events):
        s, t = self.s, self.s["t"]
        h = self._h(seat)
        use = action["use"]
        events.append({"type": "power", "seat": seat, "visible_to": None,
                       **{k: v for k, v in action.items() if k not in ("type", "take")}})
        if action.get("take"):
            events.append({"type": "took_back", "seat": seat, "cards": action["take"],
                           "visible_to": self._discard_audience()})
        for card in action.get("take", ()):
            (h["discard"] if card in h["discard"] else h["played"]).remove(card)
            h["hand"].append(card)
        if use in (RIVER, ARTEFACT):
            h["next"] = "river" if use == RIVER else "artefact"
        elif use == BEACH:
            t["beach"] = True
            s["marker"] = not s["marker"]
            if not s["marker"]:
                self._move("rescue", events)
        elif use == WRECK:
            t["wreck"] = True
            self._move("rescue", events)
        elif use == ROVER:
            s["reserve"][action["reserve"]] -= 1
            h["hand"].append(action["reserve"])
        elif use == SHELTER:
            drawn = [c for c in (self._draw("survival_deck", "survival_discard") for _ in range(2)) if c]
            if len(drawn) == 2:
                h["limbo"] += drawn  # a second Shelter this turn queues its own pair
            else:
                h["surv"] += drawn
            events.append({"type": "drawn", "seat": seat, "cards": drawn, "visible_to": [seat]})
        elif use == SOURCE:
            if "heal" in action:
                self._h(action["heal"])["will"] += 1
            else:
                card = self._draw("survival_deck", "survival_discard")
                h["surv"].append(card)
                events.append({"type": "drawn", "seat": seat, "cards": [card], "visible_to": [seat]})

    def _options_scream(self, seat, p):
        hand = self._h(seat)["hand"]
        return [{"type": "lose_will"}] + ([{"type": "discard", "cards": c} for c in _combos(hand, 2)]
                                           if len(hand) >= 2 else [])

    def _task_scream(self, events, seat, p):
        action = self._decide(seat, f"scream:{p}", self._options_scream(seat, p), events)
        if action["type"] == "lose_will":
            self._lose_will(seat, 1, events)
        else:
            self._discard_from_hand(seat, action, events)

    def _options_toxin(self, seat, p):
        return [{"type": "discard_survival", "card": c} for c in sorted(set(self._h(seat)["surv"]))]

    def _task_toxin(self, events, seat, p):
        options = self._options_toxin(seat, p)
        if options:
            card = self._decide(seat, f"toxin:{p}", options, events)["card"]
            self._h(seat)["surv"].remove(card)
            self.s["survival_discard"].append(card)
            events.append({"type": "discard_survival", "seat": seat, "card": card, "visible_to": None})

    def _options_artemia(self, seat, p):
        return [{"type": "discard", "cards": [c]} for c in sorted(self._h(seat)["hand"])]

    def _task_artemia(self, events, seat, p):
        options = self._options_artemia(seat, p)
        if options:
            self._discard_from_hand(seat, self._decide(seat, f"artemia:{p}", options, events), events)
        if self._has("mutation"):
            self._lose_will(seat, 1, events)

    def _task_catch(self, events, seat, p):
        t = self.s["t"]
        loss = 1 + (p == LAIR) + self._has("fierceness")
        events.append({"type": "caught", "seat": seat, "place": p, "visible_to": None})
        self._lose_will(seat, loss, events)
        if not t["caught"] and self.s["winner"] is None:
            t["caught"] = True
            self._move("assimilation", events)
        if self._has("anticipation") and self._entry("anticipation")["seat"] == seat and not t["anticipated"] \
                and self.s["winner"] is None:
            t["anticipated"] = True
            self._move("assimilation", events)

    def _task_zero(self, events):
        """Every Hunted who lost their last Will this Reckoning gives up: all place cards back, Will restored."""
        for seat in self.hunted_seats():
            h = self._h(seat)
            if h["will"] == 0:
                h["hand"] += h["discard"] + h["played"]
                h["discard"], h["played"] = [], []
                h["will"] = 2 if self.s["config"]["expert"] else WILL_MAX
                events.append({"type": "gave_up", "seat": seat, "will": h["will"], "visible_to": None})

    # ------------------------------------------------------------------ phase 4: end of the turn
    def _task_end_turn(self, events):
        s = self.s
        creature = s["players"][CREATURE]
        for seat in self.hunted_seats():
            h = self._h(seat)
            h["discard"] += h["played"]
            h["played"], h["pos"] = [], []
            h["pending"], h["next"] = h["next"], None
        s["hunt_discard"] += creature["played"]
        creature["played"] = []
        s["tokens"] = {"creature": [], "target": [], "artemia": []}
        while len(creature["hand"]) < HUNT_HAND:
            card = self._draw("hunt_deck", "hunt_discard")
            if card is None:
                break
            creature["hand"].append(card)
        s["agenda"] = [["start_turn"]]
        if not s["t"]["stasis"]:
            self._move("rescue", events)
        return False

    # ------------------------------------------------------------------ auto-play
    def _auto_live(self, seat):
        options = self._live_options(seat)
        kind = self.s["window"]["kind"]
        rng = self._peek_rng(seat)
        if kind == "setup":
            return options[rng.randrange(2)]
        if kind == "hunt":
            return self._auto_tokens(options, rng)
        if kind != "explore" or seat == CREATURE:
            return {"type": "pass"} if {"type": "pass"} in options else options[0]
        h = self._h(seat)
        if h["limbo"]:
            return min(options, key=lambda o: SURVIVAL_KEEP_ORDER.index(o["card"]))
        plays = [o for o in options if o["type"] == "play"]
        if plays:
            return rng.choice(plays)
        resists = [o for o in options if o["type"] == "resist"]
        if resists and h["will"] >= 2:
            return max(resists, key=lambda o: sum(PLACE_VALUE[c] for c in o["cards"]))
        return next(o for o in options if o["type"] in ("giveup", "survival"))

    def _auto_tokens(self, options, rng):
        """Where the Hunted are most likely to be, judged only from public information (discard piles)."""
        smoke = self.s["t"]["smoke"]
        weight = {p: rng.random() for p in PLACE_NUMBERS}
        for seat in self.hunted_seats():
            h = self._h(seat)
            known = set(STARTING_PLACES) | (set() if smoke else set(h["discard"]))
            for p in known:
                weight[p] += 0 if (not smoke and p in h["discard"]) else 1
        ranked = sorted(PLACE_NUMBERS, key=lambda p: -weight[p])
        wanted = {"type": "tokens", "creature": ranked[0]}
        if any("artemia" in o for o in options if o["type"] == "tokens"):
            wanted["artemia"] = ranked[1]
        return wanted

    def _pick(self, seat, key, options):
        """The sensible default answer to a deferred question."""
        kind = key.split(":")[0]
        h = self._h(seat)
        if kind in ("fz", "ascendancy", "artemia", "scream", "phobia"):
            if kind == "scream" and h["will"] >= 2:
                return {"type": "lose_will"}
            cards = [o for o in options if "cards" in o]
            if cards:
                return min(cards, key=lambda o: sum(PLACE_VALUE[c] for c in o["cards"]))
        if kind == "river":
            return options[self._peek_rng(seat).randrange(len(options))]
        if kind == "vortex":
            return {"type": "pass"}
        if kind == "resolve":
            return max(options, key=lambda o: self._power_score(seat, o))
        return options[0]

    def _power_score(self, seat, option):
        if option["type"] == "takeback":
            return PLACE_VALUE[option["card"]]
        use = option["use"]
        score = {LAIR: 2 * len(option.get("take", ())), JUNGLE: 5, RIVER: 5, BEACH: 9 if self.s["marker"] else 7,
                 ROVER: 7, SWAMP: 8, SHELTER: 7, WRECK: 12, SOURCE: 6, ARTEFACT: 5}[use]
        if use == SOURCE and option.get("heal") == seat:
            score += 3
        score += sum(PLACE_VALUE[c] for c in option.get("take", ())) / 4 + option.get("reserve", 0) / 10
        return score - (3 if "via" in option and option["via"] != "lair" else 0)

    # ------------------------------------------------------------------ views
    def private_view(self, seat):
        """What only this seat knows (the "you" part of its view): cheaper than a whole view."""
        if seat == CREATURE:
            return {"seat": 0, "role": "creature", "hunt_cards": sorted(self._h(CREATURE)["hand"]),
                    "shown_by_phobia": self.s["t"].get("phobia")}
        h = self._h(seat)
        return {"seat": seat, "role": "hunted", "hand": sorted(h["hand"]), "survival": sorted(h["surv"]),
                "drawn_to_choose": sorted(h["limbo"]), "played": list(h["played"])}

    def visible_discards(self, seat):
        """Each Hunted's place discard pile as ``seat`` sees it (None where Smokescreen hides it)."""
        hidden = self.s["t"].get("smoke") and seat in (None, CREATURE)
        return {h: None if hidden else list(self._h(h)["discard"]) for h in self.hunted_seats()}

    def public_view(self):
        return self._view(None)

    def view(self, seat):
        return self._view(seat)

    def _visible_waiting(self, seat):
        """Who the window waits for, as views show it: whether the Creature is deciding on a phase-1 card during
        the exploration would tell the Hunted that it holds one, so views never show the Creature there."""
        waiting = self.waiting_for()
        if self.s["window"]["kind"] == "explore":
            waiting = [w for w in waiting if w != CREATURE]
        return waiting

    def _view(self, seat):
        s, t = self.s, self.s["t"]
        hidden_discards = t.get("smoke") and seat in (None, CREATURE)
        revealed = t.get("revealed")
        w = s["window"]
        creature = s["players"][CREATURE]
        view = {
            "turn": s["turn"], "side": s["side"], "expert": s["config"]["expert"],
            "window": None if w is None else {"id": w["id"], "kind": w["kind"], "waiting": self._visible_waiting(seat)},
            "winner": s["winner"], "rescue": s["rescue"], "assimilation": s["assimilation"],
            "marker_on_beach": s["marker"],
            "artemia_spaces": sorted(ARTEMIA_SPACES[s["side"]]) if s["side"] else [],
            "reserve": {str(p): s["reserve"][p] for p in RESERVE_PLACES},
            "tokens": {k: list(v) for k, v in s["tokens"].items()},
            "hunt_cards_played": [dict(e) for e in t.get("cards", ())],
            "hunt_deck": len(s["hunt_deck"]), "hunt_discard": list(s["hunt_discard"]),
            "survival_deck": len(s["survival_deck"]), "survival_discard": list(s["survival_discard"]),
            "creature": {"hunt_cards": len(creature["hand"])},
            "hunted": [],
        }
        for other in self.hunted_seats():
            h = self._h(other)
            view["hunted"].append({
                "seat": other, "will": h["will"], "hand": len(h["hand"]), "survival": len(h["surv"]),
                "drawn_to_choose": len(h["limbo"]), "pending": h["pending"], "next_turn": h["next"],
                "discard": None if hidden_discards else list(h["discard"]),
                "played": list(h["pos"]) if revealed else len(h["played"]),
            })
        if seat is not None:
            view["you"] = self.private_view(seat)
        return view
