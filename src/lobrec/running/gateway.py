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
MIN_KEY_LENGTH = 16
"""Shorter than any real credential: scrubbing such a key from recordings would rewrite ordinary
words in replies (a key `test` turns every "test" into `<redacted>`) and so change verdicts."""


@dataclass(frozen=True)
class Gateway:
    base_url: str
    api_key: str | None

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def __post_init__(self) -> None:
        if self.api_key:  # however the gateway was made: `resolve_gateway` or the library
            check_key_characters(self.api_key)

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


def _plain_netloc(netloc: str) -> bool:
    """No junk after a bracketed IPv6 host (`[::1]evil.com`), which urlsplit lets through."""
    host_port = netloc.rpartition("@")[2]
    if host_port.startswith("["):
        rest = host_port.partition("]")[2]
        return rest == "" or (rest.startswith(":") and rest[1:].isdigit())
    return True


def mask_url(url: str) -> str:
    """The URL with any user, password and query replaced, for messages and reports."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "<credentials>@" + netloc.rpartition("@")[2]
    query = "<query>" if parts.query else ""
    return parts._replace(netloc=netloc, query=query, fragment="").geturl()


def check_key_characters(key: str) -> None:
    """A key is visible ASCII (`!` to `~`): a control character (a stray `\\f` or newline) or a
    non-ASCII one cannot travel in an HTTP header, so every request would fail with an error
    quoting the header, key included. Refused before any request; the message names the character
    and its place, never the key."""
    for position, char in enumerate(key, start=1):
        if not "!" <= char <= "~":
            kind = (
                "a space"
                if char == " "
                else "a non-ASCII character"
                if ord(char) > 0x7F
                else "a control character"
            )
            raise ConfigError(
                f"{KEY_ENV} holds {kind} (U+{ord(char):04X}) at position {position} of {len(key)}; "
                "a key is visible ASCII only (check for a stray space, newline or form feed)"
            )


def resolve_gateway(
    base_url: str | None, environ: Mapping[str, str] = os.environ, *, named_by_file: str | None = None
) -> Gateway:
    """`--base-url`, else LOBSTACK_BASE_URL, else the Lobstack API; the key from LOBSTACK_API_KEY.

    A remote gateway without a key is refused before any request is made. A base URL given empty
    (`--base-url "$UNSET"`) is refused, never replaced by the variable or the remote default.
    `named_by_file` is the configuration file `base_url` came from when only a file named it: the
    key then goes there only if it is the Lobstack host or loopback (`check_key_destination`).
    """
    url = base_url if base_url is not None else environ.get(URL_ENV) or DEFAULT_BASE_URL
    check_url(url)
    key = environ.get(KEY_ENV) or None
    _check_key(key, url)
    if key is not None and named_by_file is not None:
        check_key_destination(url, named_by_file)
    return Gateway(base_url=url, api_key=key)


def trusted_without_asking(url: str) -> bool:
    """A URL the key may go to whoever named it: loopback, or the Lobstack host over https."""
    parts, lobstack = urlsplit(url), urlsplit(DEFAULT_BASE_URL)
    return is_loopback(url) or (
        parts.scheme == "https" and parts.hostname == lobstack.hostname and parts.port in (None, 443)
    )


def check_key_destination(url: str, file: str) -> None:
    """The key goes only where its holder said: a base URL that only a file names (a file a pull
    request can edit) is refused for a keyed run unless it is `trusted_without_asking`; the holder
    confirms it with `--base-url` or LOBSTACK_BASE_URL (docs/security.md)."""
    if trusted_without_asking(url):
        return
    import shlex

    shown = shlex.quote(mask_url(url))
    raise ConfigError(
        f"{file}: base-url {shown} is named only by this file, and {KEY_ENV} is not sent to a host a "
        f"file names; to send it there, confirm with --base-url {shown} or {URL_ENV}={shown}"
    )


def check_url(url: str) -> None:
    """An http(s) URL with a valid host and port, and nothing that would carry a credential."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises on a port out of range or not a number
        hostname = parts.hostname
    except ValueError:
        hostname = None
    if parts.scheme not in ("http", "https") or not hostname or not _plain_netloc(parts.netloc):
        raise ConfigError(f"base URL {mask_url(url)!r} is not an http(s) URL with a valid host and port")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise ConfigError(
            f"base URL {mask_url(url)!r} carries credentials or a query; give the key in {KEY_ENV} "
            "and the URL without user, password or query, since the URL is written into every cassette"
        )


def _check_key(key: str | None, url: str) -> None:
    """A key that can be a credential, required for a remote gateway and never sent over plain http."""
    if key is None:
        if not is_loopback(url):
            raise ConfigError(
                f"{KEY_ENV} is not set; it is required for {url} (only a loopback gateway runs without a key)"
            )
        return
    check_key_characters(key)
    if len(key) < MIN_KEY_LENGTH:
        raise ConfigError(
            f"{KEY_ENV} is {len(key)} characters, too short to be a credential "
            f"(at least {MIN_KEY_LENGTH}); a loopback gateway runs without a key"
        )
    if urlsplit(url).scheme == "http" and not is_loopback(url):
        raise ConfigError(f"refusing to send {KEY_ENV} over plain http to {url}; use https")
