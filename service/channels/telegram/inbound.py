"""The Telegram adapter of the web process: one parsed update in -> stored changes + the reply. It admits the update
(handled once, within its sender's flood bucket) and routes it to its handler: a command, a typed answer, a button.

``handle(update, env)`` returns the Bot API method to put in the webhook's HTTP reply (a dict such as
``{"method": "sendMessage", ...}`` or ``{"method": "answerCallbackQuery", ...}``), or None. It never calls
Telegram itself: a decision message that must change after a button press gets its next screen through the outbox
(`service.pipeline.screens`). Everything it stores is stored before it returns.

The tables are the shared lobby's (`service.pipeline.lobby`): a table opened here by /newgame has a join code that SMS
players text (``JOIN <code>``), and a Telegram user joins a table opened by SMS with ``/join <code>`` in private.
A Telegram player's address is ``tg:<user id>``; their private chat is where their secret choices go.

In a group (one table per group, or per forum topic): /newgame, /join, /leave (in a begun game: a bot plays the
seat from then on), /creature, /addbot [easy|normal|hard], /settings, /begin [anyway], /status, /board, /cancel, /reveal
(after the game, its creator shows the hidden choices on the watch page), /help, /rules [card], and for long games
(`service.channels.longplay`) /pause [days|until], /resume, /history, /handover, /replace <name|seat>, /away, /back,
/stats. In private: /start (the Join deep link ``j<code>`` and a stand-in's ``s<token>`` land here), /newgame
[hunted|creature] [2-7] [easy|normal|hard] (a game against bots, begun at once), /join <code>, /standin <token>,
/language, /status, /board [code], /help, /rules, /away <until>, /back, /stats [off|on], /forgetme,
/handover [code], typed game commands (prefixed with the game's code when the player is asked in several games)
and the decision buttons. Bad input — a stranger's button, forged data, a command in the wrong chat, /begin by
someone else — gets a short answer and changes nothing. Each user has an inbound token bucket
(`service.pipeline.floods`: private messages, group commands and button presses count; table talk does not): past a
burst one "slow down" answer, then silence until it refills.
"""

from collections.abc import Callable

from service import i18n
from service.channels import longplay, ui
from service.channels.telegram import answers, helptexts, lobby, longgames
from service.channels.telegram.budget import within_budget
from service.channels.telegram.handling import Env, Refused, _t, answer_query, message_place, my_games, reply
from service.channels.telegram.tables import Admitted
from service.channels.telegram.update import CallbackQuery, Message, SentMessage, Update
from service.pipeline import floods, seats
from service.pipeline.lobby import looks_like_code, telegram_address


def _flooded(env: Env, user, lang: str) -> tuple[bool, str | None]:
    """(whether the user's update is over the bucket, the answer then: the "slow down" text once, else None)."""
    admission = floods.admit(env.ctx, "telegram", telegram_address(user.id))
    if admission is floods.Admission.READ:
        return False, None
    if admission is floods.Admission.SILENT:
        return True, None
    return True, _slow_down(lang)


def _slow_down(lang: str) -> str:
    return _t(lang, "Too many messages at once: wait a minute. Until then I do not read them.")


def handle(update: Update, env: Env) -> dict | None:
    """The reply to ``update``, once everything it changes is stored, within its chat's send budget
    (`budget.within_budget`). An update is handled once: one handled already (`Tables.seen`) gets None and changes
    nothing; one handled is marked so only then (an error leaves it unmarked, and Telegram's retry handles it
    again: the handlers are idempotent)."""
    if update.callback_query:
        return press(update.update_id, update.callback_query, env)
    message = _readable(update.message)
    if message is not None and message.chat.type == "private" and update.my_chat_member is None:
        return within_budget(env.ctx, private_message(update.update_id, message, env))
    if env.tables.seen(update.update_id):
        return None
    answer = within_budget(env.ctx, _handle(update, message, env))
    env.tables.mark_seen(update.update_id)
    return answer


def _admit(update_id: int, user, env: Env, reads=None) -> tuple[Admitted, str]:
    """`Tables.admit` for an update of ``user`` in private -> (what it found, the user's language)."""
    bucket = floods.bucket(env.ctx, "telegram", telegram_address(user.id))
    admitted = env.tables.admit(update_id, user.id, bucket, reads)
    return admitted, i18n.choose(admitted.lang, None, user.language_code)


