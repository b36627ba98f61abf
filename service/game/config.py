"""A game's config: its keys, what each allows and its defaults, checked before a game is made (engine.new_game)."""

from typing import Any, Final

from service.game.cards import PLAYERS_MAX, PLAYERS_MIN
from service.game.rules.common import IllegalAction
from service.game.rules.secrecy import DEFAULT as DEFAULT_SECRECY
from service.game.rules.secrecy import SETTINGS as SECRECY_SETTINGS
from service.game.state import Config

# The config's keys and what each allows (its default when left out: seed 0, side None, expert False, secrecy
# strict).
CONFIG_KEYS: Final = {
    "players": f"an integer from {PLAYERS_MIN} to {PLAYERS_MAX} (required)",
    "seed": "an integer (default 0)",
    "side": "1, 2 or None to let the Creature choose (default None)",
    "expert": "true or false (default false)",
    "secrecy": f"'strict' or 'fast' (default {DEFAULT_SECRECY!r}; see rules/secrecy.py)",
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_config(config: Any) -> Config:
    """The complete config (defaults filled in) from a given one; IllegalAction names a missing or unknown key
    or a bad value and says what is allowed. Values are not converted: "3" or True is not a number of players."""
    allowed = "; ".join(f"{key!r}: {what}" for key, what in CONFIG_KEYS.items())
    if not isinstance(config, dict):
        raise IllegalAction(f"the game config is a dict of {allowed}; not {config!r}")
    unknown = sorted(repr(key) for key in config if key not in CONFIG_KEYS)
    if unknown:
        raise IllegalAction(
            f"unknown config key{'s' * (len(unknown) > 1)} {', '.join(unknown)}; the keys are {allowed}"
        )
    if "players" not in config:
        raise IllegalAction(f"the config needs 'players': {CONFIG_KEYS['players']}")
    # The values are read as Any until checked (compiled, a value read as an int must be one).
    given: dict[str, Any] = {
        "players": config["players"],
        "seed": config.get("seed", 0),
        "side": config.get("side"),
        "expert": config.get("expert", False),
        "secrecy": config.get("secrecy", DEFAULT_SECRECY),
    }
    players, side = given["players"], given["side"]
    for key, good in (
        ("players", _is_int(players) and PLAYERS_MIN <= players <= PLAYERS_MAX),
        ("seed", _is_int(given["seed"])),
        ("side", side is None or (_is_int(side) and side in (1, 2))),
        ("expert", isinstance(given["expert"], bool)),
        ("secrecy", given["secrecy"] in SECRECY_SETTINGS),
    ):
        if not good:
            raise IllegalAction(f"config {key!r} must be {CONFIG_KEYS[key]}, not {config[key]!r}")
    checked: Config = {
        "players": players,
        "seed": given["seed"],
        "side": side,
        "expert": given["expert"],
        "secrecy": given["secrecy"],
    }
    return checked
