"""`lobrec diff` on the committed cassettes: directories and results files, and its errors."""

from __future__ import annotations

from pathlib import Path

import msgspec
from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.metrics.results import RunResult, decode_results, encode_results

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "fixtures" / "cassettes" / "fixture%2Foracle"
SLOPPY = ROOT / "fixtures" / "cassettes" / "fixture%2Fsloppy"


def expected() -> dict[str, set[str]]:
    run = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    return {m.model: {c.id for c in m.cases if c.passed} for m in run.models}


def test_diff_of_two_model_directories(tmp_path: Path) -> None:
    out = tmp_path / "diff.md"
    result = CliRunner().invoke(app, ["diff", str(ORACLE), str(SLOPPY), "--markdown", str(out)])
    assert result.exit_code == Exit.OK, result.stderr
    passed = expected()
    flips = sorted(passed["fixture/oracle"] - passed["fixture/sloppy"])
    text = out.read_text()
    assert f"Discordant: b = {len(flips)} (A passed, B failed), c = 0 (A failed, B passed)." in text
    assert "Exact McNemar test: B is worse, p\\<0.001." in text


def test_diff_accepts_results_files_with_one_model(tmp_path: Path) -> None:
    run = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    for model in run.models[:2]:
        one = RunResult(suite=run.suite, models=[model])
        (tmp_path / f"{model.model.replace('/', '_')}.json").write_bytes(encode_results(one))
    a, b = sorted(tmp_path.glob("*.json"))
    result = CliRunner().invoke(app, ["diff", str(a), str(a)])
    assert result.exit_code == Exit.OK
    assert "no significant difference" in result.stdout
    assert CliRunner().invoke(app, ["diff", str(a), str(b)]).exit_code == Exit.OK


def test_diff_explains_a_bad_side(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["diff", str(ROOT / "fixtures" / "cassettes"), str(ORACLE)])
    assert result.exit_code == Exit.BAD_INPUT
    assert result.stderr.strip() == (
        f"lobrec: {ROOT / 'fixtures' / 'cassettes'}: not a model cassette directory (no manifest.json); "
        "name e.g. cassettes/auto"
    )
    several = CliRunner().invoke(app, ["diff", str(ROOT / "fixtures" / "expected-results.json"), str(ORACLE)])
    assert several.exit_code == Exit.BAD_INPUT
    assert "holds 10 models" in several.stderr


def test_all_lists_every_flipped_case_where_the_default_cuts_at_twenty() -> None:
    eager = ROOT / "fixtures" / "cassettes" / "fixture%2Feager"
    short = CliRunner().invoke(app, ["diff", str(ORACLE), str(eager)])
    every = CliRunner().invoke(app, ["diff", str(ORACLE), str(eager), "--all"])
    assert short.exit_code == every.exit_code == 0
    assert "Pass → fail (80): " in short.stdout and "and 60 more" in short.stdout
    listed = every.stdout.split("Pass → fail (80): ", 1)[1].replace("\n", " ").split(", ")
    assert "and 60 more" not in every.stdout
    assert len([item for item in listed if item.strip()]) == 80


def test_a_latency_change_agrees_with_the_latencies_printed(tmp_path: Path) -> None:
    """23.3 ms against 23.5 ms prints both with a decimal and +0.2 ms, never `23 ms 24 ms 0 ms worse`."""
    run = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    model = run.models[0]
    sides = []
    for name, p50 in (("a", 23.3), ("b", 23.5)):
        metrics = msgspec.structs.replace(model.metrics, latency_p50_ms=p50)
        one = RunResult(suite=run.suite, models=[msgspec.structs.replace(model, metrics=metrics)])
        (tmp_path / f"{name}.json").write_bytes(encode_results(one))
        sides.append(str(tmp_path / f"{name}.json"))
    result = CliRunner().invoke(
        app, ["diff", *sides, "--markdown", str(tmp_path / "diff.md")], env={"COLUMNS": "120"}
    )
    assert result.exit_code == Exit.OK, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("p50 latency")]
    assert line.split() == ["p50", "latency", "23.3", "ms", "23.5", "ms", "+0.2", "ms", "worse"]
    assert "| p50 latency | 23.3 ms | 23.5 ms | +0.2 ms | worse |" in (tmp_path / "diff.md").read_text()
    same = CliRunner().invoke(app, ["diff", sides[0], sides[0]])
    (line,) = [line for line in same.stdout.splitlines() if line.startswith("p50 latency")]
    assert line.split() == ["p50", "latency", "23", "ms", "23", "ms", "0", "ms"]