def press(update_id: int, query: CallbackQuery, env: Env) -> dict | None:
    """A button press. Its first round trip (`Tables.admit`) notes that a private chat with the user exists, reads
    their language, counts it on their inbound bucket and reads the game its button names (read in vain for a
    flooded press, which then changes nothing) when that game's keys are on the same Redis as the user's (on a
    game shard of its own, `answers.on_button` reads it: a round trip more; `seats.reads_along`).
    A press is not marked as handled (a round trip and a key less per press): everything it does is idempotent —
    an answer is stored once per query id (the window's dedup set), a screen written once per query id
    (`screens.show`), the rest only replies — so Telegram's redelivery of a press whose reply was lost gets that
    reply again and changes nothing."""
    named = ui.game_named(query.data) or ""
    reads = seats.reads_along(env.ctx, named, env.tables.redis) if named else None  # read with it
    admitted, lang = _admit(update_id, query.sender, env, reads)
    return _answer_admitted(
        update_id,
        admitted,
        env,
        read=lambda: answers.on_button(query, lang, env, seats.read_from(named, admitted.reads) if reads else None),
        slow_down=lambda: answer_query(query, _slow_down(lang)),
        mark=False,
    )


def private_message(update_id: int, message: SentMessage, env: Env) -> dict | None:
    """A person's text in private. Its first round trip (`Tables.admit`) checks that it is new, notes that a private
    chat with them exists (they wrote to the bot: it may write to them now), reads their language and counts it on
    their inbound bucket."""
    admitted, lang = _admit(update_id, message.sender, env)

    def read() -> dict | None:
        command, args = _command(message.text or "", env.bot_username)
        try:
            return on_private(message, command, args, lang, env)
        except Refused as refusal:
            return reply(message, str(refusal))

    return _answer_admitted(update_id, admitted, env, read, slow_down=lambda: reply(message, _slow_down(lang)))


def _answer_admitted(
    update_id: int,
    admitted: Admitted,
    env: Env,
    read: Callable[[], dict | None],
    slow_down: Callable[[], dict],
    mark: bool = True,
) -> dict | None:
    """What an update gets after `_admit`: nothing when it was seen before; else its answer when it is read, a
    "slow down" when its sender floods, nothing when it is dropped — and it is marked seen (``mark``)."""
    if admitted.seen:
        return None
    if admitted.verdict is floods.Admission.READ:
        answer = read()
    elif admitted.verdict is floods.Admission.SLOW_DOWN:
        answer = slow_down()
    else:
        answer = None
    if mark:
        env.tables.mark_seen(update_id)
    return answer


def _readable(message: Message | None) -> SentMessage | None:
    """A message with text from a person, or None (none, no sender: parsed as a `Message`, a bot's, a group's move
    to a supergroup: the sender follows it when it next writes there, `telegram_send`)."""
    if not isinstance(message, SentMessage) or message.sender.is_bot or message.migrate_to_chat_id:
        return None
    return message if message.text else None


def _handle(update: Update, message: SentMessage | None, env: Env) -> dict | None:
    """A private chat's member update, or a message in a group (``message``: `_readable`'s)."""
    if update.my_chat_member and update.my_chat_member.chat.type == "private":
        env.tables.set_blocked(update.my_chat_member.sender.id, update.my_chat_member.blocked)
        if not update.my_chat_member.blocked:
            env.tables.set_started(update.my_chat_member.sender.id)
        return None
    if message is None or message.chat.type == "private":  # a private message: `private_message`
        return None
    command, args = _command(message.text or "", env.bot_username)
    if command is None:
        return None  # table talk
    lang = _lang(env, message)
    flooded, said = _flooded(env, message.sender, lang)
    if flooded:
        return reply(message, said) if said else None
    try:
        handler = GROUP_COMMANDS.get(command)
        if handler is None:
            return reply(
                message,
                _t(
                    lang,
                    "In the group I know: /newgame /join /leave /creature /addbot /settings /begin "
                    "/status /board /cancel /reveal /help /rules /pause /resume /away /back /stats /history /handover "
                    "/replace. Moves are made in private chat.",
                ),
            )
        return handler(message, args, lang, env)
    except Refused as refusal:
        return reply(message, str(refusal))


def _command(text: str, bot_username: str) -> tuple[str | None, list[str]]:
    """("/join@artemia_bot x" -> ("join", ["x"])); None for plain text or a command to another bot."""
    words = text.split()
    if not words or not words[0].startswith("/"):
        return None, words
    command, _, addressee = words[0][1:].partition("@")
    if addressee and addressee.lower() != bot_username.lower():
        return None, []
    return command.lower(), words[1:]


