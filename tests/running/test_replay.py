"""Replay mode: re-judging recorded cassettes after the suite changes, offline.

Each test records the small suite once against the fake-gateway process, then edits the suite (or
the cassettes) and rescores, through the library and through the CLI.
"""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.metrics.results import decode_results, encode_results
from lobrec.core.suite.format import CallStep, Eq, Message, Suite, decode_suite, encode_suite
from lobrec.running.gateway import resolve_gateway
from lobrec.running.recording import RecordOptions, record, record_waiting_with
from lobrec.running.replay import rescore
from lobrec.running.runner import Progress

MODEL = "fixture/oracle"
MODEL_DIR = "fixture%2Foracle"


def load(path: Path) -> Suite:
    return decode_suite(path.read_bytes(), str(path))


def write(suite: Suite, path: Path) -> Path:
    path.write_bytes(encode_suite(suite))
    return path


def replace_case(suite: Suite, case_id: str, **changes: Any) -> Suite:
    cases = [msgspec.structs.replace(c, **changes) if c.id == case_id else c for c in suite.cases]
    return msgspec.structs.replace(suite, cases=cases)


def with_first_check(suite: Suite, case_id: str, check: Eq) -> Suite:
    case = suite.case(case_id)
    assert case is not None
    first = case.steps[0]
    assert isinstance(first, CallStep)
    call = msgspec.structs.replace(first.calls[0], checks=[check])
    steps = [msgspec.structs.replace(first, calls=[call, *first.calls[1:]]), *case.steps[1:]]
    return replace_case(suite, case_id, steps=steps)


def do_record(gateway: Any, suite: Suite, cassettes: Path) -> Any:
    options = RecordOptions(models=[MODEL], cassettes=cassettes)
    return asyncio.run(record(suite, resolve_gateway(gateway.url, {}), options)).run


def statuses(run: Any) -> dict[str, tuple[str, bool]]:
    (model,) = run.models
    return {case.id: (case.status, case.passed) for case in model.cases}


@pytest.fixture
def recorded(fake_gateway: Any, tmp_path: Path) -> tuple[Suite, Path]:
    suite = load(fake_gateway.suite_path)
    do_record(fake_gateway, suite, tmp_path / "cassettes")
    return suite, tmp_path / "cassettes"


def test_a_changed_check_is_rejudged_not_stale(recorded: tuple[Suite, Path]) -> None:
    suite, cassettes = recorded
    stricter = with_first_check(suite, "sel-01", Eq(arg="path", value="docs/README.md"))
    run = asyncio.run(rescore(stricter, cassettes)).run
    assert statuses(run)["sel-01"] == ("scored", False)
    assert statuses(run)["arg-01"] == ("scored", True)
    (model,) = run.models
    case = next(c for c in model.cases if c.id == "sel-01")
    assert [m.reason for m in case.steps[0].mismatches] == ["read_file: path: not equal"]


def test_changed_request_content_is_stale(recorded: tuple[Suite, Path]) -> None:
    suite, cassettes = recorded
    case = suite.case("arg-01")
    assert case is not None
    edited = replace_case(suite, "arg-01", messages=[Message(role="user", content="Weather in Basel?")])
    run = asyncio.run(rescore(edited, cassettes)).run
    (model,) = run.models
    stale = {c.id: c.reason for c in model.cases if c.status == "stale"}
    assert stale == {"arg-01": "the case's messages, tools or scripted results changed since it was recorded"}
    assert model.counts.stale == 1 and model.counts.scored == 4


def test_a_chain_that_now_goes_further_is_stale(fake_gateway: Any, tmp_path: Path) -> None:
    suite = load(fake_gateway.suite_path)
    impossible = with_first_check(suite, "chain-01", Eq(arg="query", value="nothing matches this"))
    do_record(fake_gateway, impossible, tmp_path / "cassettes")  # the chain stops after step 0
    run = asyncio.run(rescore(suite, tmp_path / "cassettes")).run
    (model,) = run.models
    chain = next(c for c in model.cases if c.id == "chain-01")
    assert chain.status == "stale"
    assert chain.reason is not None and chain.reason.startswith("step 2: ")
    assert chain.reason.endswith("chain-01.json: no recorded answer for this request")


