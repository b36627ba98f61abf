"""The /help and /rules answers in Telegram, in a group or in private: how a game by message goes here, and the rules
or one card's text.
"""

from service import cardtexts
from service.cardnames import fold, name, spellings
from service.channels.telegram.handling import Refused, _t, reply
from service.game.cards import CARDS


def cmd_help(message, args, lang, env):
    return reply(message, help_text(lang))


def help_text(lang: str) -> str:
    return _help_table(lang) + "\n\n" + _help_bots(lang)


def _help_bots(lang: str) -> str:
    return _t(
        lang,
        "Too few friends? /addbot [easy|normal|hard] in the group gives a seat to a bot, and /newgame "
        "[hunted|creature] [2-7] [easy|normal|hard] here in private starts a game of you against bots at once.",
    )


def _help_table(lang: str) -> str:
    return _t(
        lang,
        "Not Alone by message. In the group: /newgame opens a table, players press Join, the creator "
        "sets /settings and starts with /begin. Secret choices come to your private chat with me as "
        "buttons; you may also type the commands shown there. The group sees one status message per "
        "turn, the reveal and the end; /board shows the board as a picture, in the group or here. "
        "/rules [card] explains the rules or a card. A game opened by "
        "SMS (or elsewhere) is joined here with /join <code>; SMS players join with JOIN <code>.",
    )


def cmd_rules(message, args, lang, env):
    if not args:
        return reply(
            message,
            _t(
                lang,
                "The Hunted win when the Rescue counter reaches its end; the Creature wins "
                "when the Assimilation counter does. Each turn the Hunted secretly pick "
                "places, the Creature places its tokens, then all is revealed. "
                "/rules <card> explains one card.",
            ),
        )
    wanted = fold("".join(args))
    for card_id, card in CARDS.items():
        key = card["number"] if card["kind"] == "place" else card_id
        if wanted in spellings(key):
            title = name(key, lang)
            if card.get("phase"):
                title += " · " + _t(lang, "phase {n}").format(n=card["phase"])
            return reply(message, f"{title}\n{cardtexts.text(key, lang)}")
    raise Refused(_t(lang, "I know no card of that name."))
