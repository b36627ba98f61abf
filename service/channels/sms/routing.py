"""What a text message means and what we answer: carrier keywords, lobby keywords, settings, game commands.

One message from a number -> at most one short reply (the TwiML answer). Carrier keywords are whole-message,
case-insensitive and in English, as carriers and Twilio match them:

    STOP STOPALL UNSUBSCRIBE CANCEL END QUIT   no more messages to this number; bots play its seats
    START YES UNSTOP                           messages again; its seats are its own again
    HELP INFO (NAPOVEDA, NÁPOVĚDA)             what this is and how to play

Ours, in English or Czech (matched without diacritics, so NOVA = NOVÁ and PRIPOJ = PŘIPOJ):

    NEW | NOVA [2-7] [live|fast|daily] [name]    open a table (ZIVE, RYCHLE, DENNE are the Czech presets; bots
                                                 fill the seats up to the number given)
    SOLO [creature|hunted] [2-7] [level]         a game against bots, begun at once (BYTOST, LOVENY; LEHKY,
                                                 NORMALNI, TEZKY; a Hunted, 3 players, normal when not said)
    JOIN | PRIPOJ <code> [name]                  join a table, opened by SMS or on Telegram
    GO | ZACNI [code]                            its creator starts it (2-7 players); a full table starts itself
    CREATURE | BYTOST [code]                     volunteer to be the Creature (alone or with a code: otherwise
                                                 "bytost 3 ..." is the Creature's hunt command)
    LEAVE | ODEJDI [code]                        leave a table that has not begun (a begun game's: a bot plays
                                                 the seat from then on)
    ADDBOT | BOT [code] [easy|normal|hard]       add a bot to a table that has not begun (LEHKY, NORMALNI, TEZKY;
                                                 normal when not said)
    SET | NASTAV [code] <setting> <value>        its creator changes a table that has not begun: DEADLINE |
                                                 LHUTA live|fast|daily|<seconds>, SECRECY | UTAJENI strict|fast
                                                 (PRISNE, RYCHLE), EXPERT on|off (ZAP, VYP), SIZE | HRACU 2-7,
                                                 TZ | ZONA <Area/City>|default, LANG | JAZYK cs|en (the table's)
    NAME | JMENO <name>                          the name the others see, at every table of the number
    AWAY | PRYC <until> | OFF                    away until then (3d, 12h, 24.12. 18:00): the bot plays the
                                                 number's seats; AWAY OFF (PRYC KONEC) is back at once
    STATS | STATISTIKA [OFF|ON]                  the number's record across tables; OFF deletes it
    FORGETME | ZAPOMEN                           the number's name and ids out of its finished games, its record
                                                 deleted (on Telegram: /forgetme)
    STANDIN | ZASKOK <code>                      take the seat a player offered (on Telegram: /handover)
    ASCII ON|OFF|AUTO  LANG | JAZYK EN|CS      settings of the number (AUTO, the default: accents only where they
                                                 cost nothing more; LANG CS offers ASCII ON)
    CONFIRM | POTVRZENI ON|OFF                   a reply to every accepted answer (off by default: "OK: play 3"
                                                 rides on the number's next message of the game, when it fits)
    LINK | PROPOJ [code]   UNLINK | ODPOJ       one person's SMS and WhatsApp numbers as one player
                                                 (`service.channels.sms.linking`)

The tables are the shared lobby's (`service.pipeline.lobby`): a number's address is ``sms:<E.164>``. Anything else is a
game command (`service.commands.parse`) for one of the number's games: the one whose code starts the message
("K7QX play 3"; the code alone asks for the current question), else the running game it joined most recently.
Bad input — an unknown number, garbage, a code of a game the number is not in — gets one helpful reply and
changes nothing. An answer that is legal but not all the seat must answer in the window ("resist 4", which
still needs a place played; "pass" before a power's question) is held (`directory.Held`) and the reply asks the
rest; the next text to that window is read after it and sent with it (`read_answer`), so every option a message
offers is accepted on its own.

Every reply is paid, so: each number has an inbound token bucket (`service.pipeline.floods`) — past a burst it
gets one "slow down" reply, then its texts are neither read nor answered until the bucket refills; STOP, START and
HELP (and their Czech forms) are always read and answered, past the bucket and without taking from it; a number
that texted STOP gets no reply at all but to those;
replies to numbers that play nothing and text something we cannot use share one hourly budget; a number's
settings expire (soon for a number that plays nothing); text of the sender's is echoed at most `ECHO_MAX`
characters long (`commands.echo`); HELP names the operator's contact (``ARTEMIA_OPERATOR_CONTACT``) and says
that message and data rates may apply.
"""

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace

