"""The game: its public face (state, legal actions, apply, terminal/winner, views) and the driver that runs a turn.

The state is one plain JSON-able dict (``Game.s``, a state.State) so that it round-trips exactly and copies
cheaply. The turn is an *agenda* of tasks kept in the state; the driver (``advance``) runs tasks (TASKS, in
rules/dispatch.py) until one needs a person, then opens a window. The rules live in service/game/rules/, the cards
in registry.py, the views in observer.py, auto-play in autoplay.py, whom a window waits for and what it asks in
questions.py. See the package docstring for the windows and the action shapes, and docs/rulings.md for choices.

Game is the façade on top: a table.Table (the state and what the rules read of a game) with the public face and
the driver. Everything below it works on a Table and never imports this module (only the package's door and the
bots, which play Games, do).
"""

from typing import Any, Final

import orjson

from service.game import observer, questions
from service.game.answers import from_orders, survival_card
from service.game.autoplay import auto_live, pick
from service.game.cards import (
    HUNT_CARDS,
    HUNT_HAND,
    RESERVE_COPIES,
    RESERVE_PLACES,
    START_DISTANCES,
    STARTING_PLACES,
    SURVIVAL_CARDS,
    WILL_MAX,
)
from service.game.config import check_config
from service.game.rules.ahead import ahead_question
from service.game.rules.common import (
    CREATURE,
    MEMO_LIVE,
    MEMO_QUESTION,
    IllegalAction,
    NeedAnswer,
    asked_here,
    open_window,
    shuffled,
)
from service.game.rules.dispatch import (
    ACTION_TYPES,
    ANSWERS_THAT_CLOSE,
    LIVE_ACTIONS,
    OPENS_WINDOW_ONLY,
    PLAN_ORDERS,
    TASKS,
    run_task,
)
from service.game.rules.explore import explore_options
from service.game.rules.play_cards import card_names, card_options, creature_card_options, token_options
from service.game.rules.secrecy import CALL, may_call
from service.game.state import FORMAT_VERSION, Action, Event, State, Task, Window, migrate, new_this_turn
from service.game.table import Table

__all__ = ["CREATURE", "Game", "IllegalAction", "new_game"]

# Exploration answers that change only the answering Hunted's own cards and Will: no other seat's options.
_OWN_STATE_ONLY: Final = {"play", "resist", "giveup", "keep_survival"}
_SECRET_OWN_MOVES: Final = {"play", "keep_survival"}  # no seat's question ahead may tell them (Resist's Will may)
# Live answers that change only the window's bookkeeping (who has answered, what a passing seat could play):
# no seat's options, no deferred question.
_CHANGES_NO_OPTIONS: Final = {"pass"}


def new_game(config: Any) -> "Game":
    """A new game from a config (config.py: only ``players`` is required; a key or value it does not know raises
    IllegalAction)."""
    checked = check_config(config)
    players, side = checked["players"], checked["side"]
    rescue, assimilation = START_DISTANCES[players]
    s: State = {
        "version": FORMAT_VERSION,
        "config": checked,
        "rng_draws": 0,
        "side": side,
        "turn": 0,
        "last_window_id": 0,
        "window": None,
        "winner": None,
        "rescue": rescue,
        "assimilation": assimilation,
        "marker_on_beach": False,
        "reserve": [RESERVE_COPIES[players] if p in RESERVE_PLACES else 0 for p in range(11)],
        "hunt_deck": [],
        "hunt_discard": [],
        "survival_deck": [],
        "survival_discard": [],
        "players": [],
        "tokens": {"creature": [], "target": [], "artemia": []},
        "this_turn": new_this_turn(1),
        "hunt_card_limit_next": 1,
        "orders": [[] for _ in range(players)],
        "agenda": [],
    }
    game = Game(s)
    s["hunt_deck"] = shuffled(game, HUNT_CARDS)
    s["survival_deck"] = shuffled(game, SURVIVAL_CARDS)
    s["players"].append({"hand": [s["hunt_deck"].pop() for _ in range(HUNT_HAND)], "played": []})
    for _ in range(players - 1):
        s["players"].append(
            {
                "hand": list(STARTING_PLACES),
                "discard": [],
                "played": [],
                "positions": [],
                "will": WILL_MAX,
                "survival": [s["survival_deck"].pop()],
                "drawn_to_choose": [],
                "pending": None,
                "next_turn": None,
            }
        )
    s["agenda"] = [["choose_side"]] if side is None else [["start_turn"]]
    game.advance([])
    return game


