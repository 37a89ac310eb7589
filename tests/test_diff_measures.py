"""`archgen diff` reads a move against what stands behind it (diffhonest41, from newuser101's trial of eight PRs).

Each side's model error band beside an estimate and whether the move lies within both; "not comparable" where the
two sides' figures measure different runs (another scenario, job or accelerator count); a part class with no parts
left in HEAD read as 0 interruptions, with why, not "only in BASE".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.compare.diff import MetricChange
from archgen.compare.measures import Measure, unlike
from archgen.output.diff_cells import banded_cells, direction_cell, measure_json
from archgen.units import Q_
from tests.conftest import SPECS, run_cli
from tests.test_diff import copy_specs, metric

SERVE = "workload/llama3-70b-serve-b200"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> tuple[str, dict]:
    """PR8 of newuser101: the shipped offline serving job made a closed loop of 64 requests."""
    head = copy_specs(tmp_path_factory.mktemp("loaded") / "head")
    _edit(head / "workloads" / "llama3-70b.yaml", "  output_len: 256\n",
          "  output_len: 256\n  scenario: concurrency\n  batch: 64\n")
    md, js = run_cli("diff", SPECS, head), run_cli("diff", SPECS, head, "--format", "json")
    assert md.code == js.code == 0, md.err + js.err
    return md.out, json.loads(js.out)


def test_an_offline_figure_is_not_compared_with_a_loaded_one(loaded):
    """TTFT 35.8 ms (one prefill on an idle replica) → 142.7 ms (a loaded mean) read "worse ▲ +299 %"."""
    md, doc = loaded
    [ttft] = [line for line in md.splitlines() if line.startswith(f"| `{SERVE}` | ttft |")]
    assert ttft.endswith("| — | — | not comparable: scenario offline → concurrency |"), ttft
    assert "%" not in ttft and "worse" not in ttft
    m = metric(doc, SERVE, "ttft")
    assert (m["relative"], m["change"], m["direction"]) == (None, None, None)
    assert m["not_comparable"] == "scenario offline → concurrency"
    # every figure of the job's run, not a TTFT special case: throughput too
    assert metric(doc, SERVE, "tokens_per_second")["not_comparable"]
    n = doc["summary"]["metrics_not_comparable"]
    assert n == sum(bool(m["not_comparable"]) for m in doc["metrics"]) > 2
    assert f"{n} not comparable)" in md.splitlines()[2]
    assert doc["summary"]["metrics_worse"] == 0   # none of them counted as a regression


def test_an_estimate_shows_each_sides_band_or_says_it_has_none(loaded):
    md, doc = loaded
    [tpot] = [line for line in md.splitlines() if line.startswith(f"| `{SERVE}` | tpot |")]
    # BASE's offline TPOT carries the offline family's band; HEAD's load has too few measurements for one (REQ004)
    assert "| 295.6 ms (band 45.4 to 422.6 ms) | 14.1 ms (no band) |" in tpot, tpot
    band = metric(doc, SERVE, "tpot")["band"]
    assert band["head"] is None and band["base"]["low"] == {"value": pytest.approx(0.04538, rel=1e-3), "unit": "s"}


def test_a_move_inside_both_bands_says_so():
    """A 2 % move of a figure whose band is ±10 % is no regression the model can tell (newuser101 item 1)."""
    def change(base: float, head: float) -> MetricChange:
        ends = tuple((Q_(v * 0.9, "1/s"), Q_(v * 1.1, "1/s")) for v in (base, head))
        return MetricChange("workload/w", "tokens_per_second", Q_(base, "1/s"), Q_(head, "1/s"), bands=ends)
    small, large = change(1000.0, 980.0), change(1000.0, 850.0)
    assert small.within_band and direction_cell(small) == "worse ▼, within band"
    assert large.within_band is False and direction_cell(large) == "worse ▼"
    assert banded_cells(small)[:2] == ("1,000 tokens/s (band 900 to 1,100 tokens/s)",
                                       "980 tokens/s (band 882 to 1,078 tokens/s)")
    assert measure_json(small)["within_band"] is True
    assert MetricChange("workload/w", "tokens_per_second", Q_(1, "1/s"), Q_(2, "1/s")).within_band is None


def test_what_defines_a_figure_is_its_job_scenario_and_accelerators():
    offline = Measure("inference", "offline", 64)
    assert unlike(offline, offline, "ttft") == ""
    assert unlike(offline, Measure("inference", "concurrency", 64), "memory_per_gpu") == \
        "scenario offline → concurrency"
    assert unlike(Measure("training", "", 64), Measure("collective", "", 64), "time") == \
        "job training → collective"
    bigger = Measure("inference", "offline", 128)
    assert unlike(offline, bigger, "tokens_per_second") == \
        "accelerators 64 → 128"
    # a figure per accelerator, or of the accelerators' peak, is not defined by their count
    assert unlike(offline, bigger, "tokens_per_second_per_gpu") == unlike(offline, bigger, "mfu") == ""
    assert unlike(None, bigger, "ttft") == ""


def test_a_class_with_no_parts_left_reads_zero_with_why(tmp_path):
    """PR1 of newuser101: the MI355X cluster's switch swapped for one cabled with optics, no copper left."""
    head = copy_specs(tmp_path / "head")
    _edit(head / "clusters" / "mi355x-th5.yaml", "switch: arista-7060x6-64pe", "switch: celestica-ds5000")
    r = run_cli("diff", SPECS, head, "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    for obj in ("cluster/mi355x-th5", "workload/llama3-70b-pretrain-mi355x"):
        for end in ("", "_low", "_high"):
            m = metric(doc, obj, f"interruptions_per_day.cable{end}")
            assert m["presence"] == "both" and m["head"] == {"value": 0.0, "unit": "1/s"}, m
            assert m["zeroed"] == "no cable parts" and m["direction"] == "better"
    assert doc["summary"]["metrics_only_in_base"] == 0
