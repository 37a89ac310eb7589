"""A validation case is refused a MoE dispatcher its part cannot run, as a workload's estimate is (nu71fix).

newuser71 found that a workload's estimate refuses HybridEP off NVIDIA GPUs and DeepEP off NVIDIA and AMD GPUs
(`perf.workload.nvidia_only`: DeepEP's README at 0297fc80 requires SM90 GPUs and CUDA, Primus-Turbo's port runs on
MI300 only), while a case stating either on a TPU was read and scored as DeepEP's or HybridEP's exchange. Now
`scoring.cases.read_case_file` refuses it, located at the key that chose the dispatcher, with the same message, and
`predict` refuses a case built otherwise (a flipped switch).
"""

from __future__ import annotations

import pytest

from archgen.errors import AnalyseError
from archgen.scoring.cases import predict, read_case_file
from archgen.scoring.catalog import load_accelerators

MIXTRAL = ("{layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: 32000, gated_ffn: true, "
           "moe: {experts: 8, top_k: 2, expert_ffn: 14336}}")
SYSTEMS = {"tpu": '{accelerator: tpu-v5p, count: 256, scale_up: {domain: 256, bandwidth: "600 GB/s", '
                  'torus: [4, 8, 8]}}',
           "amd": '{accelerator: mi300x, count: 256, scale_up: {domain: 8, bandwidth: "448 GB/s"}, '
                  'scale_out: {bandwidth: "400 Gb/s"}}',
           "nvidia": '{accelerator: h100-sxm5-80gb, count: 256, scale_up: {domain: 8, bandwidth: "450 GB/s"}, '
                     'scale_out: {bandwidth: "400 Gb/s"}}'}


def _case(tmp_path, system: str, extra: str):
    text = ("schema: archgen-validation/1\ncases:\n- id: mixtral-case\n  source: a test\n  status: confirmed\n"
            f"  system: {SYSTEMS[system]}\n  model: {MIXTRAL}\n"
            "  training: {seq_len: 4096, global_batch: 1024, micro_batch: 1, precision: bf16, tp: 1, pp: 1, "
            f"dp: 256, ep: 8{extra}}}\n  measured: [{{metric: tokens_per_second, value: 800000, unit: '1/s'}}]\n")
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    return read_case_file(tmp_path / "c.yaml")


@pytest.mark.parametrize(("system", "extra", "where", "said"), [
    ("tpu", ", stack: nemo-2025", "training.stack",
     "moe_dispatcher hybridep (the nemo-2025 profile's) cannot run on tpu-v5p"),
    ("tpu", ", moe_dispatcher: deepep, stack: nemo-2025", "training.moe_dispatcher",
     "moe_dispatcher deepep (stated) cannot run on tpu-v5p"),
    ("tpu", ", moe_dispatcher: hybridep", "training.moe_dispatcher",
     "moe_dispatcher hybridep (stated) cannot run on tpu-v5p"),
    ("amd", ", moe_dispatcher: hybridep", "training.moe_dispatcher",
     "moe_dispatcher hybridep (stated) cannot run on mi300x"),
])
def test_a_dispatcher_the_part_cannot_run_is_refused(tmp_path, system, extra, where, said):
    cf = _case(tmp_path, system, extra)
    (refused,) = cf.refused
    (problem,) = refused.problems
    assert problem.path == f"mixtral-case.{where}" and said in problem.message, problem
    assert "expected moe_dispatcher" in problem.message
    assert problem.location.line == 8   # the case's training line


@pytest.mark.parametrize(("system", "extra"), [
    ("tpu", ", moe_dispatcher: alltoall, stack: nemo-2025"),   # what the TPU refusal names
    ("amd", ", moe_dispatcher: deepep"),                        # Primus-Turbo's DeepEP (primus-2025's)
    ("amd", ""),                                                # AMD's own profile, primus-2025
    ("nvidia", ", moe_dispatcher: hybridep"),
])
def test_a_dispatcher_the_part_runs_is_read(tmp_path, system, extra):
    cf = _case(tmp_path, system, extra)
    assert not cf.refused and len(cf.cases) == 1


def test_predict_refuses_a_flipped_switch(tmp_path):
    (case,) = _case(tmp_path, "tpu", ", moe_dispatcher: alltoall, stack: nemo-2025").cases
    flipped = case.model_copy(update={"training": case.training.model_copy(update={"moe_dispatcher": "deepep"})})
    with pytest.raises(AnalyseError, match="moe_dispatcher deepep .* cannot run on tpu-v5p"):
        predict(flipped, load_accelerators())
