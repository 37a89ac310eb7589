"""Side by side with Calculon on 530B / 5,120 A100: its best layout is inside archgen's search space.

The data file states the job, the system and Calculon's own figures with their source. Nothing is fitted: the test
reports archgen's best layout for the same job, archgen's estimate of Calculon's layout and Calculon's figure for
it, and holds them to what the search must guarantee plus a drift guard.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.host_share import HostShare
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layout_rules import layout_problems
from archgen.perf.train.layouts import enumerate_layouts, search_training
from archgen.perf.train.stacks import resolve
from archgen.perf.train.training import RECOMPUTE_CODES, estimate_training
from archgen.units import parse_quantity

DATA = yaml.safe_load((Path(__file__).parent / "data" / "calculon-530b-5120.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def side(accelerators):
    """(hardware, job, Calculon's layout as a dict) of the data file."""
    m, s, c = DATA["model"], DATA["system"], DATA["calculon"]
    arch = Arch(m["layers"], m["hidden"], m["heads"], m["heads"], m["hidden"] // m["heads"], m["ffn"], m["vocab"])
    h = s["host_memory"]
    q = parse_quantity
    hw = hardware_for(accelerators[s["accelerator"]], scale_up_size=s["scale_up"]["domain"],
                      scale_up_bandwidth=q(s["scale_up"]["bandwidth"]),
                      scale_out_bandwidth=q(s["scale_out"]["bandwidth"]),
                      host=HostShare(q(h["capacity"]), q(h["link"]), q(h["bandwidth"]), h["efficiency"]))
    knobs = resolve("megatron-core-2024", c["switches"], DATA["precision"])
    job = Job.from_knobs(arch, m["seq_len"], DATA["global_batch"], DATA["precision"], knobs)
    return hw, job, c["layout"]


def _layout(lay: dict) -> Layout:
    return Layout(lay["tp"], lay["pp"], lay["dp"], lay["micro_batch"], interleave=lay["interleave"],
                  recompute=RECOMPUTE_CODES[lay["recompute"]], zero=lay["zero"],
                  offload=OFFLOAD_CODES[lay.get("offload", "none")])


def test_calculons_layout_is_inside_archgens_space(side):
    hw, job, lay = side
    assert layout_problems(job.arch, job, DATA["system"]["count"], tp=lay["tp"], pp=lay["pp"], dp=lay["dp"],
                           micro_batch=lay["micro_batch"], interleave=lay["interleave"], scale_up_size=8,
                           offload=OFFLOAD_CODES[lay["offload"]], host_memory=True) == []
    space = enumerate_layouts(job.arch, job, DATA["system"]["count"], hw, {"tp": 8, "pp": 5})
    assert sorted(set(space["interleave"])) == [1, 3, 7, 21]  # every divisor of 105 / 5, up to one layer per stage


def test_side_by_side_with_calculon(side, capsys, monkeypatch):
    """Calculon's TP overlap ('ring') costs the GEMMs nothing; archgen charges TE's userbuffers their chunks and SMs
    (`exposure.tp_overlap_cost`: at tp 8 and 2,048 tokens the ring chunks are 256 rows). The drift guard compares
    the two models on the same footing, without that cost; with it archgen is +21 % on Calculon's layout (+25 % before the fused gradient
    accumulation, `grad_accum_fusion`, of the nemo-2025 profile)."""
    hw, job, lay = side
    import archgen.perf.train.tp_comm as T
    with_cost = float(estimate_training(hw, job, _layout(lay)).step_time)
    monkeypatch.setattr(T, "tp_overlap_cost", lambda *a, **k: 0.0)
    theirs = estimate_training(hw, job, _layout(lay))
    ours = search_training(hw, job, DATA["system"]["count"])
    calculon = parse_quantity(DATA["calculon"]["step_time"]).m_as("s")
    t_theirs, t_ours = float(theirs.step_time), float(ours.estimate.step_time)
    with capsys.disabled():
        print(f"\n530B on 5,120 A100, batch {DATA['global_batch']}: Calculon's layout {lay}: Calculon {calculon:.3f} s, "
              f"archgen {t_theirs:.3f} s ({t_theirs / calculon - 1:+.1%}); archgen's best {ours.best}: {t_ours:.3f} s")
    assert bool(theirs.fits)
    assert t_ours <= t_theirs * (1 + 1e-12)  # the search covers Calculon's layout, so it finds it or better
    # drift guard, set after the run (archgen -0.6 % against Calculon); two models, not a measurement
    assert t_theirs == pytest.approx(calculon, rel=0.10)
    assert with_cost / calculon - 1 == pytest.approx(0.21, abs=0.02)  # +25 % before grad_accum_fusion
    # what Calculon offloads (its optimizer state) archgen keeps in host memory too
    assert float(theirs.memory.optimizer) == 0.0 and float(theirs.memory.host) > 0.0