class Game(Table):
    """One game of Not Alone: a Table (table.py) with the public face and the driver. All state lives in
    ``self.s`` (plain JSON types). Change it only through ``apply``: values derived from it are cached in
    ``self.memo``, which code editing ``self.s`` by hand (test builders) must clear."""

    # ------------------------------------------------------------------ serialisation (to_json: Table's)
    @classmethod
    def from_json(cls, text: str | bytes) -> "Game":
        """A game from ``to_json``'s text, of this engine or an older one (see state.migrate). Parsed with orjson:
        the same values as the standard parser, in a third of its time (a webhook's press parses a game twice)."""
        return cls(migrate(orjson.loads(text)))

    def copy(self) -> "Game":
        """``Game.from_json(self.to_json())``, with orjson's text (the same keys in the same order): a tenth of the
        time of the standard encoder's."""
        return Game.from_json(orjson.dumps(self.s, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS))

    # ------------------------------------------------------------------ public face
    @property
    def window(self) -> dict[str, Any] | None:
        w = self.s["window"]
        return None if w is None else {"id": w["id"], "kind": w["kind"]}

    @property
    def is_over(self) -> bool:
        return self.s["winner"] is not None

    @property
    def winner(self) -> str | None:
        return self.s["winner"]

    def is_terminal(self) -> bool:
        """OpenSpiel's name for ``is_over``."""
        return self.s["winner"] is not None

    def returns(self) -> list[float]:
        """Each seat's result, OpenSpiel style: 1 for the winning side's seats, -1 for the others, 0 before."""
        winner = self.s["winner"]
        if winner is None:
            return [0.0] * self.players
        creature_won = winner == "creature"
        return [1.0 if (seat == CREATURE) == creature_won else -1.0 for seat in range(self.players)]

    def waiting_for(self) -> list[int]:
        return list(questions.waiting(self))

    def may_answer(self) -> list[int]:
        """The seats asked in the open window that it does not wait for (``may``: see the package docstring)."""
        w = self.s["window"]
        return [] if w is None else [seat for seat, answer in enumerate(w["live"]) if answer == "may"]

    def answering(self, seat: int) -> bool:
        """Whether the seat has something to answer in the open window now (waited for or not)."""
        w = self.s["window"]
        return w is not None and (w["live"][seat] == "may" or seat in questions.waiting(self))

    def legal_actions(self, seat: int) -> list[Action]:
        w = self.s["window"]
        if w is None or not 0 <= seat < self.players:
            return []
        if w["live"][seat] in ("wait", "may"):
            return self.live_options(seat)
        if w["deferred"] and asked_here(w, seat):
            question = questions.next_question(self, seat)
            if question is not None:
                return question[1]
        return []

    def apply(self, seat: Any, action: Any) -> list[Event]:
        """Apply one seat's action; returns the events it caused. Raises IllegalAction, changing nothing (for any
        seat and action given: they are typed Any, so that a compiled engine checks them itself)."""
        if self.s["winner"] is not None:
            raise IllegalAction("the game is over")
        if (
            not isinstance(action, dict)
            or not isinstance(action.get("type"), str)
            or action["type"] not in ACTION_TYPES
        ):
            raise IllegalAction(f"unknown action {action!r}")
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r} in this game")
        events: list[Event] = []
        recheck = {seat}
        if action["type"] == "plan":
            self._set_plan(seat, action, events)
            self._forget()
        else:
            w = self.s["window"]
            assert w is not None
            if w["live"][seat] in ("wait", "may"):
                self._check(seat, action, self._live_options(seat))
                self._apply_live(seat, action, events)
                recheck = self._recheck_after_live(w, seat, action["type"])
            else:
                question = questions.next_question(self, seat) if w["deferred"] and asked_here(w, seat) else None
                if question is None:
                    raise IllegalAction(self._not_waiting_reason(seat))
                key, options = question
                self._check(seat, action, options)
                self.s["orders"][seat].append({"key": key, "action": action})
                self.s["this_turn"]["answered"].append(f"{seat}:{key}")
                self.memo.pop(MEMO_QUESTION + seat, None)  # an answer changes only this seat's questions
                self.memo.pop("waiting", None)
                if "live_looked_at" in self.memo:
                    recheck = set()  # an answer kept for later changes no seat's live question
        self.advance(events, recheck)
        return events

    def _recheck_after_live(self, w: Window, seat: int, kind: str) -> set[int]:
        """The live seats whose answer may have become automatic by this seat's live answer of ``kind`` (see
        ``advance``). Once the driver has looked at every live question since the state last changed, a pass
        changes no seat's options, and a Hunted's own move in the exploration only its own."""
        if "live_looked_at" in self.memo:
            if kind in _CHANGES_NO_OPTIONS:
                return set()
            if w["kind"] == "explore" and kind in _OWN_STATE_ONLY and seat != CREATURE:
                return {seat} if w["live"][seat] == "wait" else set()
        return {seat, CREATURE}

    def autoplay(self, seat: int) -> Action:
        """A legal, sensible action for a seat that missed its deadline, using only what that seat may know."""
        w = self.s["window"]
        if w is None:
            raise IllegalAction("the game is over")
        if w["live"][seat] == "wait":
            return auto_live(self, seat, self.live_options(seat))
        question = questions.next_question(self, seat) if w["deferred"] else None
        if question is None:
            raise IllegalAction(self._not_waiting_reason(seat))
        key, options = question
        # a Survival card is played only by a player who chose it: never through a Drone or Gate for a late one
        # (such a question always offers an answer without the card)
        return pick(self, seat, key, [o for o in options if survival_card(o) is None] or options)

    # ------------------------------------------------------------------ views (observer.py)
    def private_view(self, seat: int) -> dict[str, Any]:
        """What only this seat knows (the "you" part of its view): cheaper than a whole view."""
        return observer.private_view(self, seat)

    def visible_discards(self, seat: int | None) -> dict[int, list[int] | None]:
        """Each Hunted's place discard pile as ``seat`` sees it (None where Smokescreen hides it)."""
        return observer.visible_discards(self, seat)

    def public_view(self) -> dict[str, Any]:
        return observer.view(self, None)

    def view(self, seat: int) -> dict[str, Any]:
        return observer.view(self, seat)

    # ------------------------------------------------------------------ checking
    def _check(self, seat: int, action: Action, options: list[Action]) -> None:
        for option in options:  # one of the options themselves (a bot's pick): no dict compared
            if option is action:
                return
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
            raise IllegalAction(
                f"play {need} place card(s) from your hand"
                + (" (not a place under the Force Field)" if self.s["this_turn"]["force_field"] else "")
            )
        raise IllegalAction(f"that {action['type']} is not allowed now (for example: {same_type[0]})")

    def _not_waiting_reason(self, seat: int) -> str:
        waiting = observer.shown_waiting(self)  # what the table may know (strict: no seat asked only about cards)
        who = ", ".join("the Creature" if s == CREATURE else f"seat {s}" for s in waiting)
        return f"nothing to answer for seat {seat} now" + (f"; waiting for {who}" if who else "")

    def _set_plan(self, seat: int, action: Action, events: list[Event]) -> None:
        orders = action.get("orders")
        if not isinstance(orders, list) or len(orders) > 20:
            raise IllegalAction("a plan is a list of up to 20 actions")
        for order in orders:
            if (
                not isinstance(order, dict)
                or not isinstance(order.get("type"), str)
                or order["type"] not in PLAN_ORDERS
            ):
                raise IllegalAction(f"a plan may not hold {order!r}")
        keyed = [o for o in self.s["orders"][seat] if o["key"] is not None]
        self.s["orders"][seat] = keyed + [{"key": None, "action": o} for o in orders]
        events.append({"type": "plan", "seat": seat, "orders": orders, "visible_to": [seat]})

    # ------------------------------------------------------------------ the driver
    def advance(self, events: list[Event], recheck: set[int] | None = None) -> None:
        """Run the agenda until somebody must answer. ``recheck``: the live seats whose answer may have
        become automatic since the last call (None: all of them; an empty set: none, the last answer changed no
        seat's options or plan and the driver had looked at them all since the state last changed)."""
        s = self.s
        while s["winner"] is None:
            w = s["window"]
            if w is not None:
                self._answer_from_orders(w, events, recheck)
                recheck = None
                # A call, not s["winner"]: the loop's test narrowed that to None for the type checker, and the
                # compiled engine would take it for the constant None (tools/build_engine.py).
                if self.is_terminal():
                    return
                for seat in self.may_answer() if "may" in w["live"] else ():  # another answer took its question?
                    w["live"][seat] = "done" if not self._live_options(seat) else "may"
                if "wait" in w["live"] or questions.waiting(self):  # a live question waits: no need to list who
                    if "asked" not in w:
                        w["asked"] = list(questions.waiting(self))  # whom it asks: those it waits for on first asking
                    elif not self._still_asks(w):
                        self._follow_up(w)
                    s["last_window_id"] = max(s["last_window_id"], w["id"])  # it waits for a person: spend its id
                    self.memo["live_looked_at"] = True  # until the state changes (a state built elsewhere: not yet)
                    return
                s["window"] = None
                self._forget()
                continue
            task = s["agenda"][0]
            try:
                done = run_task(TASKS[task[0]], self, events, task)
            except NeedAnswer as need:
                open_window(self, need.kind, [], deferred=True)
                self._forget()
                continue
            except BaseException:
                self._forget()
                raise
            if task[0] not in OPENS_WINDOW_ONLY:
                self._forget()
            if done is not False and s["agenda"] and s["agenda"][0] is task:
                s["agenda"].pop(0)

    def _still_asks(self, w: Window) -> bool:
        """Whether the window still waits for one of the seats it asked (a live question of theirs, or in a
        deferred window one of their deferred questions)."""
        live, asked = w["live"], w["asked"]
        for seat in asked:
            if live[seat] == "wait":
                return True
        if not w["deferred"]:
            return False
        waiting = questions.waiting(self)
        return any(seat in waiting for seat in asked)

    def _follow_up(self, w: Window) -> None:
        """Everyone the window asked is done, and it now waits only for others (a Detour gave its Hunted a Dodge
        to answer): those are asked in a window of their own, with every question open now (docs/rulings.md C)."""
        w["id"] = self.s["last_window_id"] + 1
        del w["asked"]
        self.memo.pop("waiting", None)
        w["asked"] = list(questions.waiting(self))

    def _answer_from_orders(self, w: Window, events: list[Event], seats: set[int] | None = None) -> None:
        """Answer live questions from the seats' plans, or where only one answer is possible: those of ``seats``
        and of the seats holding orders (``seats`` None: all of them; empty: none, see ``advance``)."""
        if seats is not None and not seats:
            return
        orders = self.s["orders"]
        if w["kind"] != "explore":  # a card played in any other window can take away another seat's options
            seats = None
        live = w["live"]
        progress = True
        while progress and self.s["window"] is w and self.s["winner"] is None:
            progress = False
            for seat, answer in enumerate(live):
                if answer != "wait" or (seats is not None and seat not in seats and not orders[seat]):
                    continue
                options = self._live_options(seat)
                if not options:  # e.g. a Sacrifice took away the Creature's only card play
                    live[seat] = "done"
                    progress = True
                    continue
                planned = from_orders(self, seat, None, options) if orders[seat] else None
                action = planned
                if action is None and len(options) == 1 and options[0]["type"] != "pass":
                    action = options[0]  # a lone pass (strict secrecy) is the seat's to say
                if action is not None:
                    self._apply_live(seat, action, events)
                    if planned is not None:
                        self._forget()  # an order was used up: the seat's deferred questions may change
                    seats = None
                    progress = True
                    break

    # ------------------------------------------------------------------ deferred questions
    def next_question(self, seat: int) -> tuple[str, list[Action]] | None:
        """The first question this seat must still answer in the open deferred window, as (key, options)."""
        return questions.next_question(self, seat)

    def has_public_question(self, seat: int) -> bool:
        """Whether the open deferred window puts a question the table may be told of to the seat (questions.py)."""
        return questions.has_public_question(self, seat)

    def upcoming_tasks(self) -> dict[int, list[Task]]:
        """The deferred tasks the open window collects answers for, by seat (questions.py)."""
        return questions.upcoming_tasks(self)

    # ------------------------------------------------------------------ live questions
    def live_options(self, seat: int) -> list[Action]:
        """The seat's options in the open window's own question (a list of its own: the caller may change the list,
        never an option in it: some options are shared)."""
        return list(self._live_options(seat))

    def _live_options(self, seat: int) -> list[Action]:
        """The memoised list itself, for the engine's reading only."""
        key = MEMO_LIVE + seat
        options: list[Action] | None = self.memo.get(key)
        if options is None:
            options = self.memo[key] = self._compute_live_options(seat)
        return options

    def _compute_live_options(self, seat: int) -> list[Action]:
        w = self.s["window"]
        assert w is not None
        kind = w["kind"]
        if kind == "setup":
            return [{"type": "side", "side": 1}, {"type": "side", "side": 2}]
        if seat != CREATURE and w["live"][seat] == "may":
            return ahead_question(self, seat)
        if kind == "explore":
            if seat == CREATURE:
                return card_options(self, seat, 1)
            options = explore_options(self, seat)
            return options + [CALL] if may_call(self, seat) and options[0]["type"] != "keep_survival" else options
        if kind == "hunt":
            options = creature_card_options(self, 2) + token_options(self)
            return options + [CALL] if may_call(self, seat) else options
        return card_options(self, seat, 3 if kind == "reckoning" else 4)

    def _offer_responses(self, w: Window) -> None:
        """After a card in a card window, ask again any seat that can now answer with a card it could not play
        before (a Dodge after a Detour onto the Creature token, a Cataclysm after a Wrong Track...)."""
        self._forget()
        for seat in range(self.players):
            if w["live"][seat] == "wait":
                continue
            names = card_names(self, seat)
            before = w.get("passed", {}).get(str(seat), [])
            if set(names) - set(before):
                w["live"][seat] = "wait"

    def _forget_after_live(self, seat: int, kind: str, w: Window) -> None:
        """Drop the derived values that a live answer of this kind may have changed."""
        if kind in _CHANGES_NO_OPTIONS:
            return
        own = kind in _SECRET_OWN_MOVES or (kind in _OWN_STATE_ONLY and "may" not in w["live"])
        if w["kind"] == "explore" and seat != CREATURE and own:  # the other seats' options stay as they were
            self.memo.pop(MEMO_LIVE + seat, None)
        else:
            self._forget()

    def _apply_live(self, seat: int, action: Action, events: list[Event]) -> None:
        kind = action["type"]
        w = self.s["window"]
        assert w is not None
        LIVE_ACTIONS[kind](self, seat, action, events)
        self._forget_after_live(seat, kind, w)
        if kind in ANSWERS_THAT_CLOSE:
            # a Hunted's place chosen: its question ahead (rules/ahead.py) may be answered while the window is open
            w["live"][seat] = "may" if kind == "play" and ahead_question(self, seat) else "done"
            return
        if self.s["window"] is not w:
            return
        if kind == "ahead":
            if not self._live_options(seat):
                w["live"][seat] = "done"
            return
        if w["kind"] in ("reckoning", "end"):
            options = self._live_options(seat)
            if all(o["type"] == "pass" for o in options):
                w["live"][seat] = "done"
            self._offer_responses(w)
        elif seat == CREATURE and w["kind"] == "explore" and len(self._live_options(seat)) <= 1:
            w["live"][seat] = "done"