from service import commands
from service.channels import longplay, plain
from service.channels.sms import linking
from service.channels.sms import render as sms_render
from service.channels.sms import text as sms_text
from service.channels.sms.directory import Directory, Held, Prefs
from service.channels.sms.replies import dropped_note, reply
from service.game import Game, IllegalAction
from service.i18n import translator
from service.pipeline import absence, floods, seats, watch
from service.pipeline.ingest import Reason, Status
from service.pipeline.lobby import DEFAULT_BOT_LEVEL, Lobby, LobbyError, Player, looks_like_code
from service.pipeline.seats import Games

STOP_WORDS = {"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"}
START_WORDS = {"START", "YES", "UNSTOP"}
HELP_WORDS = {"HELP", "INFO", "NAPOVEDA"}
NEW_WORDS = {"NEW", "NOVA"}
SOLO_WORDS = {"SOLO"}
SOLO_ROLES = {"CREATURE": True, "BYTOST": True, "HUNTED": False, "LOVENY": False}
JOIN_WORDS = {"JOIN", "PRIPOJ"}
GO_WORDS = {"GO", "ZACNI", "ZACIT"}
CREATURE_WORDS = {"CREATURE", "BYTOST"}
LEAVE_WORDS = {"LEAVE", "ODEJDI"}
ADDBOT_WORDS = {"ADDBOT", "BOT"}
BOT_LEVEL_NAMES = {
    "EASY": "easy",
    "NORMAL": "normal",
    "HARD": "hard",
    "LEHKY": "easy",
    "NORMALNI": "normal",
    "TEZKY": "hard",
}
LANG_WORDS = {"LANG", "JAZYK"}
# The keywords only a Czech speaker says: a number that has not chosen a language is answered in Czech for them.
CZECH_KEYWORDS = {
    "NAPOVEDA", "NOVA", "PRIPOJ", "ZACNI", "ZACIT", "BYTOST", "ODEJDI", "NASTAV", "JMENO", "PRYC", "STATISTIKA",
    "ZASKOK", "ZAPOMEN", "JAZYK", "PROPOJ", "ODPOJ",
}  # fmt: skip
CONFIRM_WORDS = {"CONFIRM", "POTVRZENI", "POTVRZUJ"}
ON_WORDS = {"ON", "YES", "ANO", "ZAP", "1"}
SET_WORDS = {"SET", "NASTAV"}
NAME_WORDS = {"NAME", "JMENO"}
AWAY_WORDS = {"AWAY", "PRYC"}
STATS_WORDS = {"STATS", "STATISTIKA"}
FORGET_WORDS = {"FORGETME", "ZAPOMEN"}
BACK_WORDS = {"OFF", "KONEC", "BACK", "ZPET"}  # after AWAY: back at once
STANDIN_WORDS = {"STANDIN", "ZASKOK"}
LINK_WORDS = {"LINK", "PROPOJ"}
UNLINK_WORDS = {"UNLINK", "ODPOJ"}
# A table's settings by SMS: the lobby's keys, and the values' Czech words (any other value is passed as typed).
SETTING_KEYS = {
    "DEADLINE": "deadline",
    "LHUTA": "deadline",
    "SECRECY": "secrecy",
    "UTAJENI": "secrecy",
    "EXPERT": "expert",
    "SIZE": "size",
    "HRACU": "size",
    "TZ": "tz",
    "ZONA": "tz",
    "LANG": "lang",
    "JAZYK": "lang",
}
SETTING_VALUES = {"PRISNE": "strict", "RYCHLE": "fast", "ZIVE": "live", "DENNE": "daily", "ZAP": "on", "VYP": "off"}
DEADLINES = {"LIVE": "live", "FAST": "fast", "DAILY": "daily", "ZIVE": "live", "RYCHLE": "fast", "DENNE": "daily"}
MAX_NAME = 20


