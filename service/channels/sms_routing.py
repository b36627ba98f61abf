"""What a text message means and what we answer: carrier keywords, lobby keywords, settings, game commands.

One message from a number -> at most one short reply (the TwiML answer). Carrier keywords are whole-message,
case-insensitive, as carriers and Twilio match them:

    STOP STOPALL UNSUBSCRIBE CANCEL END QUIT   no more messages to this number; bots play its seats
    START YES UNSTOP                           messages again; its seats are its own again
    HELP INFO                                  what this is and how to play

Ours: ``NEW [2-7] [live|fast|daily]``, ``JOIN <code>``, ``GO [code]``, ``ASCII ON|OFF``, ``LANG EN|CS``.
Anything else is a game command (`service.commands.parse`) for one of the number's games: the one whose code
starts the message ("K7QX play 3"; the code alone asks for the current question), else the running game it
joined most recently. Bad input — an unknown number,
garbage, a code of a game the number is not in — gets one helpful reply and changes nothing.
"""

from service import commands
from service.channels import sms_text
from service.channels.sms_directory import Directory, Prefs, chat_of
from service.channels.sms_games import Games
from service.channels.sms_lobby import Lobbies, looks_like_code

STOP_WORDS = {"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"}
START_WORDS = {"START", "YES", "UNSTOP"}
HELP_WORDS = {"HELP", "INFO"}
DEADLINES = ("live", "fast", "daily")

REPLIES = {
    "help": ("Artemia, Not Alone by SMS. NEW [2-7] opens a game, JOIN <code> joins, GO starts it (bots fill "
             "seats). Answer e.g. 'play 3'; in several games start with the code. ? = options. ASCII ON = no "
             "accents, LANG CS. STOP ends messages, START resumes.",
             "Artemia, Nejsme tu sami po SMS. NEW [2-7] založí hru, JOIN <kód> přidá, GO spustí (prázdná místa "
             "hrají boti). Odpověz např. 'hraj 3'; ve více hrách začni kódem. ? = možnosti. ASCII ON = bez "
             "diakritiky, LANG EN. STOP zastaví zprávy, START obnoví."),
    "stopped": ("Artemia: no more messages. Bots play your seats; nothing is lost. Text START to come back.",
                "Artemia: žádné další zprávy. Za tebe hrají boti, nic se neztratí. Návrat: napiš START."),
    "resumed": ("Artemia: welcome back, your seats are yours again.", "Artemia: vítej zpět, hraješ zase sám."),
    "no_game": ("You are in no game. Text NEW to open one, JOIN <code> to join one, HELP for more.",
                "Nejsi v žádné hře. NEW založí hru, JOIN <kód> tě přidá, HELP poradí."),
    "not_in": ("You are not in game {code}. Your games: {codes}.", "Ve hře {code} nejsi. Tvoje hry: {codes}."),
    "opened": ("Game {code} is open for {size}. Friends text JOIN {code}. GO starts it now, bots in empty seats.",
               "Hra {code} pro {size}. Přátelé napíšou JOIN {code}. GO ji hned spustí, zbytek hrají boti."),
    "joined": ("You joined {code} ({n}/{size}). It starts when full or when its creator texts GO.",
               "Jsi ve hře {code} ({n}/{size}). Začne, až bude plná nebo až zakladatel napíše GO."),
    "seated": ("{code} has begun. You are {role}; your questions come by SMS.",
               "{code} začala. Hraješ za: {role}; otázky přijdou SMS."),
    "unknown": ("There is no game {code}: check the code.", "Hra {code} neexistuje: zkontroluj kód."),
    "already": ("You are already in {code}.", "Ve hře {code} už jsi."),
    "full": ("Game {code} is full.", "Hra {code} je plná."),
    "over": ("Game {code} has already begun.", "Hra {code} už začala."),
    "not_creator": ("Only whoever opened {code} can start it early.", "Předčasně ji může spustit jen zakladatel."),
    "no_lobby": ("You have no game waiting to start.", "Nemáš žádnou hru čekající na start."),
    "ascii": ("OK: messages without accents.", "OK: zprávy bez diakritiky."),
    "accents": ("OK: messages with accents.", "OK: zprávy s diakritikou."),
    "lang": ("OK: English.", "OK: česky."),
    "game_over": ("{code}: this game is over.", "{code}: hra skončila."),
    "creature": ("the Creature", "Bytost"),
    "hunted": ("Hunted {n}", "Lovený {n}"),
}


def reply(key: str, lang: str, **params) -> str:
    return REPLIES[key][lang == "cs"].format(**params)


