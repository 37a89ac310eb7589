"""A cluster-wide planned window (`planned: {scope: cluster}`) stops every job once, whatever its size (planned35).

newuser92's monthly 4 h maintenance window on a 16,128-GPU cluster could only be written per node
(`per_accelerators` at most 1,024): 0.00595 a year per 8 GPUs, which holds for that one job size; a job of half the
size was charged half the window. A window stated `scope: cluster` is charged once per window to a job of any size:
its duration plus one restart and restore, over the window's period.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from archgen.errors import ValidateError
from archgen.model.reliability import Checkpointing, Planned
from archgen.perf.train.goodput import Failures, job_goodput
from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.operations import reliability_section

DAY = 86400.0
#: The shipped Llama 3 stand-in's rates, as tests/test_goodput.py's BASE (8-GPU nodes, 2 TB/s storage).
BASE = Failures(per_accelerator_day=(268 + 116) / 54 / 16384, site=(), per_node=8, nodes=2048,
                node_hw_per_day=(268 + 46 + 7) / 54 / 2048, repair=24 * 3600.0, write_bandwidth=2e12,
                read_bandwidth=2e12, nic_per_node=8 * 50e9)
SIZE = 405e9 * 14  # B
#: One window every 30 days that stops the job for 4 h beyond its restart.
WINDOW = replace(BASE, planned_per_day=1 / 30, planned_duration=4 * 3600.0)


@pytest.mark.parametrize("gpus", [1024, 16384])
def test_a_window_costs_every_job_its_share_and_one_restart(gpus):
    """By hand: 4 h every 720 h is 4/720 of wall time, plus one restart (10 min default) and restore per window."""
    plain, window = (job_goodput(f, Checkpointing(), SIZE, gpus, 0.9) for f in (BASE, WINDOW))
    restore = SIZE / 2e12   # read at the storage's 2 TB/s (the nodes' NICs are not the bound at either size)
    assert window.restore_time == pytest.approx(restore)
    assert window.planned == pytest.approx(4 / 720 + (600 + restore) / (720 * 3600))
    assert window.goodput == pytest.approx(plain.goodput * (1 - window.planned))


def test_the_share_is_the_same_at_any_job_size_where_a_per_node_rate_is_not():
    """The per-node rate that gives the window's count at 16,128 GPUs charges a 1,024-GPU job 1/15.75 of it."""
    small, large = (job_goodput(WINDOW, Checkpointing(), SIZE, n, 0.9).planned for n in (1024, 16128))
    assert small == pytest.approx(large)
    per_node = replace(BASE, planned_per_accelerator_day=1 / 30 / 16128, planned_duration=4 * 3600.0)
    small, large = (job_goodput(per_node, Checkpointing(), SIZE, n, 0.9).planned for n in (1024, 16128))
    assert large == pytest.approx(job_goodput(WINDOW, Checkpointing(), SIZE, 16128, 0.9).planned)
    assert small == pytest.approx(large * 1024 / 16128)


def test_a_window_counted_per_accelerators_is_refused():
    """`per_accelerators` with `scope: cluster` could be read two ways (per cluster or per group): refused."""
    with pytest.raises(ValueError, match=r"a cluster-wide window \(scope: cluster\) is counted per cluster, not per "
                                         r"8 accelerators"):
        Planned(per_year=12, per_accelerators=8, scope="cluster", basis="assumed", source="test")
    with pytest.raises(ValueError, match="scope"):
        Planned(per_year=12, scope="rack", basis="assumed", source="test")   # only node or cluster


DATA = Path(__file__).parents[1] / "data" / "reliability"
RACK = Path(__file__).parents[2] / "specs" / "racks" / "dgx-h100-4.yaml"
#: A set of one's own: the shipped Llama 3 rates and a 30-day, 4 h window.
OWN = ("kind: FailureRates\nid: ops-window\nname: own\nbase: field-h100-2024\nclasses: {{}}\n"
       "planned:\n  per_year: 12.175\n  duration: 4 h\n  scope: cluster\n{extra}  basis: assumed\n"
       "  source: a monthly maintenance window\n")


def _run(tmp_path: Path, extra: str = ""):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    (tree / "own.yaml").write_text(OWN.format(extra=extra), encoding="utf-8")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(
        "facility: hall-air", "facility: hall-air\nfailure_rates: ops-window"), encoding="utf-8")
    return run([tree])


def test_the_range_note_names_the_window(tmp_path):
    r = _run(tmp_path)
    rel = r.operations.reliability["cluster/llama3-16k"]
    assert rel.planned_per_day == pytest.approx(12.175 / 365.25) == pytest.approx(1 / 30)
    assert rel.planned_per_accelerator_day == 0
    section = reliability_section(r, r.clusters["cluster/llama3-16k"])
    assert section is not None
    note, = (b.text for b in section.blocks if isinstance(b, Para) and b.text.startswith("Range:"))
    # 4 h + 10 min restart + 3 s restore over 720 h: 0.579 %
    assert ("cluster-wide planned windows ('ops-window' set's): 0.033 a day, each stopping it for its restart and "
            "restore plus 4 h, 0.58 % of its wall time") in note


def test_an_ambiguous_window_is_an_error_at_its_line(tmp_path):
    with pytest.raises(ValidateError, match=r"own\.yaml:10:\d+: error: planned\.per_accelerators: a cluster-wide "
                                            r"window \(scope: cluster\) is counted per cluster, not per 8"):
        _run(tmp_path, extra="  per_accelerators: 8\n")