def fold(word: str) -> str:
    """A keyword as matched: upper case, no diacritics, no trailing punctuation ("Přípoj!" -> "PRIPOJ")."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).upper().strip(".!")


class Router:
    """Turns one message from a number into its effect (settings, lobby, a recorded answer) and the reply."""

    def __init__(self, directory: Directory, games: Games, lobby: Lobby):
        self.directory, self.games, self.lobby = directory, games, lobby

    def handle(self, number: str, text: str, message_id: str | None) -> str | None:
        """The reply to one message, prepared for an SMS number's ASCII setting; None: no reply at all."""
        answer = self._admitted(number, text, message_id)
        if answer is None or self.directory.whatsapp:  # WhatsApp is not paid by the segment: the text as it is
            return answer
        prefs = self.directory.prefs(number)
        return sms_text.outgoing(answer, prefs.ascii, prefs.accents)

    def _admitted(self, number: str, text: str, message_id: str | None) -> str | None:
        """The carrier keywords and the flood bucket, before anything else is read."""
        words = text.split()
        prefs = self.directory.prefs(number)
        if not prefs.lang_chosen and words and fold(words[0]) in CZECH_KEYWORDS:
            prefs = replace(prefs, lang="cs")  # "NÁPOVĚDA" from a number abroad: answered as it asks
        keyword = fold(words[0]) if len(words) == 1 else ""
        # the carrier keywords pass the flood bucket, and take nothing from it: never an opt-out lost to a limit
        if keyword in STOP_WORDS:
            self._stop(number)
            return reply("stopped", prefs.lang)
        if keyword in START_WORDS:
            out: str | None = self._start(number, prefs.lang)
        elif keyword in HELP_WORDS:
            out = self._help(prefs.lang)
        elif prefs.stopped:
            return None  # opted out: not a word more
        else:
            channel = "whatsapp" if self.directory.whatsapp else "sms"
            admission = floods.admit(self.lobby.ctx, channel, self.directory.address(number))
            if admission is not floods.Admission.READ:
                floods.dropped(self.lobby.ctx, self.directory.address(number))
                slow = "slow_down_wa" if self.directory.whatsapp else "slow_down"
                return reply(slow, prefs.lang) if admission is floods.Admission.SLOW_DOWN else None
            out = self._answer(number, words, text, message_id, prefs)
        unread = floods.take_dropped(self.lobby.ctx, self.directory.address(number))
        if not unread:
            return out
        # a text dropped unread and an answer accepted both got no reply: the player is told which were lost
        return " ".join(part for part in (dropped_note(unread, prefs.lang), out) if part)

    def _answer(self, number: str, words: list[str], text: str, message_id: str | None, prefs: Prefs) -> str | None:
        first = fold(words[0]) if words else ""
        if first in CREATURE_WORDS and not (len(words) == 1 or (len(words) == 2 and looks_like_code(words[1]))):
            first = ""  # "bytost 3 a 5": the Creature's hunt, a game command
        for keywords, handler in (
            (NEW_WORDS, self._new),
            (SOLO_WORDS, self._solo),
            (JOIN_WORDS, self._join),
            (GO_WORDS, self._go),
            (CREATURE_WORDS, self._creature),
            (LEAVE_WORDS, self._leave),
            (ADDBOT_WORDS, self._addbot),
            (SET_WORDS, self._set),
            (NAME_WORDS, self._name),
            (AWAY_WORDS, self._away),
            (STATS_WORDS, self._stats),
            (FORGET_WORDS, self._forget),
            (STANDIN_WORDS, self._standin),
            (LINK_WORDS, self._link),
            (UNLINK_WORDS, self._unlink),
            ({"ASCII"}, self._ascii),
            (CONFIRM_WORDS, self._confirm),
            (LANG_WORDS, self._lang),
        ):
            if first in keywords:
                return handler(number, words[1:], prefs)
        return self._game_command(number, words, text, message_id, prefs)

    # --- carrier keywords ------------------------------------------------------------------------------------

    def _stop(self, number: str) -> None:
        own = self.directory.own_address(number)
        if self.directory.links.home_of(own):
            self.directory.links.unlink(own)  # its opt-out is its own: the home's seats stay the home's
        self.directory.set_prefs(number, self._prefs_ttl(number), stopped=True)
        for game_id, seat in self.lobby.games_of(self.directory.address(number)):
            table = self.games.table(game_id)
            if table and not table.over:
                self.games.hand_to_bot(game_id, seat, True)

    def _start(self, number: str, lang: str) -> str:
        self.directory.set_prefs(number, self._prefs_ttl(number), stopped=False)
        for game_id, seat in self.lobby.games_of(self.directory.address(number)):
            self.games.hand_to_bot(game_id, seat, False)
        return reply("resumed", lang)

    def _help(self, lang: str) -> str:
        contact = self.lobby.ctx.settings.operator_contact
        whatsapp = self.directory.whatsapp  # no carrier's rates on WhatsApp
        said = [reply("help_wa" if whatsapp else "help", lang)]
        said += [reply("contact", lang, contact=contact)] if contact else []
        return " ".join(said + ([] if whatsapp else [reply("rates", lang)]))

    # --- the lobby -------------------------------------------------------------------------------------------

    def _new(self, number: str, args: list[str], prefs: Prefs) -> str:
        size = next((int(a) for a in args if a.isdigit()), None)
        deadline = next((DEADLINES[fold(a)] for a in args if fold(a) in DEADLINES), "daily")
        name = [a for a in args if not a.isdigit() and fold(a) not in DEADLINES]
        try:
            table = self.lobby.open(self._player(number, prefs.lang, name), prefs.lang, size=size, deadline=deadline)
        except LobbyError as exc:
            return reply(exc.reason, prefs.lang)
        self.directory.keep(number, self.lobby.ctx.settings.sms_prefs_ttl_seconds)
        sized = reply("size", prefs.lang, size=table.size) if table.size else ""
        return reply("opened", prefs.lang, code=table.code, size=sized)

    def _solo(self, number: str, args: list[str], prefs: Prefs) -> str:
        """A game of the number against bots, begun at once."""
        words = [fold(a) for a in args]
        unknown = [w for w in words if w not in SOLO_ROLES and not w.isdigit() and w not in BOT_LEVEL_NAMES]
        if unknown:
            return reply("solo_usage", prefs.lang)
        as_creature = next((SOLO_ROLES[w] for w in words if w in SOLO_ROLES), False)
        players = next((int(w) for w in words if w.isdigit()), 3)
        level = next((BOT_LEVEL_NAMES[w] for w in words if w in BOT_LEVEL_NAMES), DEFAULT_BOT_LEVEL)
        try:
            started = self.lobby.solo(self._player(number, prefs.lang), prefs.lang, players, as_creature, level)
        except LobbyError as exc:
            return reply("solo_usage" if exc.reason == "too_few" else exc.reason, prefs.lang)
        self.directory.keep(number, self.lobby.ctx.settings.sms_prefs_ttl_seconds)
        return self._seated(number, started.table, prefs.lang)

    def _join(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        if not args:
            return reply("join_usage", prefs.lang)
        code = commands.echo(args[0].upper())
        try:
            table, started = self.lobby.join(code, self._player(number, prefs.lang, args[1:]))
        except LobbyError as exc:
            stranger = exc.reason == "unknown" and not self._plays(number)
            if stranger and not floods.stranger_reply_allowed(self.lobby.ctx):
                return None
            return reply(exc.reason, prefs.lang, code=code)
        self.directory.set_prefs(number, self.lobby.ctx.settings.sms_prefs_ttl_seconds, joined=table.code)
        if started:
            return self._seated(number, started.table, prefs.lang)
        return reply("joined", prefs.lang, code=table.code, n=table.seated, size=table.capacity)

    def _go(self, number: str, args: list[str], prefs: Prefs) -> str:
        code = commands.echo(args[0].upper()) if args else self.lobby.last_opened(self.directory.address(number))
        code = code or prefs.joined  # a bare GO from a player who joined someone else's table: say who starts it
        if not code:
            return reply("no_lobby", prefs.lang)
        try:
            started = self.lobby.begin(code, self.directory.address(number))
        except LobbyError as exc:
            if exc.reason == "not_creator" and exc.table is not None:
                creator = exc.table.player(exc.table.creator)
                return reply(
                    "starts_it",
                    prefs.lang,
                    code=code,
                    name=creator.name if creator else "?",
                    n=len(exc.table.players),
                    size=exc.table.capacity,
                )
            return reply(exc.reason, prefs.lang, code=code)
        return self._seated(number, started.table, prefs.lang)

    def _creature(self, number: str, args: list[str], prefs: Prefs) -> str:
        return self._at_table(number, args, prefs, self.lobby.volunteer, "volunteer")

    def _leave(self, number: str, args: list[str], prefs: Prefs) -> str:
        """LEAVE [code]: leave a table that has not begun; LEAVE <code> of a game that has begun leaves the seat to
        a bot (the game goes on)."""
        table = self.lobby.get(args[0]) if args else None
        if table is not None and table.game:
            return longplay.leave(self.lobby.ctx, table.game, self.directory.address(number), prefs.lang)
        return self._at_table(number, args, prefs, self.lobby.leave, "left")

    def _addbot(self, number: str, args: list[str], prefs: Prefs) -> str:
        """Add a bot to the table named (or opened last), at the level named (normal when not said)."""
        codes = [commands.echo(a.upper()) for a in args if looks_like_code(a)]
        levels = [fold(a) for a in args if not looks_like_code(a)]
        code = codes[0] if codes else self._waiting_table(number)
        if not code:
            return reply("no_lobby", prefs.lang)
        level = BOT_LEVEL_NAMES.get(levels[0], levels[0].lower()) if levels else DEFAULT_BOT_LEVEL
        try:
            table, started = self.lobby.add_bot(code, self.directory.address(number), level)
        except LobbyError as exc:
            return reply("not_at_table" if exc.reason == "not_in" else exc.reason, prefs.lang, code=code)
        if started:  # the bot filled a table of a set size: it has begun
            return self._seated(number, started.table, prefs.lang)
        words = translator(prefs.lang).gettext(plain.BOT_LEVEL_WORDS[level])
        return reply("bot_added", prefs.lang, code=code, level=words, n=table.seated, size=table.capacity)

    def _at_table(
        self, number: str, args: list[str], prefs: Prefs, act: Callable[[str, str], object], done: str
    ) -> str:
        """Do ``act`` at the table named (or the one the number opened last, if it has not begun)."""
        code = commands.echo(args[0].upper()) if args else self._waiting_table(number)
        if not code:
            return reply("no_lobby", prefs.lang)
        try:
            act(code, self.directory.address(number))
        except LobbyError as exc:
            return reply("not_at_table" if exc.reason == "not_in" else exc.reason, prefs.lang, code=code)
        return reply(done, prefs.lang, code=code)

    def _waiting_table(self, number: str) -> str | None:
        """The code of the table the number opened last, if it has not begun."""
        code = self.lobby.last_opened(self.directory.address(number))
        table = self.lobby.get(code) if code else None
        return code if table and not table.game else None

    def _seated(self, number: str, table, lang: str) -> str:
        seat = table.seats[self.directory.address(number)]
        role = reply("creature", lang) if seat == 0 else reply("hunted", lang, n=seat)
        said = reply("seated_wa" if self.directory.whatsapp else "seated", lang, code=table.code, role=role)
        link = watch.url(self.lobby.ctx.settings, seats.meta(self.lobby.ctx, table.code)) if table.game else None
        if link:
            said += " " + reply("watch", lang, link=link)
        if lang == "cs" and not (prefs := self.directory.prefs(number)).ascii and not prefs.accents:
            said += " " + reply("ascii_offer", lang)
        return said

    def _set(self, number: str, args: list[str], prefs: Prefs) -> str:
        """The creator changes a setting of a table that has not begun (the one named, or opened last)."""
        code = args[0].upper() if args and looks_like_code(args[0]) else self._waiting_table(number)
        args = args[1:] if args and looks_like_code(args[0]) else args
        if not code:
            return reply("no_lobby", prefs.lang)
        if len(args) != 2 or fold(args[0]) not in SETTING_KEYS:
            return reply("set_usage", prefs.lang, code=code)
        key, value = SETTING_KEYS[fold(args[0])], SETTING_VALUES.get(fold(args[1]), args[1])
        try:
            table = self.lobby.configure(code, self.directory.address(number), key, value)
        except LobbyError as exc:
            return reply(exc.reason, prefs.lang, code=code)
        _ = translator(prefs.lang).gettext
        secrecy = reply(table.secrecy, prefs.lang)
        expert = _("on") if table.expert else _("off")
        return reply("settings", prefs.lang, code=code, deadline=table.deadline, secrecy=secrecy, expert=expert)

    def _name(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        """The number's name from now on: at the tables it sits at (begun or not) and the ones it opens or joins."""
        name = " ".join(args)[:MAX_NAME].strip()
        if not name:
            return reply("name_usage", prefs.lang)
        address = self.directory.address(number)
        self.directory.set_prefs(number, self._prefs_ttl(number), name=name)
        codes = [code for code in {prefs.joined, self.lobby.last_opened(address)} if code]
        renamed = [table.code for code in codes if (table := self.lobby.rename(code, address, name))]
        renamed += [game for game, _ in self.lobby.games_of(address) if self.lobby.rename_in_game(game, address, name)]
        return reply("named", prefs.lang, name=name, codes=" ".join(sorted(set(renamed))) or "-")

    def _away(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        """AWAY <until>: the bot plays the number's seats until then; AWAY OFF: back now."""
        ctx, address = self.lobby.ctx, self.directory.address(number)
        if not self._plays(number) and not floods.stranger_reply_allowed(ctx):
            return None  # a paid reply to a number that plays nothing comes out of the strangers' budget
        if len(args) == 1 and fold(args[0]) in BACK_WORDS:
            return longplay.back(ctx, address, prefs.lang)
        # read and shown in the zone of the number's table, as the table is told it (as /away on Telegram)
        tz = absence.zone_of_user(ctx, address, prefs.tz or ctx.settings.sms_default_tz)
        return longplay.away(ctx, address, " ".join(args), prefs.lang, "AWAY", tz)

    def _stats(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        if not self._plays(number) and not floods.stranger_reply_allowed(self.lobby.ctx):
            return None  # as for AWAY
        return longplay.stats(self.lobby.ctx, self.directory.address(number), args, prefs.lang, "STATS")

    def _forget(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        if not self._plays(number) and not floods.stranger_reply_allowed(self.lobby.ctx):
            return None  # as for AWAY
        return longplay.forget(self.lobby, self.directory.address(number), prefs.lang)

    def _standin(self, number: str, args: list[str], prefs: Prefs) -> str:
        """STANDIN <code>: take an offered seat; the reply is the seat's recap."""
        if len(args) != 1:
            return reply("standin_usage", prefs.lang)
        player = self._player(number, prefs.lang)
        said, _taken = longplay.take_seat(self.lobby.ctx, args[0], player.seat_entry(), prefs.lang, short=True)
        return said

    # --- settings --------------------------------------------------------------------------------------------

    def _link(self, number: str, args: list[str], prefs: Prefs) -> str:
        own = self.directory.own_address(number)

        def busy() -> list[str]:
            games = [game for game, _ in self.lobby.games_of(own) if (t := self.games.table(game)) and not t.over]
            waiting = [self.lobby.last_opened(own), prefs.joined]
            tables = [c for c in waiting if c and (table := self.lobby.get(c)) and table.player(own)]
            return sorted(set(games + tables))

        ttl = self.lobby.ctx.settings.sms_prefs_ttl_seconds
        return linking.link_command(self.directory.links, own, args[:1], prefs.lang, busy, ttl)

    def _unlink(self, number: str, args: list[str], prefs: Prefs) -> str:
        return linking.unlink_command(self.directory.links, self.directory.own_address(number), prefs.lang)

    def _ascii(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        if args and fold(args[0]) == "AUTO":  # the default: accents only where they cost nothing more
            return self._set_prefs(number, "ascii_auto", prefs.lang, {"ascii": "auto"})
        on = not args or fold(args[0]) in ("ON", "YES", "ANO", "1")
        return self._set_prefs(number, "ascii" if on else "accents", prefs.lang, {"ascii": on})

    def _confirm(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        on = not args or fold(args[0]) in ON_WORDS
        return self._set_prefs(number, "confirm_on" if on else "confirm_off", prefs.lang, {"confirm": on})

    def _lang(self, number: str, args: list[str], prefs: Prefs) -> str | None:
        lang = "cs" if args and fold(args[0]) in ("CS", "CZ", "CESKY", "CESTINA") else "en"
        said = self._set_prefs(number, "lang", lang, {"lang": lang})
        if said and lang == "cs" and not prefs.ascii and not prefs.accents:  # accents: UCS-2, 70 a segment
            said += " " + reply("ascii_offer", lang)
        return said

    def _set_prefs(self, number: str, said: str, lang: str, prefs: dict[str, bool | str]) -> str | None:
        """Change settings of the number. A number that plays nothing keeps them a short time, and its "OK" comes
        out of the strangers' budget of replies."""
        plays = self._plays(number)
        self.directory.set_prefs(number, self._prefs_ttl(number), **prefs)
        return reply(said, lang) if plays or floods.stranger_reply_allowed(self.lobby.ctx) else None

    def _plays(self, number: str) -> bool:
        """Whether the number plays a game or opened a table (else its settings are kept only a short time)."""
        return bool(
            self.lobby.games_of(self.directory.address(number))
            or self.lobby.last_opened(self.directory.address(number))
        )

    def _prefs_ttl(self, number: str) -> int:
        settings = self.lobby.ctx.settings
        return settings.sms_prefs_ttl_seconds if self._plays(number) else settings.sms_stranger_ttl_seconds

    def _player(self, number: str, lang: str, name: Sequence[str] = ()) -> Player:
        """The number as a player: the name it gives now, else the one it chose with NAME, else "SMS 1234"."""
        label = " ".join(name)[:MAX_NAME] or self.directory.prefs(number).name or self.directory.label(number)
        return Player(self.directory.address(number), label, lang, self.directory.address(number))

    # --- game commands ---------------------------------------------------------------------------------------

    def _game_command(
        self, number: str, words: list[str], text: str, message_id: str | None, prefs: Prefs
    ) -> str | None:
        lang = prefs.lang
        games = self.lobby.games_of(self.directory.address(number))
        if not games:
            return reply("no_game", lang) if floods.stranger_reply_allowed(self.lobby.ctx) else None
        if words and looks_like_code(words[0]):
            code = words[0].upper()
            if code not in dict(games):
                return reply("not_in", lang, code=code, codes=" ".join(g for g, _ in games))
            games = [(code, dict(games)[code])]
            text = text.split(None, 1)[1] if len(words) > 1 else "?"
        tables = [(self.games.table(game_id), seat) for game_id, seat in games]
        live = next(((t, s) for t, s in tables if t and not t.over), None)
        if live is None:
            return reply("game_over", lang, code=games[0][0])
        table, seat = live
        if table.window is None:  # only a game that is over has no open window
            return reply("game_over", lang, code=table.game_id)
        held = prefs.held if prefs.held and prefs.held.window == table.window else None
        held = held if held and held.game == table.game_id else None
        try:
            before, actions, game = read_answer(table.game, seat, held.actions if held else [], text, lang)
        except commands.CommandError as exc:
            return f"{table.game_id}: {exc}"
        if actions[0]["type"] in ("_help", "_status"):
            return sms_text.question(table.game_id, game, seat, table.deadline, lang, prefs.tz)
        outcome = self.games.answer(table.game_id, seat, before + actions, table.window, message_id)
        ttl = self.lobby.ctx.settings.sms_prefs_ttl_seconds
        if outcome.reason is Reason.INCOMPLETE:  # legal so far: kept, and the rest is asked
            kept = Held(table.game_id, table.window, before + actions)
            self.directory.set_prefs(number, ttl, held=kept.to_json())
            return sms_text.rest(table.game_id, outcome.params["game"], seat, actions, table.deadline, lang, prefs.tz)
        if outcome.stored and prefs.held:
            self.directory.set_prefs(number, ttl, held="")
        if outcome.stored and not prefs.confirm:  # no paid reply: the confirmation rides on the next message
            if outcome.status is Status.ACCEPTED:
                self._confirm_later(number, table, seat, list(outcome.actions), prefs)
            return None  # (after the last answer, the step's own message follows at once)
        return f"{table.game_id}: {plain.submitted(outcome.result, table.game, seat, lang, sep='; ')}"

    def _confirm_later(self, number: str, table, seat: int, actions: list[dict], prefs: Prefs) -> None:
        """ "OK: play 3." held on the number's lane until its next message of the game takes it in
        (`sms_render.confirmation`); one per seat and window."""
        ctx, batch = self.lobby.ctx, f"ok{table.window}s{seat}"
        message = sms_render.confirmation(
            self.directory.address(number), table.game_id, table.game, seat, actions, table.deadline, prefs
        )
        seats.confirm_later(ctx, table.game_id, batch, message)


def read_answer(game, seat: int, held: list[dict], text: str, lang: str) -> tuple[list[dict], list[dict], Game]:
    """(the held actions still meant, the text's actions, the game the text was read against). The text is read
    where the held first part of the answer leaves the game ("3" after "resist 4" plays 3; "pass" after "pass"
    answers the next question); a text that repeats the held part and adds the rest ("resist 4 play 3"), or that
    does not read there, is a whole answer on its own. Raises
    `commands.CommandError`."""
    if held:
        try:
            whole = commands.parse(text, game, seat, lang=lang)
            if len(whole) > len(held) and whole[: len(held)] == held:  # the held part again, and the rest
                return [], whole, game
        except commands.CommandError:
            pass
        after = game.copy()
        try:
            for action in held:
                after.apply(seat, action)
            return held, commands.parse(text, after, seat, lang=lang), after
        except (IllegalAction, commands.CommandError):
            pass
    return [], commands.parse(text, game, seat, lang=lang), game
