"""The words of the texting channels' replies (SMS and WhatsApp): one short answer to each message a number
sends, English in the code and translated in the catalogues. WhatsApp's own wording (``*_wa`` keys) replaces the
SMS one where the two differ: a WhatsApp message is not paid by the segment and has no carrier keywords."""

from service.i18n import N_, translator

REPLIES = {  # key -> message (English, translated in the catalogues; the keys include the lobby's refusals)
    "help": N_(
        "Artemia, Not Alone by SMS. NEW [2-7] opens a game, JOIN <code> joins, GO starts it (bots fill seats). "
        "Answer e.g. 'play 3'; in several games start with the code. ? = options. ASCII ON = no accents, "
        "LANG CS. STOP ends messages, START resumes. FORGETME erases you from finished games."
    ),
    "help_wa": N_(
        "Artemia, Not Alone on WhatsApp. NEW [2-7] opens a game, JOIN <code> joins, GO starts it (bots fill "
        "seats). Tap an answer in the list, or type it, e.g. 'play 3'; in several games start with the code. "
        "? = the question again. LINK makes your SMS and WhatsApp numbers one player. STOP ends messages, START "
        "resumes. FORGETME erases you from finished games."
    ),
    "contact": N_("Help: {contact}."),
    "rates": N_("Msg & data rates may apply."),
    "link_offer": N_(
        "To play from your other number (SMS or WhatsApp) as this same player, send LINK {code} from it within 15 "
        "minutes. Game messages keep coming here; you can answer from either."
    ),
    "linked": N_(
        "Linked: this number now plays as {home}. Game messages keep coming to {home}; answer from either. "
        "UNLINK undoes it."
    ),
    "link_bad": N_("That code is wrong or has expired: send LINK from your other number for a new one."),
    "link_own": N_("This number gave that code: send LINK and the code from your other number."),
    "link_already": N_("This number already plays as {home}. UNLINK first to link it elsewhere."),
    "link_is_home": N_("Other numbers play as this one, so it cannot join another: UNLINK here first."),
    "link_busy": N_(
        "This number plays {codes}: link it when that is over, or the other way round: LINK here, then LINK "
        "<code> from the other number."
    ),
    "link_tries": N_("Too many wrong codes: try again in an hour."),
    "unlinked_alias": N_("Unlinked: this number plays as itself again. Your games stay with {home}."),
    "unlinked_home": N_("Unlinked: this number is no longer linked to {numbers}."),
    "not_linked": N_("This number is not linked to another. LINK gives a code to link your other number."),
    "slow_down": N_("Artemia: too many texts at once. Wait a few minutes; until then your texts are not read."),
    "slow_down_wa": N_("Artemia: too many messages at once. Wait a minute; until then they are not read."),
    "too_many": N_("You have too many games waiting to start: GO starts one, LEAVE <code> leaves one."),
    "stopped": N_("Artemia: no more messages. Bots play your seats; nothing is lost. Text START to come back."),
    "resumed": N_("Artemia: welcome back, your seats are yours again."),
    "no_game": N_("You are in no game. Text NEW to open one, JOIN <code> to join one, HELP for more."),
    "join_usage": N_("Text JOIN and the game's code, e.g. JOIN K7QX. NEW opens a game."),
    "solo_usage": N_("Text SOLO [creature/hunted] [2-7] [easy/normal/hard] for a game against bots, e.g. SOLO 4."),
    "not_in": N_("You are not in game {code}. Your games: {codes}."),
    "opened": N_("Game {code} is open{size}. Friends text JOIN {code} (on Telegram: /join {code}). GO starts it."),
    "size": N_(" for {size}, bots in empty seats"),
    "joined": N_("You joined {code} ({n}/{size}). It starts when its creator texts GO."),
    "seated": N_("{code} has begun. You are {role}; your questions come by SMS."),
    "seated_wa": N_("{code} has begun. You are {role}; your questions come here, to be answered with a tap."),
    "watch": N_("Watch the game: {link}"),
    "volunteer": N_("OK: you will be the Creature in {code}."),
    "left": N_("You left {code}."),
    "bot_added": N_("OK: a bot ({level}) takes a seat at {code} ({n}/{size})."),
    "bad_level": N_("Bots play at easy, normal or hard: e.g. ADDBOT {code} hard."),
    "not_at_table": N_("You have not joined {code}: text JOIN {code} first."),
    "unknown": N_("There is no game {code}: check the code."),
    "already": N_("You are already in {code}."),
    "full": N_("Game {code} is full."),
    "begun": N_("Game {code} has already begun."),
    "starts_it": N_(
        "{code} starts when {name}, who opened it, texts GO (on Telegram: /begin). Players so far: {n}/{size}."
    ),
    "not_creator": N_("Only whoever opened {code} can start it or change its settings."),
    "too_few": N_("{code} needs 2 to 7 players: wait for a JOIN, or open it with NEW 3 for bots."),
    "no_lobby": N_("You have no game waiting to start."),
    "set_usage": N_(
        "Text SET, the game's code and a setting: DEADLINE live/fast/daily/<seconds>, SECRECY strict/fast, "
        "EXPERT on/off, SIZE 2-7, TZ <Area/City>. E.g. SET {code} SECRECY fast"
    ),
    "bad_setting": N_(
        "{code}: not a setting. DEADLINE live/fast/daily/<seconds>, SECRECY strict/fast, EXPERT on/off, SIZE 2-7, "
        "TZ <Area/City>."
    ),
    "settings": N_("OK. {code}: deadline {deadline}, secrecy {secrecy}, expert {expert}."),
    "strict": N_("strict"),
    "fast": N_("fast"),
    "name_usage": N_("Text NAME and the name the others see, e.g. NAME Anna (at most 20 characters)."),
    "named": N_("OK: you are {name} (games: {codes})."),
    "ascii": N_("OK: messages without accents."),
    "confirm_on": N_("OK: each answer gets a reply of its own."),
    "confirm_off": N_("OK: an answer is confirmed in your next message (an error is still answered at once)."),
    "ascii_offer": N_("Texts without accents cost less: ASCII ON."),
    "accents": N_("OK: messages with accents."),
    "ascii_auto": N_("OK: accents only where they do not make a message cost more."),
    "lang": N_("OK: English."),
    "game_over": N_("{code}: this game is over."),
    "standin_usage": N_("Text STANDIN and the code of the seat offered to you, e.g. STANDIN K7QX2M."),
    "creature": N_("the Creature"),
    "hunted": N_("Hunted {n}"),
}


def reply(key: str, lang: str, **params) -> str:
    return translator(lang).gettext(REPLIES[key]).format(**params)


def dropped_note(n: int, lang: str) -> str:
    """What a number is told with its first text read after ``n`` were dropped unread by its flood bucket."""
    return (
        translator(lang)
        .ngettext(
            "Artemia: this text was read, but {n} text you sent before it was not (too many at once): send it "
            "again if it was an answer.",
            "Artemia: this text was read, but {n} texts you sent before it were not (too many at once): send them "
            "again if one was an answer.",
            n,
        )
        .format(n=n)
    )
