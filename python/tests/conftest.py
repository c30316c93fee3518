"""Fixtures of the Python tests: the `ftl` binary built from this checkout (the CLI every Python result is
compared with), the real traces and text captures of ../shared beside the project, and the committed
synthetic traces."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
TRACES = sorted((SHARED / "traces").glob("*trace"))
TEXT = sorted(p for p in (SHARED / "text").glob("*.txt"))
SYNTHETIC = sorted((ROOT / "testdata").glob("synthetic_*"))

if not TRACES:
    raise RuntimeError(f"the Python tests need the real traces of {SHARED / 'traces'} beside the project")


def _build_cli() -> Path:
    """`ftl` from this checkout: $FTL_BIN, or `cargo build --bin ftl` (debug, as CI's `cargo test` leaves it)."""
    if os.environ.get("FTL_BIN"):
        return Path(os.environ["FTL_BIN"])
    out = subprocess.run(
        ["cargo", "build", "--quiet", "--bin", "ftl", "--message-format=json"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            return Path(msg["executable"])
    raise RuntimeError("cargo build did not report the ftl executable")


@pytest.fixture(scope="session")
def cli() -> Path:
    return _build_cli()


@pytest.fixture(scope="session")
def run_cli(cli):
    def run(*args: object, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(cli), *map(str, args)], check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    return run


def ids(paths: List[Path]) -> List[str]:
    return [p.name for p in paths]
