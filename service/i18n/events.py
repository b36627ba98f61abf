"""Engine events as one line of text in the reader's language (channel-neutral: Telegram, SMS, console).

``line(event, names, lang)`` words an event for whoever may see it (routing by ``visible_to`` is the caller's
job); it returns None for events that are shown another way (``locked_in`` becomes a tick in the status
message; ``reveal`` has its own message) or carry nothing worth a line.
"""

from service.cardnames import name
from service.i18n import N_, spoken, translator
from service.i18n.names import cards_text, seat_name, tokens_text


def _creatures_own(event: dict, lang: str) -> str:
    """A move of the Creature, told to the player who is the Creature."""
    _ = translator(lang).gettext
    if event["type"] == "side":
        return _("You chose side {side} of the board.").format(side=event["side"])
    if event["type"] == "tokens":
        return _("You placed your tokens: {tokens}.").format(tokens=tokens_text(event["tokens"], lang))
    return _("You play {card}.").format(card=name(event["card"], lang))


def _yours(event: dict, names: dict[int, str], lang: str) -> str | None:
    """The event in the second person, for the reader whose seat it is ("You use", not "You uses"); None for an
    event that has no second-person wording (it is not about one seat)."""
    t = translator(lang)
    _ = t.gettext
    kind = event["type"]
    if kind == "caught":
        return _("You were caught at {place}.").format(place=cards_text([event["place"]], lang))
    if kind == "will":
        return t.ngettext("You have {n} Will left.", "You have {n} Will left.", event["will"]).format(n=event["will"])
    if kind == "resist":
        return _("You resist (Will left: {n}).").format(n=event["will"])
    if kind == "giveup":
        return _("You give up.")
    if kind == "gave_up":
        return _("You have lost all Will: you take every card back, Will back to {n}.").format(n=event["will"])
    if kind == "discarded":
        return t.ngettext("You discard {n} card.", "You discard {n} cards.", event["count"]).format(n=event["count"])
    if kind == "discarded_cards":
        return _("You discard: {cards}.").format(cards=cards_text(event["cards"], lang))
    if kind in ("took_back", "takeback"):
        return _("You take back: {cards}.").format(cards=cards_text(event.get("cards", [event.get("card")]), lang))
    if kind == "power":
        if event.get("place", event["use"]) != event["use"]:
            said = _("At {place}, you use the power of {used}.").format(
                place=cards_text([event["place"]], lang), used=cards_text([event["use"]], lang)
            )
        else:
            said = _("You use the power of {place}.").format(place=cards_text([event["use"]], lang))
        return " ".join(filter(None, [said, _power_gain(event, names, lang, event["seat"])]))
    if kind == "survival":
        return _("You play {card}.").format(card=name(event["card"], lang))
    if kind == "discard_survival":
        return _("You discard {card}.").format(card=name(event["card"], lang))
    if kind == "kept_survival":
        return _("You keep one of the drawn Survival cards.")
    if kind == "choose_again":
        return _("You must choose a place again.")
    if kind == "shown":
        return _("You show: {cards}.").format(cards=cards_text(event["cards"], lang))
    return None


def _power_gain(event: dict, names: dict[int, str], lang: str, me: int | None) -> str:
    """What a power gave that its event carries: the Rover's card from the reserve, the Source's Will ("" else)."""
    _ = translator(lang).gettext
    if "reserve" in event:
        card = cards_text([event["reserve"]], lang)
        if event.get("seat") == me:
            return _("You take {card} from the reserve.").format(card=card)
        return _("Taken from the reserve: {card}.").format(card=card)
    if "heal" in event:
        if event["heal"] == me:
            return _("You regain 1 Will.")
        return _("{who} regains 1 Will.").format(who=seat_name(names, event["heal"], lang))
    return ""


