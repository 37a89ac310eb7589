"""`tests.cpu_profile`'s summary: the CPU totals per worker, and the tail (the wall seconds one worker still ran after
the other's last test), which needs each phase's wall clock; files written before it had none and show no tail."""

from __future__ import annotations

import json

from tests.cpu_profile import summary


def _write(folder, worker: str, rows: list) -> None:
    (folder / f"{worker}.json").write_text(json.dumps(rows), encoding="utf-8")


def test_the_tail_is_how_long_the_last_worker_ran_on_alone(tmp_path):
    _write(tmp_path, "gw0", [["<collect>", "collect", 1.0, 100.0], ["t.py::a", "call", 2.0, 103.0],
                             ["t.py::a", "teardown", 0.5, 104.5], ["<total>", "total", 4.0, 105.0]])
    _write(tmp_path, "gw1", [["<collect>", "collect", 1.5, 100.0], ["u.py::b", "setup", 1.0, 102.0],
                             ["u.py::b", "call", 3.0, 111.0], ["<total>", "total", 6.0, 112.0]])
    lines = summary(str(tmp_path)).splitlines()
    assert lines[0] == "run 10.0 CPU-s; workers gw0 4.0, gw1 6.0"
    assert lines[2] == "tests 6.5 CPU-s in 2 tests"
    assert lines[3] == "tail 6.5 s: gw1 ran on after the first worker's last test ended"
    assert lines[5:7] == ["   4.00  u.py", "   2.50  t.py"]


def test_rows_without_a_wall_clock_or_one_worker_give_no_tail(tmp_path):
    _write(tmp_path, "gw0", [["t.py::a", "call", 2.0], ["<total>", "total", 2.0]])
    _write(tmp_path, "gw1", [["u.py::b", "call", 1.0], ["<total>", "total", 1.0]])
    assert "tail" not in summary(str(tmp_path))
    (tmp_path / "gw1.json").unlink()
    _write(tmp_path, "main", [["t.py::a", "call", 2.0, 103.0], ["<total>", "total", 2.0, 104.0]])
    assert "tail" not in summary(str(tmp_path))
