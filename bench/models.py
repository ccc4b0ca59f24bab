"""Benchmark input: any number of model folders, copied from the committed fixture models.

`python -m bench.models N TARGET` writes `TARGET/bench%2Fmodel-000` ... as N copies of the models in
fixtures/cassettes, round-robin (oracle, sloppy, flaky with its three runs, the router `auto`...),
so the copies pass, fail, flip between runs and route as the fixtures do. A copy's request bodies
name its new model, since replay matches on the exact body; everything else is byte for byte the
fixture's, so the copies rescore with the bundled suite, as the fixtures do.

Each fixture cassette is decoded once; a copy only re-encodes it under the new name, so 1,000 models
(81,000 files) take well under a minute to write.
"""

from __future__ import annotations

import argparse
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import msgspec

from lobrec.cassette.format import CassetteFile
from lobrec.cassette.layout import MANIFEST, model_dir_name, model_from_dir_name

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "cassettes"
PREFIX = "bench/model-"


def _model_prefix(model: str) -> str:
    return '{"model":' + msgspec.json.encode(model).decode()


@dataclass(frozen=True)
class _Folder:
    """One folder of a fixture model (the model folder, or one of its `runs/<n>/`), decoded once."""

    relative: Path
    manifest: msgspec.Raw
    cassettes: dict[str, CassetteFile]


@dataclass(frozen=True)
class _Source:
    model: str
    folders: list[_Folder]

    @property
    def files(self) -> int:
        return sum(len(folder.cassettes) + 1 for folder in self.folders)


def _read_folder(directory: Path, relative: Path) -> _Folder:
    decoder = msgspec.json.Decoder(CassetteFile)
    cassettes = {
        path.name: decoder.decode(path.read_bytes())
        for path in sorted(directory.glob("*.json"))
        if path.name != MANIFEST
    }
    return _Folder(
        relative=relative, manifest=msgspec.Raw((directory / MANIFEST).read_bytes()), cassettes=cassettes
    )


def fixture_sources(fixtures: Path = FIXTURES) -> list[_Source]:
    """Every committed fixture model with its run folders, in folder-name order."""
    sources = []
    for directory in sorted(path for path in fixtures.iterdir() if path.is_dir()):
        folders = [_read_folder(directory, Path("."))]
        runs = directory / "runs"
        if runs.is_dir():
            for run in sorted(runs.iterdir(), key=lambda path: int(path.name)):
                folders.append(_read_folder(run, Path("runs") / run.name))
        sources.append(_Source(model=model_from_dir_name(directory.name), folders=folders))
    return sources


def _write_copy(source: _Source, target: Path, new: str) -> int:
    """Write one copy of `source` named `new` under `target`; returns the number of files."""
    old_prefix, new_prefix = _model_prefix(source.model), _model_prefix(new)
    for folder in source.folders:
        directory = target / folder.relative
        directory.mkdir(parents=True)
        manifest = msgspec.json.decode(folder.manifest)
        manifest["model"] = new
        (directory / MANIFEST).write_bytes(msgspec.json.encode(manifest))
        for name, cassette in folder.cassettes.items():
            for interaction in cassette.interactions:
                body = interaction.request.body or ""
                if not body.startswith(old_prefix):
                    raise SystemExit(
                        f"bench: {source.model}/{name}: a request body not starting {old_prefix}"
                    )
                interaction.request.body = new_prefix + body[len(old_prefix) :]
            (directory / name).write_bytes(msgspec.json.encode(cassette))
            for interaction in cassette.interactions:  # leave the decoded source as it was
                body = interaction.request.body or ""
                interaction.request.body = old_prefix + body[len(new_prefix) :]
    return source.files


def model_name(index: int) -> str:
    return f"{PREFIX}{index:04d}"


def copy_models(count: int, target: Path, sources: list[_Source] | None = None) -> int:
    """Write `count` copies of the fixture models into `target` (emptied first); returns the files."""
    sources = sources if sources is not None else fixture_sources()
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    files = 0
    for index in range(count):
        new = model_name(index)
        files += _write_copy(sources[index % len(sources)], target / model_dir_name(new), new)
    return files


def link_prefix(largest: Path, count: int, target: Path) -> None:
    """A tree of the first `count` models of `largest`, hard-linked (no extra disk, same bytes)."""
    shutil.rmtree(target, ignore_errors=True)
    for index in range(count):
        name = model_dir_name(model_name(index))
        for path in (largest / name).rglob("*"):
            there = target / name / path.relative_to(largest / name)
            if path.is_dir():
                there.mkdir(parents=True, exist_ok=True)
            else:
                there.parent.mkdir(parents=True, exist_ok=True)
                os.link(path, there)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="how many model folders")
    parser.add_argument("target", type=Path, help="the folder to write them into (emptied first)")
    options = parser.parse_args()
    files = copy_models(options.count, options.target)
    print(f"{options.count} models, {files} files: {options.target}")


if __name__ == "__main__":
    main()
