"""Where the gateway is and how to authenticate: URL and key resolution, checked before any call."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from lobrec.errors import ConfigError

DEFAULT_BASE_URL = "https://www.lobstack.ai/api/gateway/v1"
KEY_ENV = "LOBSTACK_API_KEY"
URL_ENV = "LOBSTACK_BASE_URL"


@dataclass(frozen=True)
class Gateway:
    base_url: str
    api_key: str | None

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def __repr__(self) -> str:  # never show the key
        return f"Gateway(base_url={self.base_url!r}, api_key={'set' if self.api_key else 'unset'})"


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_gateway(base_url: str | None, environ: Mapping[str, str] = os.environ) -> Gateway:
    """`--base-url`, else LOBSTACK_BASE_URL, else the Lobstack API; the key from LOBSTACK_API_KEY.

    A remote gateway without a key is refused before any request is made.
    """
    url = base_url or environ.get(URL_ENV) or DEFAULT_BASE_URL
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"base URL {url!r} is not an http(s) URL")
    key = environ.get(KEY_ENV) or None
    if key is None and not is_loopback(url):
        raise ConfigError(
            f"{KEY_ENV} is not set; it is required for {url} (only a loopback gateway runs without a key)"
        )
    if key is not None and parts.scheme == "http" and not is_loopback(url):
        raise ConfigError(f"refusing to send {KEY_ENV} over plain http to {url}; use https")
    return Gateway(base_url=url, api_key=key)
