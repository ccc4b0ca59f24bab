"""Gateway URL and key resolution: refused before any request when unsafe."""

from __future__ import annotations

import pytest

from lobrec.errors import ConfigError
from lobrec.running.gateway import DEFAULT_BASE_URL, mask_url, resolve_gateway

KEY = "lk-test-0123456789abcdef"


@pytest.mark.parametrize(
    ("option", "environ", "url", "key"),
    [
        (None, {"LOBSTACK_API_KEY": KEY}, DEFAULT_BASE_URL, KEY),
        (
            None,
            {"LOBSTACK_API_KEY": KEY, "LOBSTACK_BASE_URL": "https://gw.example/v1"},
            "https://gw.example/v1",
            KEY,
        ),
        ("http://127.0.0.1:9/v1", {"LOBSTACK_BASE_URL": "https://x/v1"}, "http://127.0.0.1:9/v1", None),
        ("http://localhost:9/v1", {"LOBSTACK_API_KEY": KEY}, "http://localhost:9/v1", KEY),
        ("http://[::1]:9/v1", {}, "http://[::1]:9/v1", None),
    ],
)
def test_resolution(option: str | None, environ: dict[str, str], url: str, key: str | None) -> None:
    gateway = resolve_gateway(option, environ)
    assert (gateway.base_url, gateway.api_key) == (url, key)
    assert key is None or f"={key!r}" not in repr(gateway)


@pytest.mark.parametrize(
    ("option", "environ", "message"),
    [
        (
            None,
            {},
            "LOBSTACK_API_KEY is not set; it is required for https://www.lobstack.ai/api/gateway/v1 "
            "(only a loopback gateway runs without a key)",
        ),
        (
            "http://gw.example/v1",
            {"LOBSTACK_API_KEY": KEY},
            "refusing to send LOBSTACK_API_KEY over plain http to http://gw.example/v1; use https",
        ),
        ("ftp://x/v1", {}, "base URL 'ftp://x/v1' is not an http(s) URL with a valid host and port"),
        (
            "http://127.0.0.1:99999/v1",
            {},
            "base URL 'http://127.0.0.1:99999/v1' is not an http(s) URL with a valid host and port",
        ),
        (
            "http://[::1]evil.com/v1",
            {},
            "base URL 'http://[::1]evil.com/v1' is not an http(s) URL with a valid host and port",
        ),
        (
            "https://u:pass@gw.example/v1",
            {"LOBSTACK_API_KEY": KEY},
            "base URL 'https://<credentials>@gw.example/v1' carries credentials or a query; give the key "
            "in LOBSTACK_API_KEY and the URL without user, password or query, since the URL is written "
            "into every cassette",
        ),
        (
            "https://gw.example/v1?api-key=secret",
            {"LOBSTACK_API_KEY": KEY},
            "base URL 'https://gw.example/v1?<query>' carries credentials or a query; give the key "
            "in LOBSTACK_API_KEY and the URL without user, password or query, since the URL is written "
            "into every cassette",
        ),
        (
            "http://127.0.0.1:9/v1",
            {"LOBSTACK_API_KEY": "test"},
            "LOBSTACK_API_KEY is 4 characters, too short to be a credential (at least 16); "
            "a loopback gateway runs without a key",
        ),
    ],
)
def test_refusals(option: str | None, environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_gateway(option, environ)
    assert str(info.value) == message


def test_mask_url_hides_user_password_and_query_but_keeps_the_host() -> None:
    assert mask_url("http://u:p@h:8/v1?api-key=s#f") == "http://<credentials>@h:8/v1?<query>"
    assert mask_url("https://h/v1") == "https://h/v1"
