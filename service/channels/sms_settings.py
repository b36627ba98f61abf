"""Settings of the SMS channel, from the environment only (names without a prefix, as Twilio's docs spell them).

    TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN     the account (the token also keys the SHA-1 signatures)
    TWILIO_FROM                               our number, E.164 (or TWILIO_MESSAGING_SERVICE_SID instead)
    TWILIO_API_BASE_URL                       https://api.twilio.com, or a fake in tests
    TWILIO_SHARED_KEYS                        JSON {"<key id>": "<secret>"} for SHA-256 webhook signatures
    SMS_PUBLIC_URL                            the public base URL Twilio calls (behind a proxy), e.g. https://x.example
    SMS_TRUST_PROXY                           rebuild the public URL from X-Forwarded-Proto/Host instead
    SMS_DEFAULT_TZ                            time zone of deadlines for numbers that did not choose one
"""

from pydantic_settings import BaseSettings, SettingsConfigDict


class SmsSettings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore")

    twilio_account_sid: str = ""
    twilio_auth_token: str = ""
    twilio_from: str = ""
    twilio_messaging_service_sid: str = ""
    twilio_api_base_url: str = "https://api.twilio.com"
    twilio_shared_keys: dict[str, str] = {}
    sms_public_url: str | None = None
    sms_trust_proxy: bool = False
    sms_default_tz: str = "Europe/Prague"
