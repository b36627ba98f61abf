"""Two numbers of one person as one player, on SMS and WhatsApp: the links, and the LINK and UNLINK commands.

LINK sent from a number (its *home*) gives a code. LINK <code>, sent within 15 minutes from the person's other
number (SMS or WhatsApp), links that number to the home: from then on its texts and taps are read as the home's
(`Directory.address`). It answers the home's questions, joins and opens tables as the home, and has one record
with it, while the game messages keep going to the home. The code proves that one person holds both numbers.

Refused, with a line that says why and what to do: a number that plays a game of its own or waits at a table
(no seat changes hands), a number others are linked to, or a number linked already (no chains), a home's own
code sent back from the home, an expired or unknown code, and more than `TRIES_PER_HOUR` wrong codes from one
number. UNLINK on either number undoes the link (on the home: every number linked to it). STOP on a linked
number unlinks it first, so that its opt-out never hands the home's seats to bots.
"""

import secrets
from collections.abc import Callable
from typing import cast

import redis

from service.channels.sms.replies import reply
from service.store import keys

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off one phone and typed on another
CODE_LENGTH = 6
CODE_SECONDS = 15 * 60
TRIES_PER_HOUR = 5


def label_of(address: str) -> str:
    """How a reply names a number: "WhatsApp …3456", "SMS …3456"."""
    channel, _, number = address.partition(":")
    return f"{'WhatsApp' if channel == 'wa' else 'SMS'} …{number[-4:]}"


class Links:
    """The links between numbers' addresses, in Redis (see `keys.number_link`)."""

    def __init__(self, connection: redis.Redis):
        self.redis = connection

    def home_of(self, address: str) -> str | None:
        """The address that ``address`` plays as, if it is linked to one."""
        home = cast(bytes | None, self.redis.get(keys.number_link(address)))
        return home.decode() if home else None

    def aliases_of(self, home: str) -> list[str]:
        return sorted(a.decode() for a in cast(set[bytes], self.redis.smembers(keys.number_aliases(home))))

    def offer(self, home: str) -> str:
        """A new code that links the number that sends it back to ``home``."""
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.redis.set(keys.link_code(code), home, nx=True, ex=CODE_SECONDS):
                return code

    def code_home(self, code: str) -> str | None:
        """The home a code was given to, if it is still waiting."""
        home = cast(bytes | None, self.redis.get(keys.link_code(code)))
        return home.decode() if home else None

    def take_code(self, code: str) -> str | None:
        """The home a code was given to; the code is used up."""
        home = cast(bytes | None, self.redis.getdel(keys.link_code(code)))
        return home.decode() if home else None

    def link(self, alias: str, home: str, ttl: int) -> None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.number_link(alias), home, ex=ttl)
        pipe.sadd(keys.number_aliases(home), alias)
        pipe.expire(keys.number_aliases(home), ttl)
        pipe.execute()

    def unlink(self, address: str) -> list[str]:
        """Undo the links of ``address``: its own link to a home, else every link to it. -> the addresses that
        play as themselves again."""
        home = self.home_of(address)
        pipe = self.redis.pipeline(transaction=True)
        if home is not None:
            pipe.delete(keys.number_link(address))
            pipe.srem(keys.number_aliases(home), address)
            pipe.execute()
            return [address]
        aliases = self.aliases_of(address)
        for alias in aliases:
            pipe.delete(keys.number_link(alias))
        pipe.delete(keys.number_aliases(address))
        pipe.execute()
        return aliases

    def wrong_code(self, address: str) -> int:
        """Count one wrong code sent from ``address``. -> how many in the last hour (the first starts the hour)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.incr(keys.link_tries(address))
        pipe.expire(keys.link_tries(address), 3600, nx=True)
        return int(pipe.execute()[0])

    def tries(self, address: str) -> int:
        return int(cast(bytes | None, self.redis.get(keys.link_tries(address))) or 0)


def link_command(links: Links, own: str, args: list[str], lang: str, busy: Callable[[], list[str]], ttl: int) -> str:
    """LINK (a code for this number, the home) or LINK <code> (this number, ``own``, joins the code's home);
    ``busy``: the codes of the games and tables ``own`` plays at, which keep it from being linked."""
    home = links.home_of(own)
    if home is not None:
        return reply("link_already", lang, home=label_of(home))
    if not args:
        return reply("link_offer", lang, code=links.offer(own))
    code = args[0].upper()
    if links.code_home(code) == own:
        return reply("link_own", lang)
    if links.tries(own) >= TRIES_PER_HOUR:
        return reply("link_tries", lang)
    if links.aliases_of(own):
        return reply("link_is_home", lang)
    playing = busy()
    if playing:
        return reply("link_busy", lang, codes=" ".join(playing))
    home = links.take_code(code)
    if home is None or links.home_of(home) is not None:
        links.wrong_code(own)
        return reply("link_bad", lang)
    links.link(own, home, ttl)
    return reply("linked", lang, home=label_of(home))


def unlink_command(links: Links, own: str, lang: str) -> str:
    home = links.home_of(own)
    freed = links.unlink(own)
    if home is not None:
        return reply("unlinked_alias", lang, home=label_of(home))
    if freed:
        return reply("unlinked_home", lang, numbers=", ".join(label_of(a) for a in freed))
    return reply("not_linked", lang)
