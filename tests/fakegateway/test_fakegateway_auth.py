"""The fake gateway's key check (`--require-key`) and its 401 and 403 faults, without sockets.

The key check is pure (`completions.key_refusal`): the right key passes however the scheme is
capitalised, anything else gets one of two fixed 401 bodies, so what was sent is never echoed.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.errors import ConfigError
from lobrec.fakegateway import FakeGateway
from lobrec.fakegateway.completions import FakeReply, key_refusal, status_fault_reply
from lobrec.fakegateway.faults import FaultBook, FaultRule, decode_fault_rules, planned_status
from lobrec.fakegateway.server import checked_key
from tests.support.gateway import build_small_suite
from tests.support.strategies import api_keys, malformed_keys

KEY = "lsk-fake-0123456789abcdef"
JSON = {"content-type": "application/json"}
MISSING = (
    b'{"error":{"message":"You didn\'t provide an API key. Send it as `Authorization: Bearer KEY`.",'
    b'"type":"invalid_request_error","code":"missing_api_key"}}'
)
WRONG = (
    b'{"error":{"message":"Incorrect API key provided.",'
    b'"type":"invalid_request_error","code":"invalid_api_key"}}'
)


@pytest.mark.parametrize("header", [f"Bearer {KEY}", f"bearer {KEY}", f"BEARER  {KEY} ", f" Bearer {KEY}"])
def test_the_right_key_passes(header: str) -> None:
    assert key_refusal(header, KEY) is None


@pytest.mark.parametrize("header", [None, "", "Bearer", "Bearer   ", "  "])
def test_no_key_is_a_401_saying_how_to_send_one(header: str | None) -> None:
    assert key_refusal(header, KEY) == FakeReply(status=401, headers=JSON, body=MISSING)


@pytest.mark.parametrize(
    "header",
    [
        f"Bearer {KEY}x",
        f"Bearer {KEY[:-1]}",
        f"Basic {KEY}",
        KEY,
        f"Token {KEY}",
        "Bearer sk-other-key-123456",
    ],
)
def test_a_wrong_key_or_scheme_is_a_401_that_names_nothing_sent(header: str) -> None:
    assert key_refusal(header, KEY) == FakeReply(status=401, headers=JSON, body=WRONG)


@given(key=api_keys(), sent=st.text(max_size=80))
def test_any_other_header_gets_a_fixed_body(key: str, sent: str) -> None:
    """Whatever is sent, the answer is the right key's None or one of two constant 401 bodies."""
    refused = key_refusal(sent, key)
    if refused is None:
        scheme, _, token = sent.strip().partition(" ")
        assert (scheme.lower(), token.strip()) == ("bearer", key)
    else:
        assert (refused.status, refused.body) in {(401, MISSING), (401, WRONG)}


@given(key=api_keys())
def test_every_acceptable_key_passes_as_a_bearer_token(key: str) -> None:
    assert checked_key(key) == key
    assert key_refusal(f"Bearer {key}", key) is None
    assert key_refusal(f"Bearer {key}", key + "x") is not None


@given(malformed=malformed_keys())
def test_a_key_no_header_can_carry_is_refused_at_start(malformed: tuple[str, str]) -> None:
    with pytest.raises(ConfigError, match=r"^--require-key must be a non-empty key of visible ASCII"):
        FakeGateway(build_small_suite(), require_key=malformed[0])


def test_an_empty_key_is_refused_and_none_requires_nothing() -> None:
    with pytest.raises(ConfigError, match="--require-key"):
        checked_key("")
    assert checked_key(None) is None
    assert FakeGateway(build_small_suite()).key_refusal(None) is None
    assert FakeGateway(build_small_suite(), require_key=KEY).key_refusal(None) == key_refusal(None, KEY)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (
            401,
            b'{"error":{"message":"Incorrect API key provided. (injected fault)",'
            b'"type":"invalid_request_error","code":"invalid_api_key"}}',
        ),
        (
            403,
            b'{"error":{"message":"This key is not allowed to use this model. (injected fault)",'
            b'"type":"permission_error","code":"model_not_allowed"}}',
        ),
    ],
)
def test_the_401_and_403_faults_use_the_gateway_error_shape(status: int, body: bytes) -> None:
    assert status_fault_reply(status) == FakeReply(status=status, headers=JSON, body=body)


def test_a_403_rule_forbids_one_model_forever() -> None:
    book = FaultBook()
    (rule,) = decode_fault_rules(b'{"rules": [{"model": "fixture/silent", "then": "403"}]}')
    assert rule == FaultRule(model="fixture/silent", then="403")
    book.add([rule])
    ok = FakeReply(status=200, headers=JSON, body=b"{}")
    taken = [book.take("fixture/silent", case, 0) for case in ("sel-01", "sel-01", "arg-01")]
    assert [planned_status(action, ok) for action in taken] == [403, 403, 403]
    assert book.take("fixture/oracle", "sel-01", 0) is None
