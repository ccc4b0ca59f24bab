"""`lobrec diff A B --html OUT` on the committed cassettes: the comparison as a page."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.metrics.compare import Comparison, compare
from lobrec.core.metrics.results import ModelResult, decode_results
from lobrec.reports.diffview import interpretation
from lobrec.reports.html_page import CSP

ROOT = Path(__file__).resolve().parents[3]
CASSETTES = ROOT / "fixtures" / "cassettes"
ORACLE, SLOPPY, FLAKY = (
    str(CASSETTES / name) for name in ("fixture%2Foracle", "fixture%2Fsloppy", "fixture%2Fflaky")
)


def _by_name() -> dict[str, ModelResult]:
    run = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    return {model.model: model for model in run.models}


def _page(tmp_path: Path, a: str, b: str) -> tuple[str, Comparison]:
    """`lobrec diff A B --html`'s page, and the comparison it should show (from the expected results)."""
    page = tmp_path / "diff.html"
    done = CliRunner().invoke(app, ["diff", a, b, "--html", str(page)])
    assert done.exit_code == Exit.OK, done.stderr
    models = _by_name()
    names = [Path(side).name.replace("%2F", "/") for side in (a, b)]
    return page.read_text(encoding="utf-8"), compare(models[names[0]], models[names[1]])


def test_the_page_holds_the_deltas_the_test_and_every_flip(tmp_path: Path) -> None:
    html, expected = _page(tmp_path, ORACLE, SLOPPY)
    assert f'content="{CSP}"' in html
    assert '<h1>fixture/oracle <span class="version">(A)</span> → fixture/sloppy' in html
    overall = (
        '<tr><th scope="row" class="text">Overall</th><td class="num">100.0%</td><td class="num">50.0%</td>'
        '<td class="num">-50.0 pp</td><td class="text"><span class="badge fail">worse</span></td></tr>'
    )
    assert overall in html
    assert f"<p>Exact McNemar test: {interpretation(expected)}.</p>" in html.replace("&lt;", "<")
    assert f"<h3>Pass → fail ({len(expected.pass_to_fail)})</h3>" in html
    for case in expected.pass_to_fail:
        assert f'<code>{case}</code></th><td class="text"><span class="badge pass">✓ pass</span>' in html
    assert f"{expected.both_passed} cases passed in both and {expected.both_failed} failed in both" in html
    assert "Made by lobrec" in html  # the report's layout (base.html.j2)


def test_repeated_runs_show_each_sides_pass_rate(tmp_path: Path) -> None:
    html, expected = _page(tmp_path, FLAKY, SLOPPY)
    assert expected.repeats is not None
    assert f"<h3>Pass rate lower in B ({len(expected.pass_to_fail)})</h3>" in html
    assert (
        '<span class="badge pass">3/3</span></td><td class="text"><span class="badge fail">0/1</span>' in html
    )
    assert f"equal rates on both sides ({expected.repeats.ties} cases) are not listed" in html


def test_html_and_markdown_cannot_both_go_to_stdout() -> None:
    done = CliRunner().invoke(app, ["diff", ORACLE, SLOPPY, "--html", "-", "--markdown", "-"])
    assert done.exit_code == Exit.BAD_INPUT
    assert (
        done.stderr
        == "lobrec: --markdown and --html all write to stdout (-); give all but one of them a file name\n"
    )


def test_a_folder_for_the_page_is_refused_with_a_file_name_to_add(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["diff", ORACLE, SLOPPY, "--html", str(tmp_path)])
    assert done.exit_code == Exit.BAD_INPUT
    assert done.stderr == (
        f"lobrec: --html {tmp_path}: is a folder; give the report a file name "
        f"(e.g. {tmp_path / 'diff.html'})\n"
    )
