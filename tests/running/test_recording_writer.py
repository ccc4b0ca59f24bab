"""The recorder's writer thread (issue 11): files in the order cases finished, manifests coalesced,
and a manifest never names a cassette that is not written yet."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lobrec.running import recording
from lobrec.running.recording import _Writer


def test_a_manifest_never_lists_a_cassette_not_yet_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[tuple[str, bytes]] = []
    real = recording.write_atomic

    def spy(path: Path, data: bytes, mode: int | None = None) -> None:
        real(path, data, mode)
        written.append((path.name, data))

    monkeypatch.setattr(recording, "write_atomic", spy)
    manifest = tmp_path / "manifest.json"

    async def run() -> None:
        writer = _Writer()
        listed: list[str] = []
        saves = []
        for n in range(20):
            listed.append(f"case-{n:02d}.json")
            listing = json.dumps(listed).encode()
            saves.append(asyncio.create_task(writer.save(tmp_path / listed[-1], b"{}", manifest, listing)))
        await asyncio.gather(*saves)
        writer.close()

    asyncio.run(run())
    cassettes_done: set[str] = set()
    manifests = 0
    for name, data in written:
        if name == "manifest.json":
            manifests += 1
            assert set(json.loads(data)) <= cassettes_done
        else:
            cassettes_done.add(name)
    assert len(cassettes_done) == 20
    assert 1 <= manifests <= 20
    assert written[-1][0] == "manifest.json"
    assert len(json.loads(manifest.read_bytes())) == 20


def test_a_write_asked_for_is_done_even_when_the_case_is_cancelled(tmp_path: Path) -> None:
    async def run() -> None:
        writer = _Writer()
        task = asyncio.create_task(writer.save(tmp_path / "a.json", b"{}", tmp_path / "m.json", b"[]"))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        writer.close()

    asyncio.run(run())
    assert (tmp_path / "a.json").read_bytes() == b"{}"
    assert (tmp_path / "m.json").read_bytes() == b"[]"