def line(event: dict, names: dict[int, str], lang: str, me: int | None = None) -> str | None:
    """``me``: the reader's own seat, whose events are worded in the second person (`_yours`)."""
    if me == 0 and event["type"] in ("side", "tokens", "hunt_card"):  # the Creature's own moves (the reader's)
        return _creatures_own(event, lang)
    if me is not None and event.get("seat") == me:
        yours = _yours(event, names, lang)
        if yours is not None:
            return yours
    t = translator(lang)
    _ = t.gettext
    kind = event["type"]
    who = seat_name(names, event["seat"], lang) if "seat" in event else ""
    if kind == "turn":
        return _("Turn {n} begins.").format(n=event["turn"])
    if kind == "side":
        return _("The Creature chose side {side} of the board.").format(side=event["side"])
    if kind == "tokens":
        return _("The Creature placed its tokens: {tokens}.").format(tokens=tokens_text(event["tokens"], lang))
    if kind == "caught":
        return _("{who} was caught at {place}.").format(who=who, place=cards_text([event["place"]], lang))
    if kind == "counter":
        return (
            _("Rescue counter: {n} to go.") if event["counter"] == "rescue" else _("Assimilation counter: {n} to go.")
        ).format(n=event["distance"])
    if kind == "will":
        return t.ngettext("{who} has {n} Will left.", "{who} has {n} Will left.", event["will"]).format(
            who=who, n=event["will"]
        )
    if kind == "resist":
        return _("{who} resists (Will left: {n}).").format(who=who, n=event["will"])
    if kind == "giveup":
        return _("{who} gives up.").format(who=who)
    if kind == "gave_up":
        return _("{who} has lost all Will: takes every card back, Will back to {n}.").format(who=who, n=event["will"])
    if kind == "discarded":
        return t.ngettext("{who} discards {n} card.", "{who} discards {n} cards.", event["count"]).format(
            who=who, n=event["count"]
        )
    if kind == "discarded_cards":
        return _("{who} discards: {cards}.").format(who=who, cards=cards_text(event["cards"], lang))
    if kind in ("took_back", "takeback"):
        cards = event.get("cards", [event.get("card")])
        return _("{who} takes back: {cards}.").format(who=who, cards=cards_text(cards, lang))
    if kind == "power":
        if event.get("place", event["use"]) != event["use"]:  # the Lair's copy, the Gate, the Drone
            said = _("{who}, at {place}, uses the power of {used}.").format(
                who=who, place=cards_text([event["place"]], lang), used=cards_text([event["use"]], lang)
            )
        else:
            said = _("{who} uses the power of {place}.").format(who=who, place=cards_text([event["use"]], lang))
        return " ".join(filter(None, [said, _power_gain(event, names, lang, me)]))
    if kind == "survival":
        return _("{who} plays {card}.").format(who=who, card=name(event["card"], lang))
    if kind == "discard_survival":
        return _("{who} discards {card}.").format(who=who, card=name(event["card"], lang))
    if kind == "hunt_card":
        return _("The Creature plays {card}.").format(card=name(event["card"], lang))
    if kind == "kept_survival":
        return _("{who} keeps one of the drawn Survival cards.").format(who=who)
    if kind == "strike_back":
        return t.ngettext(
            "Strike Back: the Creature returns {n} Hunt card to the deck.",
            "Strike Back: the Creature returns {n} Hunt cards to the deck.",
            event["count"],
        ).format(n=event["count"])
    if kind == "choose_again":
        return _("{who} must choose a place again.").format(who=who)
    if kind == "played":
        return _("You play: {cards}.").format(cards=cards_text(event["cards"], lang))
    if kind == "drawn":
        return _("You draw: {cards}.").format(cards=cards_text(event["cards"], lang))
    if kind == "shown":
        return _("{who} shows: {cards}.").format(who=who, cards=cards_text(event["cards"], lang))
    if kind == "fallback":
        return _("Your earlier answer was no longer possible; a default was played for you.")
    if kind == "call":
        return "🔔 " + _("You will be asked about your cards later this turn, when one can be played.")
    if kind == "ahead":  # the answer's own screen said it ("Locked in: …"); the results tell what it did
        return None
    if kind == "timed_out":
        if _no_card(event["actions"]):
            return "⏰ " + _("Time ran out — I played no card for you this time.")
        return "⏰ " + _("Time ran out — I played {actions} for you.").format(
            actions=spoken.played_for(event["actions"], lang, names)
        )
    if kind == "bot_played":
        if _no_card(event["actions"]):
            return "🤖 " + _("The bot played no card for you this time.")
        return "🤖 " + _("The bot played {actions} for you.").format(
            actions=spoken.played_for(event["actions"], lang, names)
        )
    if kind == "taken_over":
        return "🤖 " + _(
            "You missed several deadlines in a row, so a bot plays your seat now. Press “I'm back” (or answer "
            "any question) to play again from the next question on."
        )
    # locked_in, reveal, plan, survival_detail: shown elsewhere or not worth a line; game_over: every end of a
    # game (`ended`, `game_over`, the status) says who won, and a line of its own would say it twice
    return None


def _no_card(actions: list[dict]) -> bool:
    """Whether a move played for someone only passed: said as a sentence of its own ("played no card now for
    you" does not read)."""
    return bool(actions) and all(action["type"] == "pass" for action in actions)


def counters(view: dict, lang: str) -> str:
    _ = translator(lang).gettext
    return (
        _("Rescue counter: {n} to go.").format(n=view["rescue"])
        + " "
        + _("Assimilation counter: {n} to go.").format(n=view["assimilation"])
    )


def to_the_star(distance: int, lang: str) -> str:
    """A counter's way to the star, as the board picture and the watch page label it: "3 spaces to the star"."""
    t = translator(lang)
    if not distance:
        return t.gettext("on the star")
    return t.ngettext("{n} space to the star", "{n} spaces to the star", distance).format(n=distance)


