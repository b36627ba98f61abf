"""An engine action as a player says it — "Take back 4 Beach", "Use 5 Rover: take 6 Swamp from the reserve" —
for the Telegram buttons and for what was played for someone ("⏰ Time ran out — I played Play 2 Jungle for you").
The typed command form (`service.commands.writing.describe`) stays the hint line under a question; this is its reading.
"""

from service.cardnames import name, word
from service.i18n import translator
from service.i18n.names import cards_text, seat_name


def _place(place: int, lang: str) -> str:
    return cards_text([place], lang)


def _card_details(action: dict, lang: str, names: dict[int, str]) -> str:
    """The parameters of a Hunt or Survival card: places, a seat, a move, a swap."""
    _ = translator(lang).gettext
    parts = []
    if "seat" in action:
        parts.append(seat_name(names, action["seat"], lang))
    if "places" in action:
        parts.append(cards_text(action["places"], lang))
    if "place" in action:
        parts.append(_place(action["place"], lang))
    if "from" in action and "to" in action:
        parts.append(f"{_place(action['from'], lang)} → {_place(action['to'], lang)}")
    if "discard" in action:
        parts.append(_("discard {card}").format(card=_place(action["discard"], lang)))
    if "cards" in action:
        parts.append(_("take back {cards}").format(cards=cards_text(action["cards"], lang)))
    if "give" in action and "take" in action:
        parts.append(
            _("{give} for {take}").format(give=_place(action["give"], lang), take=_place(action["take"], lang))
        )
    return " ".join(parts)


def _power(action: dict, lang: str, names: dict[int, str]) -> str:
    _ = translator(lang).gettext
    used = _place(action["use"], lang)
    head = _("Use {place}").format(place=used)
    via = action.get("via")
    if via == "lair":
        head = _("Copy {place} with the Lair").format(place=used)
    elif via:
        head = _("{card}: use {place}").format(card=name(via, lang), place=used)
    if "take" in action:
        return head + ": " + _("take back {cards}").format(cards=cards_text(action["take"], lang))
    if "reserve" in action:
        return head + ": " + _("take {card} from the reserve").format(card=_place(action["reserve"], lang))
    if "heal" in action:
        return head + ": " + _("{who} regains 1 Will").format(who=seat_name(names, action["heal"], lang))
    if action.get("draw"):
        return head + ": " + _("draw a Survival card")
    return head


def spoken(action: dict, lang: str, names: dict[int, str] | None = None) -> str:
    """The action in words, starting with a capital: what pressing its button does."""
    _ = translator(lang).gettext
    names = names or {}
    kind = action["type"]
    if kind == "side":
        return _("Side {n}").format(n=action["side"])
    if kind == "play":
        return _("Play {cards}").format(cards=cards_text(action["cards"], lang))
    if kind == "resist":  # 1 Will for up to 2 cards, 2 Will for 4
        return _("Resist (−{n} Will): take back {cards}").format(
            n=1 if len(action["cards"]) <= 2 else 2, cards=cards_text(action["cards"], lang)
        )
    if kind == "giveup":
        return _("Give up (all cards and Will back)")
    if kind == "keep":
        return _("Keep {card} in play").format(card=_place(action["card"], lang))
    if kind == "keep_survival":
        return _("Keep {card}").format(card=name(action["card"], lang))
    if kind == "discard":
        return _("Discard {cards}").format(cards=cards_text(action["cards"], lang))
    if kind == "discard_survival":
        return _("Discard {card}").format(card=name(action["card"], lang))
    if kind == "show":
        return _("Show {cards}").format(cards=cards_text(action["cards"], lang))
    if kind == "lose_will":
        return _("Lose 1 Will")
    if kind == "pass":
        return _("No card now")
    if kind == "takeback":
        return _("Take back {card}").format(card=_place(action["card"], lang))
    if kind == "power":
        return _power(action, lang, names)
    if kind == "tokens":
        placed = [
            f"{word(token + '_token', lang)} → {_place(action[token], lang)}"
            for token in ("creature", "target", "artemia")
            if action.get(token)
        ]
        text = ", ".join(placed)
        return text[:1].upper() + text[1:]
    if kind == "call":
        return "🔔 " + _("Ask me about my cards later this turn")
    if kind == "ahead":  # a question ahead (service/game/rules/ahead.py)
        if "answer" not in action:
            return "⏳ " + (_("Decide after the hunt") if "river" in action else _("Decide after the reveal"))
        answer = action["answer"]
        if answer.get("via") == "lair" and "use" not in answer:
            return _("Copy the power of the Creature's place")
        if answer.get("safe"):
            return _("Keep {card}, unless the Creature hunts there").format(card=_place(answer["card"], lang))
        return spoken(answer, lang, names)
    if kind == "plan":  # an answer ahead: what is said now for the questions still to come this turn
        if action["orders"] == [{"type": "pass"}]:
            return _("No cards this turn")
        return _("Later: {actions}").format(actions="; ".join(spoken(order, lang, names) for order in action["orders"]))
    if kind in ("survival", "hunt_card"):
        details = _card_details(action, lang, names)
        played = _("Play {card}").format(card=name(action["card"], lang, accusative=True))  # "Zahrát Nadvládu"
        if "copy" in action:
            played += " (" + _("as {card}").format(card=name(action["copy"], lang, accusative=True)) + ")"
        return f"{played}: {details}" if details else played
    return kind


def played_for(actions: list[dict], lang: str, names: dict[int, str] | None = None) -> str:
    """What was played for a player, to follow "I played": the places of a play ("2 Jungle"), else the actions
    as `spoken` words them, in lower case ("resist: take back 5 Rover, 1 Lair")."""
    out = []
    for action in actions:
        if action["type"] == "play":
            out.append(cards_text(action["cards"], lang))
        else:
            text = spoken(action, lang, names)
            out.append(text[:1].lower() + text[1:])
    return "; ".join(out)