def test_record_then_rescore_is_byte_identical(fake_gateway: Any, tmp_path: Path) -> None:
    suite = load(fake_gateway.suite_path)
    live = do_record(fake_gateway, suite, tmp_path / "cassettes")
    replayed = asyncio.run(rescore(suite, tmp_path / "cassettes")).run
    assert encode_results(replayed) == encode_results(live)
    assert decode_results(encode_results(live)) == live


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_cli_refuses_another_major_version(recorded: tuple[Suite, Path], tmp_path: Path) -> None:
    suite, cassettes = recorded
    path = write(msgspec.structs.replace(suite, version="2.0.0"), tmp_path / "v2.json")
    result = invoke("rescore", str(cassettes), "--suite", str(path))
    assert result.exit_code == Exit.GATEWAY  # nothing judged
    reason = (
        f"{cassettes}/{MODEL_DIR}: recorded on suite fake-gateway-e2e 1.0.0, the suite is "
        "fake-gateway-e2e 2.0.0: another major version cannot be re-judged"
    )
    count = len(suite.cases)
    shown = ", ".join(case.id for case in suite.cases[:5]) + (f" and {count - 5} more" if count > 5 else "")
    assert result.stderr.strip().splitlines() == [
        f"lobrec: {MODEL}: {count} cases errored ({shown}): {reason}",
        f"lobrec: {MODEL}: {reason}. Nothing needs recording: judge it with suite 1.0.0 or another 1.x "
        "(--suite FILE), or with a lobrec whose bundled suite is 1.x (lobrec --version names it)",
        f"lobrec: gate failed: {count} cases recorded on another major suite version in 1 model, as listed "
        "above (--allow-other-major accepts them)",
        f"lobrec: gate failed: no case judged: {MODEL} ({count} errored of {count}); no option passes a "
        "model with none",
    ]
    # No allowance of another kind, nor its own, makes "nothing judged" green.
    for allowances in (["--allow-stale"], ["--allow-unreadable"], ["--allow-other-major", "--allow-stale"]):
        again = invoke(
            "rescore", str(cassettes), "--suite", str(path), "--fail-under", "80", "--max-errored", "0",
            *allowances,
        )  # fmt: skip
        assert again.exit_code == Exit.GATEWAY, allowances


def test_cli_minor_version_rejudges(recorded: tuple[Suite, Path], tmp_path: Path) -> None:
    suite, cassettes = recorded
    path = write(msgspec.structs.replace(suite, version="1.1.0"), tmp_path / "v11.json")
    result = invoke("rescore", str(cassettes), "--suite", str(path), "--json", str(tmp_path / "r.json"))
    assert result.exit_code == Exit.OK, result.stderr
    run = decode_results((tmp_path / "r.json").read_bytes())
    assert run.suite.version == "1.1.0" and run.models[0].metrics.overall.rate == 100.0


def test_cli_corrupt_and_missing_cassettes(recorded: tuple[Suite, Path], tmp_path: Path) -> None:
    suite, cassettes = recorded
    directory = cassettes / MODEL_DIR
    corrupt = directory / "sel-01.json"
    corrupt.write_bytes(corrupt.read_bytes()[:100])
    (directory / "none-01.json").unlink()
    suite_path = write(suite, tmp_path / "suite.json")
    out = tmp_path / "r.json"

    result = invoke("rescore", str(cassettes), "--suite", str(suite_path), "--json", str(out))
    assert result.exit_code == Exit.UNREADABLE
    assert result.stderr.strip().splitlines()[-2:] == [
        "lobrec: gate failed: 1 unreadable case in 1 model, as listed above "
        "(--allow-unreadable accepts them)",
        "lobrec: gate failed: 1 stale or unrecorded case in 1 model, as listed above "
        "(--allow-stale accepts them)",
    ]
    assert result.stderr.strip().splitlines()[-3] == (
        "lobrec: fixture/oracle: 1 stale or unrecorded (none-01); 1 unreadable (sel-01). "
        f"Record them with: lobrec record --model fixture/oracle --cassettes {cassettes} "
        f"--suite {suite_path} --missing && lobrec record --model fixture/oracle --cassettes {cassettes} "
        f"--suite {suite_path} --case sel-01"
    )
    (model,) = decode_results(out.read_bytes()).models
    by_id = {c.id: c for c in model.cases}
    assert by_id["sel-01"].status == "errored"
    assert by_id["sel-01"].reason is not None and by_id["sel-01"].reason.startswith(
        f"{corrupt}: not valid JSON"
    )
    assert by_id["none-01"].status == "unrecorded"
    assert [by_id[i].status for i in ("arg-01", "par-01", "chain-01")] == ["scored"] * 3
    assert (model.counts.scored, model.counts.errored, model.counts.unrecorded) == (3, 1, 1)

    # Each allowance passes its own kind only.
    stale_only = invoke("rescore", str(cassettes), "--suite", str(suite_path), "--allow-stale")
    assert stale_only.exit_code == Exit.UNREADABLE
    unreadable_only = invoke("rescore", str(cassettes), "--suite", str(suite_path), "--allow-unreadable")
    assert unreadable_only.exit_code == Exit.INCOMPLETE
    allowed = invoke(
        "rescore", str(cassettes), "--suite", str(suite_path), "--allow-stale", "--allow-unreadable"
    )
    assert allowed.exit_code == Exit.OK