def track(view: dict, lang: str) -> str:
    """The track drawn and explained, from ``game.public_view()``: the Rescue counter 🔵 comes from the left, the
    Assimilation counter 🔴 from the right, toward the star ⭐ between them; "Ⓐ" marks the Rescue spaces with the
    Artemia symbol (of the board side chosen). E.g. "🔵·Ⓐ·Ⓐ·Ⓐ⭐···🔴" and the lines that say what it means."""
    t = translator(lang)
    _ = t.gettext
    rescue, assimilation = view["rescue"], view["assimilation"]
    spaces = set(view.get("artemia_spaces") or [])
    left = "".join("Ⓐ" if d in spaces else "·" for d in range(rescue - 1, 0, -1))
    right = "·" * max(0, assimilation - 1)
    drawn = ("🔵" if rescue else "") + left + "⭐" + right + ("🔴" if assimilation else "")
    lines = [
        drawn,
        t.ngettext("🔵 Rescue counter: {n} space to ⭐", "🔵 Rescue counter: {n} spaces to ⭐", rescue).format(n=rescue)
        + " · "
        + t.ngettext(
            "🔴 Assimilation counter: {n} space to ⭐", "🔴 Assimilation counter: {n} spaces to ⭐", assimilation
        ).format(n=assimilation)
        + " — "
        + _("the first to reach ⭐ wins."),
    ]
    if spaces:
        lines.append(
            _("Ⓐ: an Artemia symbol; while 🔵 stands on one, the Creature also places the Artemia token.")
            + (" " + _("🔵 stands on one now.") if rescue in spaces else "")
        )
    return "\n".join(lines)


def winner(view: dict, lang: str) -> str:
    _ = translator(lang).gettext
    return _("The Hunted win!") if view["winner"] == "hunted" else _("The Creature wins!")


def reveal(event: dict, names: dict[int, str], lang: str, me: int | None = None) -> str:
    """The reveal message, from the engine's ``reveal`` event: where each Hunted went; ``me``: the reader's seat,
    named "You" (a player reading the table's news in their own chat)."""
    t = translator(lang)
    lines = ["🔦 " + t.gettext("Reveal of turn {n}!").format(n=event["turn"])]
    for seat, cards in sorted(event["played"].items(), key=lambda item: int(item[0])):
        where = cards_text(cards, lang) if cards else t.gettext("nowhere (gave up)")
        who = t.pgettext("the reader, in the reveal", "You") if int(seat) == me else seat_name(names, int(seat), lang)
        lines.append(f"{who} → {where}")
    return "\n".join(lines)


def ended(view: dict, lang: str) -> str:
    """The game's end in one line: "🏁 Game over." and who won."""
    return f"🏁 {translator(lang).gettext('Game over.')} {winner(view, lang)}"


# The end-of-game message's last line: how to start another game, as the channel starts one.
AGAIN_BY_COMMAND = N_("Thanks for playing! /newgame starts another one.")
AGAIN_IN_SANDBOX = N_("Thanks for playing! Start the sandbox again for another game.")
AGAIN_BY_MESSAGE = N_("Thanks for playing! Send NEW for another game.")


def game_over(view: dict, names: dict[int, str], lang: str, again: str = AGAIN_BY_COMMAND) -> str:
    """The end-of-game message; ``again``: its last line (`AGAIN_BY_COMMAND`, `AGAIN_IN_SANDBOX`)."""
    return "\n".join([ended(view, lang), counters(view, lang), translator(lang).gettext(again)])


def duration(seconds: float, lang: str) -> str:
    """A length of time with its units, largest first: "45 s", "10 min", "1 h 30 min", "24 h"."""
    _ = translator(lang).gettext
    total = max(0, round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        _("{n} h").format(n=hours) if hours else "",
        _("{n} min").format(n=minutes) if minutes else "",
        _("{n} s").format(n=secs) if secs or not total else "",
    ]
    return " ".join(part for part in parts if part)


def notice_text(notice: dict, names: dict[int, str], lang: str, bot_username: str = "") -> str:
    """A structured notice of the pipeline (``{"type": "_notice", "kind": ...}``) in ``lang``."""
    t = translator(lang)
    _ = t.gettext
    kind = notice["kind"]
    if kind == "start" and not notice["seconds"]:
        return t.ngettext(
            "A game of Not Alone begins: {n} player, no time limit: take your time.",
            "A game of Not Alone begins: {n} players, no time limit: take your time.",
            notice["players"],
        ).format(n=notice["players"])
    if kind == "start":
        return t.ngettext(
            "A game of Not Alone begins: {n} player, {time} to answer each step.",
            "A game of Not Alone begins: {n} players, {time} to answer each step.",
            notice["players"],
        ).format(n=notice["players"], time=duration(notice["seconds"], lang))
    who = seat_name(names, notice["seat"], lang)
    if kind == "bot":
        return t.ngettext(
            "{who} missed {n} deadline in a row: a bot plays for them until they answer again.",
            "{who} missed {n} deadlines in a row: a bot plays for them until they answer again.",
            notice["misses"],
        ).format(who=who, n=notice["misses"])
    if kind == "unreachable":
        bot = f"@{bot_username}" if bot_username else _("the bot")
        return _(
            "{who} cannot get my private messages (the bot is blocked or was never started): a bot plays "
            "for them for now. {who}, open {bot} and press Start to get your seat back."
        ).format(who=who, bot=bot)
    return str(kind)
