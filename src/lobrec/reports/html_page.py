"""The HTML pages' one home for markup: Jinja2 templates with autoescaping, CSS and JavaScript files.

Every page (the report, and any page that extends `templates/base.html.j2`) is one self-contained
file: the package's CSS and scripts are read from `static/` and inlined at render, and a
Content-Security-Policy forbids network loads, so a page works offline and leaks nothing.

Safety does not depend on remembering an escape call: the environment autoescapes every value,
and its `finalize` first spells out control characters and bidi overrides (`printable`), so a
model's reply holding `<script>` or an ANSI escape is shown as text. `Markup` is for the few
strings built here safely (the inlined CSS and scripts, and JSON made by `json_for_script`).
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from jinja2.ext import Extension
from markupsafe import Markup

from lobrec._version import __version__
from lobrec.reports._text import printable
from lobrec.reports.markdown_syntax import no_pings

CSP = Markup("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:")
"""The pages' policy: nothing loads from the network; styles and scripts are inline."""


def _as_text(value: object, *, keep_newlines: bool = False) -> Markup:
    """Any value as HTML text: control characters spelled out, then `html.escape(quote=True)`
    (the escaping the reports have always used: `&quot;` and `&#x27;` in attributes)."""
    return Markup(html.escape(printable(str(value), keep_newlines=keep_newlines), quote=True))


def _finalize(value: object) -> object:
    """What `{{ value }}` prints: markup as it is, anything else as escaped text."""
    return value if isinstance(value, Markup) else _as_text(value)


def multiline(value: object) -> Markup:
    """A filter for blocks shown as they are (`<pre>`, messages): line breaks and tabs kept."""
    return value if isinstance(value, Markup) else _as_text(value, keep_newlines=True)


def pings_nobody(value: object) -> Markup:
    """A filter for HTML that GitHub renders (the job summary): escaped, then no `@name` mention
    or `#12` reference (`markdown.no_pings`)."""
    return Markup(no_pings(_as_text(value)))


def json_for_script(value: Any) -> Markup:
    """JSON safe inside `<script type="application/json">`: `<`, `>` and `&` as \\u escapes, so no
    value can close the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    # A lone surrogate has no UTF-8 form: spelled out (`\\ud800` shows as text), as reports spell it.
    text = _SURROGATE.sub(lambda found: f"\\\\u{ord(found.group()):04x}", text)
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@cache
def static(name: str) -> Markup:
    """A CSS or JavaScript file of the package, to inline into a page (ours: trusted markup)."""
    return Markup(files("lobrec.reports").joinpath("static", name).read_text(encoding="utf-8"))


_SURROGATE = re.compile("[\ud800-\udfff]")

NL = Markup("\n")
"""A line break in the output: the templates' own line breaks are layout only (see `_Compact`)."""


class _Compact(Extension):
    """Template source lines are joined, each line break and the indentation after it dropped, so
    templates are laid out for reading while the page stays as compact as hand-built markup (and
    no stray space lands inside an inline element). A break wanted in the output is `{{ NL }}`;
    a tag is written on one line."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n[ \t]*", "", source)


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("lobrec.reports", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        finalize=_finalize,
        extensions=[_Compact],
    )
    env.filters["multiline"] = multiline
    env.filters["no_pings"] = pings_nobody
    env.globals.update(NL=NL, csp=CSP, version=__version__, css=static("report.css"))
    return env


def render_template(template: str, **context: Any) -> str:
    """A page from a template that extends `base.html.j2` (`script`, Markup, optional: the page's
    own JavaScript, inlined at the end of the body), or an HTML fragment of another format (the
    job summary's `<details>` blocks), with the same autoescaping."""
    return environment().get_template(template).render(**context)