def test_cli_missing_records_only_what_replay_lacks(
    fake_gateway: Any, recorded: tuple[Suite, Path], tmp_path: Path
) -> None:
    suite, cassettes = recorded
    (cassettes / MODEL_DIR / "par-01.json").unlink()
    suite_path = write(suite, tmp_path / "suite.json")
    fake_gateway.reset()
    result = invoke(
        "record",
        "--model",
        MODEL,
        "--base-url",
        fake_gateway.url,
        "--suite",
        str(suite_path),
        "--cassettes",
        str(cassettes),
        "--missing",
    )
    assert result.exit_code == Exit.OK, result.stderr
    assert {entry["case"] for entry in fake_gateway.log()} == {"par-01"}
    assert invoke("rescore", str(cassettes), "--suite", str(suite_path)).exit_code == Exit.OK


def test_cli_refuses_a_remote_gateway_without_a_key(
    small_suite_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOBSTACK_API_KEY", raising=False)
    monkeypatch.delenv("LOBSTACK_BASE_URL", raising=False)
    result = invoke(
        "record", "--model", MODEL, "--suite", str(small_suite_path), "--cassettes", str(tmp_path / "c")
    )
    assert result.exit_code == Exit.BAD_INPUT
    assert result.stderr.strip() == (
        "lobrec: LOBSTACK_API_KEY is not set; it is required for https://www.lobstack.ai/api/gateway/v1 "
        "(only a loopback gateway runs without a key)"
    )
    assert not (tmp_path / "c").exists()


def test_replay_is_offline_and_never_sleeps(
    fake_gateway: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = load(fake_gateway.suite_path)
    fake_gateway.faults([{"model": MODEL, "case": "sel-01", "faults": ["429", "503", "504"]}])

    async def no_wait(seconds: float) -> None:
        return None

    options = RecordOptions(models=[MODEL], cassettes=tmp_path / "cassettes")
    live = asyncio.run(
        record_waiting_with(no_wait, suite, resolve_gateway(fake_gateway.url, {}), options)
    ).run

    slept: list[float] = []

    async def spy(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", spy)
    replayed = asyncio.run(rescore(suite, tmp_path / "cassettes")).run
    assert [seconds for seconds in slept if seconds != 0] == []  # sleep(0) only yields to the loop
    assert encode_results(replayed) == encode_results(live)
    sel = next(c for c in replayed.models[0].cases if c.id == "sel-01")
    assert [call.status for call in sel.api_calls] == [429, 503, 504, 200]


def refuse_the_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A guard for this test only: every way Python opens a connection or resolves a name records
    the attempt and raises. Replay itself installs nothing of the kind."""
    attempts: list[str] = []

    def refuse(name: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            attempts.append(name)
            raise OSError(f"the test refuses {name}")

        return refused

    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, refuse(name))
    for name in ("create_connection", "getaddrinfo"):
        monkeypatch.setattr(socket, name, refuse(name))
    return attempts


def test_replay_sends_nothing_to_the_network(
    fake_gateway: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = load(fake_gateway.suite_path)
    live = do_record(fake_gateway, suite, tmp_path / "cassettes")
    attempts = refuse_the_network(monkeypatch)
    replayed = asyncio.run(rescore(suite, tmp_path / "cassettes")).run
    assert attempts == []
    assert encode_results(replayed) == encode_results(live)


class _Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.sendall(self.request.recv(64))


def test_a_thread_using_loopback_during_a_rescore_keeps_its_network(
    fake_gateway: Any, tmp_path: Path
) -> None:
    """Replay touches nothing outside itself: while a rescore is replaying its first case, another
    thread of the same program connects to a loopback server and gets its echo back."""
    suite = load(fake_gateway.suite_path)
    live = do_record(fake_gateway, suite, tmp_path / "cassettes")
    replaying, talked = threading.Event(), threading.Event()
    echoes: list[bytes | str] = []

    class Meeting(Progress):
        def started(self, model: str, case_id: str) -> None:
            if not replaying.is_set():
                replaying.set()
                assert talked.wait(60), "the other thread never finished its exchange"

    def talk(port: int) -> None:
        replaying.wait(60)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
                connection.sendall(b"ping")
                echoes.append(connection.recv(64))
        except Exception as exc:  # the failure is the finding
            echoes.append(f"{type(exc).__name__}: {exc}")
        finally:
            talked.set()

    with socketserver.TCPServer(("127.0.0.1", 0), _Echo) as server:
        serving = threading.Thread(target=server.serve_forever, daemon=True)
        serving.start()
        other = threading.Thread(target=talk, args=(server.server_address[1],))
        other.start()
        try:
            replayed = asyncio.run(rescore(suite, tmp_path / "cassettes", Meeting())).run
        finally:
            replaying.set()
            other.join(60)
            server.shutdown()
    assert echoes == [b"ping"]
    assert encode_results(replayed) == encode_results(live)
