"""Twilio webhook signatures (``X-Twilio-Signature``), reimplemented from Twilio's documented algorithm.

Form posts: HMAC over the full public URL (query string included) followed by, for each parameter name in
sorted order, ``name + value`` for each of its distinct values in sorted order; base64 of the digest. The key
is the account's Auth Token and the hash SHA-1 — or, when the request carries
``X-Twilio-Webhooks-Signature-Settings: key=<id>,algorithm=HMAC_SHA256``, the secret of that shared key and
SHA-256. JSON posts: the URL carries ``bodySHA256=<hex sha256 of the body>``; the signature covers the URL
only and the body hash is checked separately. Like Twilio's own validator we accept the URL with and without
an explicit default port (``:443`` / ``:80``), because Twilio's side is inconsistent about it.

Behind a proxy the URL our server sees is not the one Twilio called: `public_url` rebuilds it from a
configured base URL, or from ``X-Forwarded-Proto`` / ``X-Forwarded-Host`` when the proxy is trusted — and a proxy
is trusted only when the request's peer address is one of ``FORWARDED_ALLOW_IPS`` (`trusted_peer`): anyone else
could otherwise choose the URL the signature is checked against. The peer must be the connection's own address,
so the web process runs uvicorn with ``--no-proxy-headers`` (uvicorn's rewrite would put the forwarded client
address in its place).
"""

import base64
import hashlib
import hmac
import ipaddress
from urllib.parse import parse_qs, urlsplit, urlunsplit

ALGORITHMS = {"HMAC_SHA1": hashlib.sha1, "HMAC_SHA256": hashlib.sha256}
DEFAULT_PORTS = {"https": 443, "http": 80}


def signature(secret: str, url: str, params: dict[str, list[str]] | None = None, algorithm: str = "HMAC_SHA1") -> str:
    """The signature Twilio computes for ``url`` and the form ``params`` (name -> list of values)."""
    params = params or {}
    data = url
    for name in sorted(params):
        for value in sorted(set(params[name])):
            data += name + value
    digest = hmac.new(secret.encode(), data.encode(), ALGORITHMS[algorithm]).digest()
    return base64.b64encode(digest).decode()


def url_variants(url: str) -> list[str]:
    """The URL as given, then without / with its scheme's default port."""
    parts = urlsplit(url)
    default = DEFAULT_PORTS.get(parts.scheme)
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    userinfo = parts.netloc.rpartition("@")[0]
    prefix = f"{userinfo}@" if userinfo else ""
    if parts.port is not None and parts.port == default:
        other = prefix + host
    elif parts.port is None and default is not None:
        other = f"{prefix}{host}:{default}"
    else:
        return [url]
    return [url, urlunsplit(parts._replace(netloc=other))]


def signature_settings(header: str | None) -> dict[str, str]:
    """``key=K,algorithm=HMAC_SHA256`` -> {"key": "K", "algorithm": "HMAC_SHA256"} ({} when absent)."""
    settings = {}
    for item in (header or "").split(","):
        name, sep, value = item.partition("=")
        if sep:
            settings[name.strip().lower()] = value.strip()
    return settings


def _secret_and_algorithm(auth_token: str, shared_keys: dict[str, str], settings_header: str | None):
    """(secret, algorithm) named by the settings header; the Auth Token and SHA-1 without one."""
    settings = signature_settings(settings_header)
    algorithm = settings.get("algorithm", "HMAC_SHA1").upper()
    if algorithm not in ALGORITHMS:
        return None, None
    secret = shared_keys.get(settings["key"]) if "key" in settings else auth_token
    return secret, algorithm


def body_hash_ok(url: str, body: bytes) -> bool:
    """The URL's ``bodySHA256`` parameter is the hex SHA-256 of the raw body."""
    wanted = parse_qs(urlsplit(url).query).get("bodySHA256", [None])[0]
    return wanted is not None and hmac.compare_digest(wanted.lower(), hashlib.sha256(body).hexdigest())


def is_valid(
    url: str,
    given: str | None,
    *,
    auth_token: str,
    params: dict[str, list[str]] | None = None,
    json_body: bytes | None = None,
    settings_header: str | None = None,
    shared_keys: dict[str, str] | None = None,
) -> bool:
    """Whether ``given`` signs this request. Pass ``params`` for a form post, ``json_body`` for a JSON post."""
    secret, algorithm = _secret_and_algorithm(auth_token, shared_keys or {}, settings_header)
    if not given or not secret:
        return False
    if json_body is not None:
        if not body_hash_ok(url, json_body):
            return False
        params = None
    return any(
        hmac.compare_digest(signature(secret, variant, params, algorithm).encode(), given.encode())
        for variant in url_variants(url)
    )


def public_url(request_url: str, headers, configured: str | None = None, trust_proxy: bool = False) -> str:
    """The URL Twilio called: the configured public base (scheme, host, optional path prefix) with the
    request's path and query, else the forwarded scheme and host when the proxy is trusted, else as seen.

    Configured ``https://game.example/base`` + request path ``/sms/twilio``
    -> ``https://game.example/base/sms/twilio``.
    """
    seen = urlsplit(request_url)
    if configured:
        base = urlsplit(configured)
        return urlunsplit((base.scheme, base.netloc, base.path.rstrip("/") + seen.path, seen.query, ""))
    if trust_proxy:
        scheme = _first(headers.get("x-forwarded-proto")) or seen.scheme
        host = _first(headers.get("x-forwarded-host")) or headers.get("host") or seen.netloc
        return urlunsplit((scheme, host, seen.path, seen.query, ""))
    return urlunsplit((seen.scheme, seen.netloc, seen.path, seen.query, ""))


def _first(value: str | None) -> str | None:
    """The first hop of a comma-separated forwarded header (the client-facing one)."""
    return value.split(",")[0].strip() if value else None


def trusted_peer(peer: str | None, allowed: str) -> bool:
    """Whether the connection's peer address is one of ``allowed``: comma-separated addresses and networks
    (``10.0.0.0/8``), or ``*`` for any (only when nothing but the proxy can reach the web process)."""
    entries = [entry.strip() for entry in allowed.split(",") if entry.strip()]
    if "*" in entries:
        return True
    try:
        address = ipaddress.ip_address(peer or "")
    except ValueError:
        return False
    for entry in entries:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False
