"""A sweep's requirements met on estimates that rest on unconfirmed part figures say so, once (catalog2's left-out).

The compliance matrix reads "met (on assumed inputs: trainium2 scale_up.bandwidth (unconfirmed))" and REQ005 says so
(tests/analyse/test_unconfirmed_requirements.py); before, a sweep's requirements table counted such points as met
with nothing naming the figures. The part is tests/test_sweep_unmeasured.py's Trainium2 (AWS Neuron documentation,
Trainium2 Architecture), which lists `tdp` and `scale_up.bandwidth` as unconfirmed: an FP8 serving estimate reads the
scale-up link (`perf.workload.unconfirmed_note`), not the TDP.
"""

from __future__ import annotations

from pathlib import Path

from archgen.perf.explore.points import evaluate, summarise
from archgen.render.blocks import Para
from archgen.render.sweep import overview
from archgen.render.sweep_unconfirmed import read_by_accelerator
from tests.conftest import SPECS, sweep_problems_of
from tests.test_sweep_unmeasured import TRN2

REQUIREMENTS = """requirements:
  - {id: REQ-T-001, statement: Throughput, metric: tokens_per_second, target: ">= 1 1/s"}
  - {id: REQ-T-002, statement: Accelerators, metric: accelerators, target: ">= 1"}
  - {id: REQ-T-003, statement: Never met, metric: tpot, target: "<= 1 ns"}
"""


def _overview(tmp_path: Path, text: str):
    path = tmp_path / "trn2.yaml"
    path.write_text(text, encoding="utf-8")
    problem = sweep_problems_of(path, [SPECS, tmp_path])[0]
    return problem, overview(summarise(problem, evaluate(problem, 0, problem.size)))


def _notes(section) -> list[str]:
    return [b.text for b in section.blocks if isinstance(b, Para) and "unconfirmed" in b.text]


def test_requirements_met_on_unconfirmed_figures_are_named_once(tmp_path):
    problem, section = _overview(tmp_path, TRN2 + REQUIREMENTS)
    assert read_by_accelerator(problem) == {"trainium2": ("scale_up.bandwidth",)}   # not tdp: no estimate reads it
    [note] = _notes(section)          # one note per sweep, not per cell
    assert note.startswith("Met on assumed inputs, where a point meets it: REQ-T-001. ")
    # and the NVIDIA engine its serving estimates assume (small25, PERF005), as a training sweep's stack
    assert note.endswith("(REQ005): trainium2 scale_up.bandwidth (unconfirmed). They also assume serving engine vllm "
                         "as it runs on NVIDIA GPUs (its CUDA kernels per pass, 1.3 us per kernel and 2.26 us per "
                         "GEMM's fill as measured on Hopper, the KV cache in 90% of HBM, less its profiling peak (vLLM's "
                         "gpu_memory_utilization)): no AWS engine profile, so trainium2's own serving backend's "
                         "kernels, their costs and its memory are not modelled.")
    assert "REQ-T-002" not in note    # the point's accelerator count rests on no estimate
    assert "REQ-T-003" not in note    # met at no point


def test_no_note_without_a_requirement_met_on_them(tmp_path):
    _, section = _overview(tmp_path, TRN2)
    assert _notes(section) == []
