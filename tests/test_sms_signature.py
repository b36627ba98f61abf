"""Twilio signature validation against Twilio's published example and signatures computed here from the
documented algorithm with hmac/hashlib directly (not with the code under test)."""

import base64
import hashlib
import hmac

from service.channels.sms.signature import is_valid, public_url, signature, trusted_peer, url_variants

TOKEN = "12345"
EXAMPLE_URL = "https://mycompany.com/myapp.php?foo=1&bar=2"
EXAMPLE = {
    "CallSid": ["CA1234567890ABCDE"],
    "Caller": ["+14158675309"],
    "Digits": ["1234"],
    "From": ["+14158675309"],
    "To": ["+18005551212"],
}
EXAMPLE_SIGNATURE = "RSOYDt4T1cUTdK1PDd93/VVr8B8="  # Twilio's documentation and its SDKs' tests


def by_hand(secret, text, digest=hashlib.sha1):
    return base64.b64encode(hmac.new(secret.encode(), text.encode(), digest).digest()).decode()


def test_twilios_published_example():
    assert signature(TOKEN, EXAMPLE_URL, EXAMPLE) == EXAMPLE_SIGNATURE
    assert is_valid(EXAMPLE_URL, EXAMPLE_SIGNATURE, auth_token=TOKEN, params=EXAMPLE)


def test_sorted_names_and_sorted_distinct_values():
    url = "https://game.example/sms/twilio"
    params = {"b": ["2"], "a": ["y", "x", "y"], "Body": ["play 3"]}
    expected = by_hand("tok", url + "Bodyplay 3" + "ax" + "ay" + "b2")
    assert signature("tok", url, params) == expected
    assert is_valid(url, expected, auth_token="tok", params=params)


def test_a_changed_parameter_url_or_token_is_refused():
    assert not is_valid(EXAMPLE_URL, EXAMPLE_SIGNATURE, auth_token=TOKEN, params={**EXAMPLE, "Digits": ["9"]})
    assert not is_valid(EXAMPLE_URL + "&x=1", EXAMPLE_SIGNATURE, auth_token=TOKEN, params=EXAMPLE)
    assert not is_valid(EXAMPLE_URL, EXAMPLE_SIGNATURE, auth_token="54321", params=EXAMPLE)
    assert not is_valid(EXAMPLE_URL, None, auth_token=TOKEN, params=EXAMPLE)
    assert not is_valid(EXAMPLE_URL, "", auth_token=TOKEN, params=EXAMPLE)
    assert not is_valid(EXAMPLE_URL, EXAMPLE_SIGNATURE, auth_token="", params=EXAMPLE)


def test_explicit_default_port_either_way():
    with_port = "https://mycompany.com:443/myapp.php?foo=1&bar=2"
    signed_with_port = by_hand(TOKEN, with_port + "Digits1234")
    signed_without = by_hand(TOKEN, EXAMPLE_URL + "Digits1234")
    params = {"Digits": ["1234"]}
    # Twilio signed one form; our server sees the other
    assert is_valid(EXAMPLE_URL, signed_with_port, auth_token=TOKEN, params=params)
    assert is_valid(with_port, signed_without, auth_token=TOKEN, params=params)
    assert url_variants("http://h.example:80/x") == ["http://h.example:80/x", "http://h.example/x"]
    assert url_variants("http://h.example:8080/x") == ["http://h.example:8080/x"]


def test_sha256_with_a_shared_key_named_by_the_settings_header():
    url = "https://game.example/sms/twilio"
    params = {"Body": ["NEW"], "From": ["+447700000001"]}
    signed = by_hand("shared-secret", url + "BodyNEW" + "From+447700000001", hashlib.sha256)
    header = "key=KS123,algorithm=HMAC_SHA256"
    keys = {"KS123": "shared-secret"}
    assert is_valid(url, signed, auth_token=TOKEN, params=params, settings_header=header, shared_keys=keys)
    assert not is_valid(url, signed, auth_token=TOKEN, params=params)  # SHA-1 with the Auth Token: no
    assert not is_valid(url, signed, auth_token=TOKEN, params=params, settings_header=header)  # key unknown
    assert not is_valid(
        url, signed, auth_token=TOKEN, params=params, settings_header="key=KS123,algorithm=MD5", shared_keys=keys
    )


def test_json_body_is_checked_by_its_hash_and_the_signature_covers_the_url_only():
    body = b'{"Body": "play 3"}'
    url = "https://game.example/sms/twilio?bodySHA256=" + hashlib.sha256(body).hexdigest()
    signed = by_hand(TOKEN, url)
    assert is_valid(url, signed, auth_token=TOKEN, json_body=body)
    assert not is_valid(url, signed, auth_token=TOKEN, json_body=b'{"Body": "play 4"}')
    assert not is_valid(
        "https://game.example/sms/twilio",
        by_hand(TOKEN, "https://game.example/sms/twilio"),
        auth_token=TOKEN,
        json_body=body,
    )  # no body hash in the URL


def test_public_url_from_configuration_or_trusted_proxy_headers():
    seen = "http://10.0.0.5:8000/sms/twilio?x=1"
    headers = {"host": "10.0.0.5:8000", "x-forwarded-proto": "https", "x-forwarded-host": "game.example, proxy"}
    assert public_url(seen, headers) == seen
    assert public_url(seen, headers, trust_proxy=True) == "https://game.example/sms/twilio?x=1"
    assert (
        public_url(seen, headers, configured="https://play.example/artemia/")
        == "https://play.example/artemia/sms/twilio?x=1"
    )


def test_trusted_peers_are_addresses_networks_or_anyone():
    allowed = "127.0.0.1, ::1, 10.1.0.0/16"
    assert trusted_peer("127.0.0.1", allowed) and trusted_peer("::1", allowed) and trusted_peer("10.1.200.3", allowed)
    assert not trusted_peer("10.2.0.1", allowed) and not trusted_peer("203.0.113.9", allowed)
    assert not trusted_peer(None, allowed) and not trusted_peer("not-an-ip", allowed)
    assert not trusted_peer("127.0.0.1", "") and not trusted_peer("127.0.0.1", "garbage, 10.0.0.0/33")
    assert trusted_peer("203.0.113.9", "*")
