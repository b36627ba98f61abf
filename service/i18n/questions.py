"""What a seat is asked, in plain words: the question of its open window, naming the place or the card and what
each choice does ("You explored the Jungle: use its power, or take back one card from your discard instead.").

Read from the seat's legal actions (their kinds, the place explored, the cards offered), so a question always
matches its buttons. The place's own text follows when a power is offered (`service.cardtexts`).
"""

from service import cardtexts
from service.cardnames import name
from service.game import Game
from service.i18n import translator
from service.i18n.names import cards_text


def _used(use: int, via: str, lang: str) -> str:
    """The place whose power is offered, and how it can be had when it is not the place explored."""
    _ = translator(lang).gettext
    place = cards_text([use], lang)
    if via == "lair":
        return _("{place} (the Creature token's place, copied with the Lair)").format(place=place)
    if via:
        return _("{place} (with {card})").format(place=place, card=name(via, lang))
    return place


def _detoured_to(game: Game, seat: int) -> int | None:
    """The place a Detour played this turn moved ``seat`` to, if one did (the Hunt cards played are public)."""
    played = game.public_view().get("hunt_cards_played") or []
    return next((e["to"] for e in played if e.get("as") == "detour" and e.get("seat") == seat), None)


def _ahead(option: dict, lang: str) -> list[str]:
    """A question ahead (service/game/rules/ahead.py): asked now, answered for later, never waited for."""
    _ = translator(lang).gettext
    later = _("You may answer now, while the others decide, or later when it comes up: nothing waits for it.")
    if "river" in option:
        return [
            _(
                "The River: which of your two cards stays in play? The Creature hunts first: choose the one you "
                "want, and it stays unless the Creature hunts there and not at the other."
            ),
            later,
        ]
    if "token" in option:
        return [
            _("If the Creature places the Artemia token on your place, you discard a place card: which one?"),
            later,
        ]
    place = cards_text([option["place"]], lang)
    return [
        _("If the Creature does not catch you at {place}: use its power, or take back one card instead?").format(
            place=place
        ),
        f"{place}: {cardtexts.text(option['place'], lang)}",
        later,
    ]


def question(game: Game, seat: int, lang: str) -> list[str]:
    """The question's lines for ``seat`` in the game's open window (the game as the answer so far leaves it)."""
    _ = translator(lang).gettext
    legal = game.legal_actions(seat)
    kinds = {action["type"] for action in legal}
    window = game.window["kind"] if game.window else ""
    if kinds == {"ahead"}:
        return _ahead(legal[0], lang)
    if "power" in kinds or "takeback" in kinds:
        place = next(a["place"] for a in legal if a["type"] in ("power", "takeback"))
        where = cards_text([place], lang)
        moved = _detoured_to(game, seat) == place  # asked in a follow-up window about a place it did not play
        if "takeback" in kinds:
            line = (
                _(
                    "The Creature's Detour moved you to {place}: use its power, or take back one card from your "
                    "discard instead."
                )
                if moved
                else _("You explored {place}: use its power, or take back one card from your discard instead.")
            )
        else:
            line = (
                _("The Creature's Detour moved you to {place}: use its power.")
                if moved
                else _("You explored {place}: use its power.")
            )
        lines = [line.format(place=where)]
        used = sorted({(a["use"], a.get("via") or "") for a in legal if a["type"] == "power"})
        return lines + [f"{_used(use, via, lang)}: {cardtexts.text(use, lang)}" for use, via in used]
    if kinds == {"keep"}:
        cards = cards_text(sorted(a["card"] for a in legal), lang)
        return [
            _("The River: you played {cards}. Which one stays in play? The other goes back to your hand.").format(
                cards=cards
            )
        ]
    if kinds == {"discard", "lose_will"}:
        return [_("Scream: discard 2 place cards, or lose 1 Will?")]
    if kinds == {"discard"}:
        n = len(legal[0]["cards"])
        return [
            translator(lang)
            .ngettext(
                "You must discard {n} place card from your hand: which?",
                "You must discard {n} place cards from your hand: which?",
                n,
            )
            .format(n=n)
        ]
    if kinds == {"show"}:
        n = len(legal[0]["cards"])
        return [
            translator(lang)
            .ngettext(
                "Phobia: show the Creature {n} place card from your hand: which?",
                "Phobia: show the Creature {n} place cards from your hand: which?",
                n,
            )
            .format(n=n)
        ]
    if kinds == {"keep_survival"}:
        return [_("Shelter: you drew two Survival cards. Keep one (the other is discarded): which?")]
    if kinds == {"discard_survival"}:
        return [_("Toxin: discard one of your Survival cards: which?")]
    if window == "setup":
        return [
            _("Choose the side of the board."),
            _(
                "The sides differ only in the Artemia symbols on the Rescue track: side 1 has them on the 6 "
                "spaces nearest the star, side 2 on every other space."
            ),
        ]
    if window == "explore" and seat == 0:
        return [
            _(
                "While the Hunted choose their places you may play a phase 1 Hunt card. Nothing waits for you: "
                "the chance ends when the last of them has chosen."
            )
        ]
    if window == "explore" and seat != 0 and kinds & {"play", "resist", "giveup"}:
        lines = [_("Choose where you explore: play a place card (you may Resist or play a Survival card first).")]
        if "call" in kinds:
            lines.append(
                _(
                    "🔔 You hold a card that could be played later this turn: to be asked when it can, first choose "
                    "“Ask me about my cards later this turn”, then your place. Otherwise you are not asked (and "
                    "nobody learns whether you hold one)."
                )
            )
        if kinds & {"resist", "giveup"}:
            lines.append(
                _(
                    "Resist: lose Will to take place cards back from your discard. Give up: take every card back "
                    "and your Will back, but the Assimilation counter moves forward 1."
                )
            )
        return lines
    if window == "hunt":
        lines = [
            _("Place your tokens (you may play phase 2 Hunt cards first)."),
            _(
                "The Creature token catches whoever explores its place: they lose 1 Will, get nothing from the "
                "place, and the Assimilation counter moves forward 1."
            ),
        ]
        if "call" in kinds:
            lines.append(
                _(
                    "🔔 You hold a Hunt card for after the reveal: to be asked then, first choose “Ask me about my "
                    "cards later this turn”, then your tokens. Otherwise you are not asked this turn."
                )
            )
        return lines
    if "hunt_card" in kinds:
        return [_("You may play a Hunt card now, or play no card.")]
    if "survival" in kinds:
        return [_("You may play a Survival card now, or play no card.")]
    return [_("Play an end-of-turn card, or pass.")]
