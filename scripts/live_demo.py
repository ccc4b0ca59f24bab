"""`make live-demo`: the live path end to end, with no key and no network beyond loopback.

Starts the fake gateway as its own process, records `fixture/sloppy` through `lobrec record`, then
re-judges the recording offline with `lobrec rescore`, as a user would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from lobrec.fakegateway import start_fake_gateway_process, stop_fake_gateway_process

ROOT = Path(__file__).resolve().parents[1]
LOBREC = str(Path(sys.executable).with_name("lobrec"))


def main() -> int:
    out = ROOT / "out"
    cassettes = out / "live-cassettes"
    shutil.rmtree(cassettes, ignore_errors=True)
    process, url = start_fake_gateway_process(ROOT / "suite" / "suite.json", latency_ms=50)
    try:
        print(f"$ lobrec record --model fixture/sloppy --base-url {url} --cassettes {cassettes}", flush=True)
        recorded = subprocess.run(
            [
                LOBREC,
                "record",
                "--model",
                "fixture/sloppy",
                "--base-url",
                url,
                "--cassettes",
                str(cassettes),
                "--json",
                str(out / "live-record.json"),
            ],
            cwd=ROOT,
            check=False,
        )
    finally:
        stop_fake_gateway_process(process)
    if recorded.returncode != 0:
        return recorded.returncode
    print(f"$ lobrec rescore {cassettes}   (offline: the gateway is stopped)", flush=True)
    rescored = subprocess.run(
        [
            LOBREC,
            "rescore",
            str(cassettes),
            "--json",
            str(out / "live-rescore.json"),
            "--html",
            str(out / "live-report.html"),
        ],
        cwd=ROOT,
        check=False,
    )
    same = (out / "live-record.json").read_bytes() == (out / "live-rescore.json").read_bytes()
    print(f"record and rescore results identical: {same}; HTML report: {out / 'live-report.html'}")
    return rescored.returncode or (0 if same else 1)


if __name__ == "__main__":
    sys.exit(main())
