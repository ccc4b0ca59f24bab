"""JUnit and the job summary hold every run of `record --repeat 3`, not run 1 only.

fixture/flaky is recorded three times with the real `lobrec` command against the fake gateway
process; its script (docs/fake-gateway.md, and tests/running/test_flaky_repeats.py) fails:

    run 1: near-03, sel-07, near-08            77/80
    run 2: arg-02, chain-02, arg-09, near-08   76/80
    run 3: sel-03, par-04, arg-09, near-08     76/80

so eight cases failed in some run, seven of them flaky (near-08 failed every run).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from lobrec.cli import Exit
from lobrec.fakegateway import FLAKY
from tests.support.cli import run_lobrec
from tests.support.gateway import running_gateway

pytestmark = pytest.mark.process  # a fake gateway process serves the module

ROOT = Path(__file__).resolve().parents[2]
FAILED_SOMEWHERE = {"near-03", "sel-07", "near-08", "arg-02", "chain-02", "arg-09", "sel-03", "par-04"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, _clean_proxy_environment: None) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("repeats")
    junit, summary = out / "junit.xml", out / "summary.md"
    with running_gateway(ROOT / "suite" / "suite.json") as gateway:
        done = run_lobrec(
            ["record", "--model", FLAKY, "--repeat", "3", "--base-url", gateway.url,
             "--cassettes", str(out / "cassettes"), "--junit", str(junit), "--summary", str(summary)]
        )  # fmt: skip
    assert done.returncode == Exit.OK, done.stderr.decode()
    return junit, summary


def test_junit_fails_every_case_that_failed_in_any_run(exported: tuple[Path, Path]) -> None:
    (testsuite,) = ET.fromstring(exported[0].read_bytes()).findall("testsuite")
    cases = {case.get("name"): case for case in testsuite.findall("testcase")}
    assert len(cases) == 80 and testsuite.get("tests") == "80"
    failing = {name for name, case in cases.items() if case.find("failure") is not None}
    assert failing == FAILED_SOMEWHERE
    assert (testsuite.get("failures"), testsuite.get("errors"), testsuite.get("skipped")) == ("8", "0", "0")

    def failure(name: str) -> ET.Element:
        found = cases[name].find("failure")
        assert found is not None
        return found

    arg02 = failure("arg-02")
    assert arg02.get("type") == "flaky"
    assert (arg02.get("message") or "").startswith(
        "flaky (passed 2 of 3 scored runs): run 1 passed, run 2 failed, run 3 passed; "
    )
    assert re.match(r"run 2: ", arg02.text or "")
    near08 = failure("near-08")
    assert near08.get("type") == "fail"
    assert (near08.get("message") or "").startswith("run 1 failed, run 2 failed, run 3 failed; ")
    assert [line[:6] for line in (near08.text or "").splitlines() if line.startswith("run ")] == [
        "run 1:",
        "run 2:",
        "run 3:",
    ]
    assert all(case.find("failure") is None for name, case in cases.items() if name not in FAILED_SOMEWHERE)


def test_the_summary_columns_count_every_run_the_same_way(exported: tuple[Path, Path]) -> None:
    text = exported[1].read_text()
    row = next(line for line in text.splitlines() if line.startswith("| fixture/flaky"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    header = ["Model", "Overall", "95% interval", "Passed", "Scored", "Failing", "Errored", "Stale"]
    values = dict(zip(header, cells, strict=True))
    assert values["Passed"] == "229/240"  # 77 + 76 + 76
    assert values["Scored"] == "240/240"
    assert values["Failing"] == "11"  # 3 + 4 + 4
    assert (values["Errored"], values["Stale"]) == ("0", "0")
    passed, scored = (int(values[name].split("/")[0]) for name in ("Passed", "Scored"))
    assert passed + int(values["Failing"]) == scored
    assert "1 failing in every run, 7 flaky" in text
    listed = re.findall(r"^- ([\w-]+) \(", text, flags=re.M)
    assert set(listed) == FAILED_SOMEWHERE
    assert "- near-08 (" in text and "run 1 failed, run 2 failed, run 3 failed" in text
    assert "flaky (passed 2 of 3 scored runs): run 1 passed, run 2 failed, run 3 passed" in text
