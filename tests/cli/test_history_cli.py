"""`lobrec history` end to end: results files made by rescoring the committed cassettes (at the
kept suite 1.1.0, at 1.3.0, one group only), the committed expected results, and variants built
from them (a model re-recorded worse), read by the real command into every format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.results import Recording, RunResult, decode_results, encode_results
from lobrec.core.suite.versioning import diff_suites
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "fixtures" / "cassettes"
EXPECTED = ROOT / "fixtures" / "expected-results.json"
KEPT = ROOT / "suite" / "history" / "1.1.0.json"


def lobrec(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Results files rescored from the committed cassettes: at 1.1.0, and the selection group only."""
    out = tmp_path_factory.mktemp("history")
    files = {"1.1.0": out / "at-1.1.0.json", "selection": out / "selection.json"}
    for args in (
        ["--suite", str(KEPT), "--json", str(files["1.1.0"])],
        ["--group", "selection", "--json", str(files["selection"])],
    ):
        done = lobrec("rescore", str(CASSETTES), *args)
        assert done.exit_code in (0, 1, 4), done.stderr
    return files


def _history(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_bytes())
    return data


def _steps(data: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {
        (model["model"], point["run"]): point["step"]
        for model in data["models"]
        for point in model["points"]
        if point["step"] is not None
    }


def test_rescored_files_across_suite_versions(made: dict[str, Path], tmp_path: Path) -> None:
    """1.1.0 then 1.3.0 of the same cassettes: every step rescored, only the cases whose request and
    checks held compared, and re-judging the same recordings on unchanged checks moves no case."""
    out = {kind: tmp_path / f"history.{kind}" for kind in ("md", "html", "json")}
    done = lobrec(
        "history",
        str(made["1.1.0"]),
        str(EXPECTED),
        "--markdown",
        str(out["md"]),
        "--html",
        str(out["html"]),
        "--json",
        str(out["json"]),
    )
    assert done.exit_code == Exit.OK, done.stderr
    data = _history(out["json"])
    assert [run["suite"]["version"] for run in data["runs"]] == ["1.1.0", "1.3.0"]
    assert [run["suite_changed"] for run in data["runs"]] == [False, True]
    old, new = load_suite(KEPT), load_suite()
    changes = diff_suites(old, new)
    changed = {case for kind in ("added", "removed", "request", "checks") for case in changes.cases(kind)}  # type: ignore[arg-type]
    left_out = len({case.id for case in old.cases} & changed)
    steps = _steps(data)
    assert len(steps) == 10
    for (model, _), step in steps.items():
        assert step["provenance"] == "rescored", model
        assert step["comparable"] and step["suite_changed"]
        assert step["left_out"] == left_out
        assert step["cases"] == 80 - left_out
        assert (step["worse"], step["better"], step["verdict"]) == (0, 0, "none"), model
    assert "History of 2 results files: lobstack-tools 1.1.0 → lobstack-tools 1.3.0" in done.stdout
    assert "#2 is on suite lobstack-tools 1.3.0 (§), #1 on lobstack-tools 1.1.0." in done.stdout
    assert "10 steps tested: 0 found real by the paired test." in done.stdout
    markdown = out["md"].read_text()
    assert f"{left_out} cases left out: changed from 1.1.0 to 1.3.0" in markdown
    assert "rescored (same recordings)" in markdown
    page = out["html"].read_text()
    assert page.count('<g class="series"') == 10
    assert "§ suite 1.3.0" in page


def _re_recorded_worse(tmp_path: Path) -> Path:
    """The expected results with fixture/oracle's entry replaced by fixture/sloppy's answers, as if
    oracle had been recorded again (a later start) and done worse."""
    run = decode_results(EXPECTED.read_bytes())
    sloppy = next(model for model in run.models if model.model == "fixture/sloppy")
    recorded = [
        msgspec.structs.replace(recording, started_at="2026-12-24T09:00:00+00:00")
        for recording in sloppy.recorded
    ]
    models = [
        msgspec.structs.replace(sloppy, model="fixture/oracle", recorded=recorded)
        if model.model == "fixture/oracle"
        else model
        for model in run.models
    ]
    path = tmp_path / "later.json"
    path.write_bytes(encode_results(msgspec.structs.replace(run, models=models)))
    return path


def test_a_real_drop_is_flagged_in_every_format(tmp_path: Path) -> None:
    later = _re_recorded_worse(tmp_path)
    out = {kind: tmp_path / f"history.{kind}" for kind in ("md", "html", "json")}
    done = lobrec(
        "history", str(EXPECTED), str(later), "--json", str(out["json"]),
        "--markdown", str(out["md"]), "--html", str(out["html"]),
    )  # fmt: skip
    assert done.exit_code == Exit.OK, done.stderr
    run = decode_results(EXPECTED.read_bytes())
    by_name = {model.model: model for model in run.models}
    expected = compare(by_name["fixture/oracle"], by_name["fixture/sloppy"])
    step = _steps(_history(out["json"]))[("fixture/oracle", 2)]
    assert step["provenance"] == "recorded"
    assert (step["worse"], step["better"], step["p_value"]) == (expected.b, expected.c, expected.p_value)
    assert step["verdict"] == "worse"
    assert step["delta"] == -50.0
    others = [s for key, s in _steps(_history(out["json"])).items() if key[0] != "fixture/oracle"]
    assert {(s["verdict"], s["provenance"]) for s in others} == {("none", "rescored")}
    test = f"exact McNemar p<0.001 on 80 cases ({expected.b} worse, 0 better)"
    assert f"fixture/oracle #1 → #2: ▼ worse, -50.0 pp; {test}; new recordings" in done.stdout
    assert "10 steps tested: 1 found real by the paired test:" in done.stdout
    assert "| fixture/oracle | 100.0% | 50.0% ▼ |" in out["md"].read_text()
    assert '<td class="num worse" title="fixture/oracle #1 → #2: ▼ worse' in out["html"].read_text()


def test_a_subset_is_compared_on_the_cases_both_files_hold(made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "history.json"
    done = lobrec("history", str(EXPECTED), str(made["selection"]), "--json", str(out))
    assert done.exit_code == Exit.OK, done.stderr
    selection = sum(1 for case in load_suite().cases if case.group == "selection")
    steps = _steps(_history(out))
    assert len(steps) == 10
    assert {step["cases"] for key, step in steps.items() if key[0] != "fixture/flaky"} == {selection}


def test_models_in_some_files_only(tmp_path: Path) -> None:
    run = decode_results(EXPECTED.read_bytes())
    few = tmp_path / "few.json"
    few.write_bytes(encode_results(RunResult(suite=run.suite, models=run.models[:2])))
    out = tmp_path / "history.md"
    done = lobrec("history", str(few), str(EXPECTED), str(few), "--markdown", str(out))
    assert done.exit_code == Exit.OK, done.stderr
    third = run.models[2]
    row = next(line for line in out.read_text().splitlines() if line.startswith(f"| {third.model} |"))
    assert row.endswith(f"| · | {third.metrics.overall.rate:.1f}% | · |")


def test_files_given_out_of_order_are_noted(tmp_path: Path) -> None:
    run = decode_results(EXPECTED.read_bytes())
    early = tmp_path / "early.json"
    stamp = "2026-01-01T00:00:00+00:00"
    models = [
        msgspec.structs.replace(
            model,
            recorded=[
                Recording(
                    run=1, suite=model.suite, lobrec_version="0.1.0", started_at=stamp, finished_at=None
                )
            ],
        )
        for model in run.models
    ]
    early.write_bytes(encode_results(msgspec.structs.replace(run, models=models)))
    done = lobrec("history", str(EXPECTED), str(early))
    assert done.exit_code == Exit.OK, done.stderr
    names = ", ".join(model.model for model in run.models[:3])
    assert (
        f"#2 holds older recordings of {names} and {len(run.models) - 3} more than an earlier file does: "
        "files are shown in the order given; were they given out of order?" in " ".join(done.stdout.split())
    )


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda tmp: [tmp / "absent.json", EXPECTED],
            "{0}: cannot read the results file: No such file or directory",
        ),
        (lambda tmp: [EXPECTED], "{0}: history needs two results files or more, oldest first"),
        (lambda tmp: [EXPECTED, CASSETTES], "{1}: not a regular file"),
    ],
    ids=["missing", "one file", "a folder"],
)
def test_bad_input_is_one_line_naming_the_file(tmp_path: Path, make: Any, message: str) -> None:
    paths = make(tmp_path)
    done = lobrec("history", *map(str, paths))
    assert done.exit_code == Exit.BAD_INPUT
    assert done.stderr == f"lobrec: {message.format(*paths)}\n"


