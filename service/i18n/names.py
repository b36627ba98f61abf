"""Players, places and cards in a line of text, in the reader's language: the words every message is made of
(`service.i18n.events` words the events with them, `service.i18n.spoken` the actions). A module of its own:
`events` imports `spoken` (what was played for someone), so `spoken` takes these words from here."""

from service.cardnames import name, word


def seat_name(names: dict[int, str], seat: int, lang: str) -> str:
    """A player's display name, else their role ("Creature", "Hunted 2")."""
    if names.get(seat):
        return names[seat]
    return word("creature", lang) if seat == 0 else f"{word('a_hunted', lang)} {seat}"


def cards_text(cards, lang: str) -> str:
    """Places as "3 River, 4 Beach"; Hunt and Survival cards by name."""
    return ", ".join(f"{c} {name(c, lang)}" if isinstance(c, int) else name(c, lang) for c in cards)


def tokens_text(tokens: dict[str, list[int]], lang: str) -> str:
    """Placed tokens as "Creature token: 4 Beach; Target token: 7 Shelter" (empty when none is placed)."""
    return "; ".join(
        f"{word(kind + '_token', lang)}: {cards_text(places, lang)}" for kind, places in tokens.items() if places
    )