def _lang(env: Env, message: SentMessage) -> str:
    """The language to answer a group message in: its table's, else the sender's Telegram language."""
    table = env.lobby.at(message_place(message))
    return i18n.choose(None, table.lang if table else None, message.sender.language_code)


GROUP_COMMANDS = {
    "newgame": lobby.cmd_newgame,
    "join": lobby.cmd_join,
    "leave": lobby.cmd_leave,
    "creature": lobby.cmd_creature,
    "addbot": lobby.cmd_addbot,
    "settings": lobby.cmd_settings,
    "begin": lobby.cmd_begin,
    "status": lobby.cmd_status,
    "board": lobby.cmd_board,
    "cancel": lobby.cmd_cancel,
    "reveal": lobby.cmd_reveal,
    "help": helptexts.cmd_help,
    "rules": helptexts.cmd_rules,
    "start": helptexts.cmd_help,
    "away": longgames.cmd_away,
    "back": longgames.cmd_back,
    "stats": longgames.cmd_stats,
    "pause": longgames.cmd_pause,
    "resume": longgames.cmd_resume,
    "history": longgames.cmd_history,
    "handover": longgames.cmd_handover,
    "replace": longgames.cmd_replace,
}
# in private: what acts on the player alone
PRIVATE_COMMANDS = {
    "away": longgames.cmd_away,
    "back": longgames.cmd_back,
    "stats": longgames.cmd_stats,
    "forgetme": longgames.cmd_forgetme,
    "handover": longgames.cmd_handover,
    "board": lobby.cmd_board,
}


# ---------------------------------------------------------------------------------------------- private


def on_private(message: SentMessage, command: str | None, args: list[str], lang: str, env: Env) -> dict:
    user = message.sender
    if command == "start":  # (again, after blocking the bot or missing deadlines: the seats are theirs again)
        env.tables.set_blocked(user.id, False)
        welcome = longplay.welcome_back(env.ctx, str(user.id), lang)
        if args and args[0].startswith("j"):
            return lobby.join_by_code(message, args[0][1:], lang, env)
        if args and args[0].startswith("s"):  # the deep link of a seat offered to a stand-in
            return longgames.take_seat(message, args[0][1:], lang, env)
        return reply(message, welcome or helptexts.help_text(lang))
    if command == "standin":
        if not args:
            raise Refused(_t(lang, "Usage: /standin <code>, with the code of the seat offered to you."))
        return longgames.take_seat(message, args[0], lang, env)
    if command == "newgame":
        return lobby.solo_game(message, args, lang, env)
    if command == "join":
        if not args:
            raise Refused(_t(lang, "Usage: /join <code>, with the code of the game (its creator has it)."))
        return lobby.join_by_code(message, args[0], lang, env)
    if command == "language":
        if not args or args[0].lower() not in i18n.LANGS:
            raise Refused(_t(lang, "Usage: /language cs or /language en"))
        env.tables.set_lang(user.id, args[0].lower())
        return reply(message, _t(args[0].lower(), "I will write to you in English."))
    if command == "rules":
        return helptexts.cmd_rules(message, args, lang, env)
    if command in PRIVATE_COMMANDS:
        return PRIVATE_COMMANDS[command](message, args, lang, env)
    if command in ("help", "status") or command is None:
        if command == "help":
            return reply(message, helptexts.help_text(lang))
        if command == "status":
            return reply(
                message,
                "\n\n".join(lobby.game_status(env, g, lang) for g in my_games(env, user.id))
                or _t(lang, "You are in no game."),
            )
        games = answers.asked_games(env, user.id)
        words = (message.text or "").split()
        if words and looks_like_code(words[0]):  # "K7QX play 3": the game named by its code
            games = [g for g in games if g[0] == words[0].upper()]
            if not games:
                raise Refused(_t(lang, "You have no question to answer in game {code}.").format(code=words[0].upper()))
            return answers.typed_answer(message, games[0], lang, env, " ".join(words[1:]) or "?")
        if not games:
            return reply(message, _t(lang, "You have no question to answer right now."))
        if len(games) > 1:
            raise Refused(
                _t(
                    lang, "You are asked in several games: use the buttons, or start with the game's code ({codes})."
                ).format(codes=" ".join(g for g, _ in games))
            )
        return answers.typed_answer(message, games[0], lang, env, message.text or "")
    raise Refused(_t(lang, "Unknown command. /help"))