def test_a_file_that_is_not_results_json_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": 1}')
    done = lobrec("history", str(EXPECTED), str(bad))
    assert done.exit_code == Exit.BAD_INPUT
    assert done.stderr.startswith(f"lobrec: {bad}: not a lobrec results file: ")
    assert done.stderr.count("\n") == 1


def test_two_reports_to_stdout_are_refused() -> None:
    done = lobrec("history", str(EXPECTED), str(EXPECTED), "--json", "-", "--markdown", "-")
    assert done.exit_code == Exit.BAD_INPUT
    assert "--markdown and --json all write to stdout (-)" in done.stderr


def test_json_to_stdout_is_the_history_alone() -> None:
    done = lobrec("history", str(EXPECTED), str(EXPECTED), "--json", "-")
    assert done.exit_code == Exit.OK
    data = json.loads(done.stdout)
    assert [run["run"] for run in data["runs"]] == [1, 2]


def test_a_version_lobrec_does_not_ship_is_compared_once_its_file_is_given(tmp_path: Path) -> None:
    """1.3.0 then an unshipped 1.4.0 (the same cases): not comparable until `--suite` gives 1.4.0."""
    suite = json.loads((ROOT / "suite" / "suite.json").read_bytes())
    custom = tmp_path / "suite-1.4.0.json"
    custom.write_text(json.dumps({**suite, "version": "1.4.0"}))
    later = tmp_path / "at-1.4.0.json"
    done = lobrec("rescore", str(CASSETTES), "--suite", str(custom), "--json", str(later))
    assert done.exit_code in (0, 1, 4), done.stderr
    out = tmp_path / "history.json"
    assert lobrec("history", str(EXPECTED), str(later), "--json", str(out)).exit_code == Exit.OK
    blind = _steps(_history(out))
    assert {(step["comparable"], step["p_value"]) for step in blind.values()} == {(False, None)}
    assert {step["reason"] for step in blind.values()} == {
        "suite 1.4.0 not found: give its file with --suite to compare the cases whose checks did not change"
    }
    done = lobrec("history", str(EXPECTED), str(later), "--suite", str(custom), "--json", str(out))
    assert done.exit_code == Exit.OK, done.stderr
    seen = _steps(_history(out))
    assert {(step["comparable"], step["left_out"], step["verdict"]) for step in seen.values()} == {
        (True, 0, "none")
    }
    assert {step["cases"] for key, step in seen.items() if key[0] != "fixture/flaky"} == {80}


def test_a_suite_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    done = lobrec("history", str(EXPECTED), str(EXPECTED), "--suite", str(missing))
    assert done.exit_code == Exit.BAD_INPUT
    assert done.stderr == f"lobrec: {missing}: cannot read the suite file: No such file or directory\n"


def test_a_narrow_terminal_gets_the_table_in_parts_and_never_a_cut_cell(tmp_path: Path) -> None:
    later = _re_recorded_worse(tmp_path)
    files = [str(EXPECTED), str(EXPECTED), str(later), str(EXPECTED)]
    done = CliRunner().invoke(app, ["history", *files], env={"COLUMNS": "40"})
    assert done.exit_code == Exit.OK, done.stderr
    assert "…" not in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 40
    headers = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("Model ")]
    assert [run for header in headers for run in header] == ["#1", "#2", "#3", "#4"]
    assert len(headers) > 1
    # a line per file instead of the files' table; a path longer than the line is folded, not cut
    assert f"#3:{later},suitelobstack-tools1.3.0,newestrecording" in "".join(done.stdout.split())
