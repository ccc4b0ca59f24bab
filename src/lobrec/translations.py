"""The bundled suite's patterns, translated into RE2's syntax at build time.

Translating an ECMA-262 pattern (`lobrec.core.suite.ecma`) is the costly part of loading a suite: suite
1.3.0's built clock-time checks run to 30,000 characters, and translating its 111 patterns took
0.3 s of every rescore, longer than judging a dozen models. `suite/build.py` writes the translations
of every shipped suite's patterns beside the suite (`translations.json`), with a fingerprint of the
translator's source; `load_suite` hands them to `compile_ecma`, which then only compiles them.

A file whose fingerprint is not today's translator's (the translator changed since the build), or
that cannot be read, is ignored: every pattern is then translated as before, so the file can only
make a run faster, never judge differently. The test suite holds it to what a fresh translation
gives (`tests/suite/test_translations.py`).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import msgspec

from lobrec.core.suite import ecma, ecmasyntax
from lobrec.core.suite.ecma import Translation

FILE_NAME = "translations.json"


class Entry(msgspec.Struct, frozen=True, array_like=True):
    pattern: str
    ignore_case: bool
    translation: Translation


class TranslationsFile(msgspec.Struct, frozen=True):
    translator: str
    """`translator_fingerprint()` of the code that made the translations."""
    patterns: list[Entry]


def translator_fingerprint() -> str:
    """A digest of the translator's source: a translation made by other code is not used."""
    digest = hashlib.sha256()
    for module in (ecma, ecmasyntax):
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()


def encode_translations(translations: dict[tuple[str, bool], Translation]) -> bytes:
    """The file `suite/build.py` writes: the translations in a stable order, one per line."""
    entries = [
        Entry(pattern, ignore_case, translations[pattern, ignore_case])
        for pattern, ignore_case in sorted(translations)
    ]
    file = TranslationsFile(translator=translator_fingerprint(), patterns=entries)
    return msgspec.json.format(msgspec.json.encode(file), indent=1) + b"\n"


def read_translations(path: Path) -> dict[tuple[str, bool], Translation] | None:
    """The translations in `path` when today's translator made them, else None."""
    try:
        file = msgspec.json.decode(path.read_bytes(), type=TranslationsFile)
        current = translator_fingerprint()
    except (OSError, msgspec.DecodeError):
        return None
    if file.translator != current:
        return None
    return {(entry.pattern, entry.ignore_case): entry.translation for entry in file.patterns}


@functools.cache
def remember_bundled(folder: Path) -> bool:
    """Hand the translations kept in `folder` (the bundled suite's) to `compile_ecma`, once per
    process; whether there were any to use."""
    found = read_translations(folder / FILE_NAME)
    if found is not None:
        ecma.remember_translations(found)
    return found is not None
