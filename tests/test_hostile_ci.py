"""A hostile pull request against `archgen check` in CI (newuser10): each test starts from the input that showed the
defect, and fails without the fix.

- A spec path that is a named pipe (FIFO), or a `*.yaml` link to one, hung `check` until the CI job's time limit
  (the console script's snapshot key opened it and blocked for a writer); named directly, it was "no such file".
- A rack 1e-200 mm wide and deep raised ZeroDivisionError (its footprint underflowed to 0: a traceback, exit 2), and
  an air `delta_t` of 1e-200 K gave an air flow of 3.7e201 m³/s with exit 0: floors below any hardware (1 mm, 0.1 K).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO, SPECS

fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")


@pytest.fixture
def piped(tmp_path, monkeypatch):
    """A spec tree with one real rack, a named pipe `specs/racks/zz-pipe.yaml` and a link to it."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    os.mkfifo(tmp_path / "specs" / "racks" / "zz-pipe.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _console(cwd, *args: str) -> subprocess.CompletedProcess:
    """`archgen ARGS` as the console script runs it (its specs snapshot included), with a time limit."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-c", "from archgen.cli import main; main()", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


@fifo
@pytest.mark.parametrize("named", ["specs/", "specs/racks/zz-pipe.yaml"], ids=["in-tree", "named"])
def test_a_named_pipe_is_refused_at_once_not_waited_on(piped, named):
    r = _console(piped, "check", named)          # before: never returned (subprocess.TimeoutExpired)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert ("specs/racks/zz-pipe.yaml: error: is a named pipe (FIFO): expected a regular spec file\n"
            "  hint: archgen reads regular files only: remove it from the spec tree") in r.stderr


@fifo
def test_a_link_to_a_named_pipe_is_refused_as_the_pipe_is(tmp_path, monkeypatch, cli):
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    os.mkfifo(tmp_path / "specs" / "racks" / "pipe")
    (tmp_path / "specs" / "racks" / "zz-link.yaml").symlink_to("pipe")
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs/", "--format", "json")  # before: blocked reading the pipe
    assert r.code == 2
    (found,) = json.loads(r.out)["findings"]
    assert (found["id"], found["file"], found["message"]) == (
        "SPC000", "specs/racks/zz-link.yaml", "is a named pipe (FIFO): expected a regular spec file")


@pytest.mark.skipif(os.devnull != "/dev/null", reason="a POSIX device")
def test_a_device_named_as_a_spec_is_refused_unread(cli):
    r = cli("check", os.devnull)                  # before: "no such file or directory"
    assert r.code == 2
    assert f"{os.devnull}: error: is a character device: expected a regular spec file" in r.err


RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("width: 600 mm, depth: 1200 mm", "width: 1e-200 mm, depth: 1e-200 mm",
     "specs/r.yaml:11:54: error: form_factor.width: expected a length of at least 0.001 m (below that no hardware "
     "exists), got '1e-200 mm'"),
    ("delta_t: 16.15 K", "delta_t: 1e-200 K",
     "specs/r.yaml:20:29: error: cooling.air.delta_t: expected a temperature difference of at least 0.1 K (below that "
     "no hardware exists), got '1e-200 K'"),
], ids=["footprint", "air-delta-t"])
def test_a_tiny_divisor_is_refused_where_written(spec_tree, cli, monkeypatch, old, new, expected):
    assert old in RACK
    root = spec_tree({"r.yaml": RACK.replace(old, new)})
    monkeypatch.chdir(root.parent)
    r = cli("check", "specs", "--format", "text")  # before: ZeroDivisionError (exit 2), or exit 0 at 3.7e201 m³/s
    assert r.code == 1 and "Traceback" not in r.err
    assert expected in r.err