class Router:
    """Turns one message from a number into its effect (settings, lobby, a recorded answer) and the reply."""

    def __init__(self, directory: Directory, games: Games, lobbies: Lobbies):
        self.directory, self.games, self.lobbies = directory, games, lobbies

    def handle(self, number: str, text: str, message_id: str | None) -> str:
        """The reply to one message, prepared for the number's ASCII setting."""
        answer = self._answer(number, text, message_id)
        return sms_text.prepare(answer, self.directory.prefs(number).ascii)

    def _answer(self, number: str, text: str, message_id: str | None) -> str:
        words = text.split()
        prefs = self.directory.prefs(number)
        first = words[0].upper().strip(".!") if words else ""
        if len(words) == 1 and first in STOP_WORDS:
            return self._stop(number, prefs.lang)
        if len(words) == 1 and first in START_WORDS:
            return self._start(number, prefs.lang)
        if len(words) == 1 and first in HELP_WORDS:
            return reply("help", prefs.lang)
        keywords = {"NEW": self._new, "JOIN": self._join, "GO": self._go, "ASCII": self._ascii, "LANG": self._lang}
        if first in keywords:
            return keywords[first](number, words[1:], prefs)
        return self._game_command(number, words, text, message_id, prefs)

    # --- carrier keywords ------------------------------------------------------------------------------------

    def _stop(self, number: str, lang: str) -> str:
        self.directory.set_prefs(number, stopped=True)
        for game_id, seat in self.directory.games(number):
            table = self.games.table(game_id)
            if table and not table.over:
                self.games.hand_to_bot(game_id, seat, True)
        return reply("stopped", lang)

    def _start(self, number: str, lang: str) -> str:
        self.directory.set_prefs(number, stopped=False)
        for game_id, seat in self.directory.games(number):
            self.games.hand_to_bot(game_id, seat, False)
        return reply("resumed", lang)

    # --- our keywords ----------------------------------------------------------------------------------------

    def _new(self, number: str, args: list[str], prefs: Prefs) -> str:
        size = next((int(a) for a in args if a.isdigit()), 4)
        deadline = next((a.lower() for a in args if a.lower() in DEADLINES), "daily")
        lobby = self.lobbies.open(self._player(number, prefs.lang), size, deadline, prefs.lang)
        self.directory.set_prefs(number, lobby=lobby["code"])
        return reply("opened", prefs.lang, code=lobby["code"], size=lobby["size"])

    def _join(self, number: str, args: list[str], prefs: Prefs) -> str:
        if not args:
            return reply("help", prefs.lang)
        code = args[0].upper()
        joined = self.lobbies.join(code, self._player(number, prefs.lang))
        if joined.status == "joined":
            return reply("joined", prefs.lang, code=code, n=len(joined.lobby["players"]), size=joined.lobby["size"])
        return self._after_start(number, code, joined, prefs.lang)

    def _go(self, number: str, args: list[str], prefs: Prefs) -> str:
        code = args[0].upper() if args else prefs.lobby
        if not code:
            return reply("no_lobby", prefs.lang)
        return self._after_start(number, code, self.lobbies.start(code, chat_of(number)), prefs.lang)

    def _ascii(self, number: str, args: list[str], prefs: Prefs) -> str:
        on = not args or args[0].upper() in ("ON", "YES", "ANO", "1")
        self.directory.set_prefs(number, ascii=on)
        return reply("ascii" if on else "accents", prefs.lang)

    def _lang(self, number: str, args: list[str], prefs: Prefs) -> str:
        lang = "cs" if args and args[0].lower() in ("cs", "cz", "cesky", "česky") else "en"
        self.directory.set_prefs(number, lang=lang)
        return reply("lang", lang)

    @staticmethod
    def _player(number: str, lang: str) -> dict:
        return {"name": f"SMS {number[-4:]}", "chat": chat_of(number), "user": chat_of(number), "lang": lang}

    def _after_start(self, number: str, code: str, joined, lang: str) -> str:
        if joined.status != "started":
            return reply(joined.status, lang, code=code)
        seat = joined.seats[chat_of(number)]
        role = reply("creature", lang) if seat == 0 else reply("hunted", lang, n=seat)
        return reply("seated", lang, code=code, role=role)

    # --- game commands ---------------------------------------------------------------------------------------

    def _game_command(self, number: str, words: list[str], text: str, message_id: str | None,
                      prefs: Prefs) -> str:
        lang = prefs.lang
        games = self.directory.games(number)
        if not games:
            return reply("no_game", lang)
        if words and looks_like_code(words[0]):
            code = words[0].upper()
            if code not in dict(games):
                return reply("not_in", lang, code=code, codes=" ".join(g for g, _ in games))
            games = [(code, dict(games)[code])]
            text = text.split(None, 1)[1] if len(words) > 1 else "?"
        tables = [(self.games.table(game_id), seat) for game_id, seat in games]
        table, seat = next(((t, s) for t, s in tables if t and not t.over), (None, None))
        if table is None:
            return reply("game_over", lang, code=games[0][0])
        try:
            actions = commands.parse(text, table.game, seat, lang=lang)
        except commands.CommandError as exc:
            return f"{table.game_id}: {exc}"
        if actions[0]["type"] in ("_help", "_status"):
            return sms_text.question(table.game_id, table.game, seat, table.deadline, lang, prefs.tz)
        return f"{table.game_id}: {self.games.submit(table.game_id, seat, actions, table.window, message_id)}"
