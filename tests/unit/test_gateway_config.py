"""Gateway URL and key resolution: refused before any request when unsafe."""

from __future__ import annotations

import pytest

from lobrec.errors import ConfigError
from lobrec.gateway import DEFAULT_BASE_URL, resolve_gateway


@pytest.mark.parametrize(
    ("option", "environ", "url", "key"),
    [
        (None, {"LOBSTACK_API_KEY": "k"}, DEFAULT_BASE_URL, "k"),
        (
            None,
            {"LOBSTACK_API_KEY": "k", "LOBSTACK_BASE_URL": "https://gw.example/v1"},
            "https://gw.example/v1",
            "k",
        ),
        ("http://127.0.0.1:9/v1", {"LOBSTACK_BASE_URL": "https://x/v1"}, "http://127.0.0.1:9/v1", None),
        ("http://localhost:9/v1", {"LOBSTACK_API_KEY": "k"}, "http://localhost:9/v1", "k"),
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
            {"LOBSTACK_API_KEY": "k"},
            "refusing to send LOBSTACK_API_KEY over plain http to http://gw.example/v1; use https",
        ),
        ("ftp://x/v1", {}, "base URL 'ftp://x/v1' is not an http(s) URL"),
    ],
)
def test_refusals(option: str | None, environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_gateway(option, environ)
    assert str(info.value) == message
