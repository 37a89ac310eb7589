"""Multi-token prediction (mtp35, issue 20: faithful to the stack a run used).

Megatron-core's MTP layer (megatron/core/transformer/multi_token_prediction.py at d98e8a6; DeepSeek-V3, arXiv
2412.19437, section 2.2): the next token's embedding and the hidden state, each RMSNorm'd, concatenated and projected
2h -> h (`eh_proj`), one transformer block of the decoder's last layer's kind (gpt_builders.py lines 57-84), a final
norm and the shared output layer. Megatron-LM counts its FLOPs as one more layer, the projection and the logits once
more (megatron/training/training.py lines 1042-1046, 1288-1303); every MTP layer sits on the last pipeline stage
without a layout string (`get_mtp_num_layers_to_build`).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from archgen.load import load_file, load_text
from archgen.model.cases import Case
from archgen.model.workload import Model, Training, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.memory import expert_split
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layer import layer_times, mtp_time
from archgen.perf.train.layout_rules import layout_problems, mtp_problems
from archgen.perf.train.pipeline_split import PipelineOptions, split, uniform_layout
from archgen.perf.train.point_goodput import checkpoint_bytes
from archgen.perf.train.refused import bare_split_problem
from archgen.perf.train.training import estimate_training
from archgen.perf.workload.mtp_note import mtp_note
from archgen.scoring.case_checks import training_problems
from archgen.scoring.cases import case_hardware, read_cases, training_estimate
from archgen.scoring.catalog import load_accelerators
from tests.conftest import SPECS

#: A small dense GPT: h 64, 4 heads of 16, FFN 256 (not gated), vocabulary 1,000.
SMALL = Arch(layers=2, hidden=64, heads=4, kv_heads=4, head_dim=16, ffn=256, vocab=1000)
#: DeepSeek-V3 as specs/catalog/models/deepseek-v3.yaml states it.
DSV3 = Arch(layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=128, ffn=18432, vocab=129280, gated=True,
            experts=256, top_k=8, expert_ffn=2048, shared_experts=1, dense_layers=3, kv_lora_rank=512, kv_rope_dim=64,
            q_lora_rank=1536, qk_nope_dim=128, v_head_dim=128, rope=True, qk_norm=False)


def test_one_mtp_layer_of_a_small_model_adds_what_the_formula_says():
    """Forward FLOP per token of one MTP layer at s = 128, worked by hand (2 FLOP per multiply-add):
    attention projections QKV 3·64·64 + output 64·64 = 16,384 weights; FFN 2·64·256 = 32,768; eh_proj 2·64·64 =
    8,192; 2 x 57,344 = 114,688. The attention core, QK^T and AV over the full s² square: 2 x 2·128·4·16 = 32,768.
    The logits once more: 2·64·1,000 = 128,000. In all 275,456; model FLOPs are 3 x that per token."""
    one = replace(SMALL, mtp_layers=1)
    assert one.forward_flops_per_token(128) - SMALL.forward_flops_per_token(128) == 275_456
    assert one.model_flops(1000, 128) - SMALL.model_flops(1000, 128) == 3 * 1000 * 275_456
    two = replace(SMALL, mtp_layers=2)  # each layer alike
    assert two.forward_flops_per_token(128) - SMALL.forward_flops_per_token(128) == 2 * 275_456
    # and its weights: the block (16,384 + 32,768 + two norms 2·64), eh_proj 8,192, enorm, hnorm, final norm 3·64
    assert one.params() - SMALL.params() == 16_384 + 32_768 + 128 + 8_192 + 192


def test_an_moe_model_s_mtp_block_is_an_moe_layer():
    """The block takes the last layer's spec: an MoE one (its top-k and shared experts, not the dense FFN)."""
    moe = replace(SMALL, experts=8, top_k=2, expert_ffn=32, shared_experts=1, dense_layers=1)
    step = replace(moe, mtp_layers=1).forward_flops_per_token(128) - moe.forward_flops_per_token(128)
    active = (2 + 1) * 2 * 64 * 32 + 64 * 8  # top-k and shared experts' FC1 and FC2, and the router
    assert moe.mtp_moe and step == 2 * (16_384 + active + 8_192) + 32_768 + 128_000


def test_deepseek_v3_mtp_module_has_the_weights_its_readme_states():
    """README_WEIGHTS.md (deepseek-ai/DeepSeek-V3 at 0b39205): "11.5B unique parameters, excluding the shared 0.9B
    Embedding and 0.9B output Head"; the main model 671B."""
    one = replace(DSV3, mtp_layers=1)
    assert DSV3.params() / 1e9 == pytest.approx(671, rel=2e-3)
    assert (one.params() - DSV3.params()) / 1e9 == pytest.approx(11.5, rel=0.01)


def test_the_mtp_layers_sit_on_the_loss_rank_and_add_no_tokens(h100):
    """Weights and time only on the class that holds the loss; the same tokens per step."""
    hw = h100
    arch = replace(SMALL, layers=4, hidden=1024, heads=8, head_dim=128, kv_heads=8, ffn=4096, vocab=32000)
    with_mtp = replace(arch, mtp_layers=1)
    for loss in (0.0, 1.0):
        base, more = expert_split(arch, 2, 2, 1, 2, 0.0, loss), expert_split(with_mtp, 2, 2, 1, 2, 0.0, loss)
        assert more[0] - base[0] == loss * with_mtp.mtp_params / 2 and more[1] == base[1] == 0
    job, job1 = Job(arch, 2048, 64), Job(with_mtp, 2048, 64)
    kw = dict(tp=2, mb=1, cp=1, ep=1, rc=0, sp=True)
    lt, lt1 = layer_times(hw, job, **kw), layer_times(hw, job1, **kw)
    assert lt1.total == lt.total and lt1.embed == lt.embed
    assert lt1.logits == pytest.approx(lt.logits + mtp_time(hw, job1, lt.logits, lt.embed, **kw), rel=1e-12)
    assert lt1.logits > lt.logits + lt.total  # a block and the logits again, beside the projection
    lay = Layout(tp=2, pp=2, dp=2, micro_batch=1)
    est, est1 = estimate_training(hw, job, lay), estimate_training(hw, job1, lay)
    assert est1.step_time > est.step_time and est1.model_flops > est.model_flops
    for e in (est, est1):
        assert e.tokens_per_second * e.step_time == pytest.approx(64 * 2048)


def _training(**extra):
    return {"seq_len": 4096, "global_batch": 1024, "precision": "bf16", **extra}


def test_more_than_one_mtp_layer_is_refused_with_the_ep_overlap():
    with pytest.raises(ValidationError, match="MTP supports at most one layer when enabling "
                                              "overlap_moe_expert_parallel_comm"):
        Training.model_validate(_training(mtp_layers=2, overlap_ep_comm=True))
    Training.model_validate(_training(mtp_layers=1, overlap_ep_comm=True))
    Training.model_validate(_training(mtp_layers=2))


def test_a_layout_string_places_the_mtp_layers_before_the_loss():
    """Megatron-Bridge's DeepSeek-V3 layout (configs/deepseek/deepseek_workload_base_configs.py, tests/perf/data/
    bridge-26.04.01.yaml's header): "Et*4|(t*4|)*14tmL", the MTP layer beside the loss on the last stage."""
    bridge = "Et*4|(t*4|)*14tmL"
    dsv3, job = replace(DSV3, mtp_layers=1), Job(replace(DSV3, mtp_layers=1), 4096, 15360, "fp8")
    assert mtp_problems(bridge, 1) == []
    assert layout_problems(dsv3, job, 2048, tp=1, pp=16, dp=128, ep=64, pipeline=PipelineOptions(layout=bridge)) == []
    (count,) = mtp_problems("Et*4|(t*4|)*14tL", 1)
    assert "Number of mtp layers in layout must match mtp_num_layers" in count
    assert "places 1 MTP layers (m) and the job trains 0" in mtp_problems(bridge, 0)[0]
    (elsewhere,) = mtp_problems("Et*4|(t*4|)*13t*4|tm|L", 1)  # the loss on a stage of its own
    assert "does not end with its MTP layers and the loss (mL)" in elsewhere
    # the string a bare uneven pp runs as carries them, and it places the layers alike
    placed = uniform_layout(61, 16, 1, mtp=1)
    assert placed is not None and placed.endswith("t*3mL") and mtp_problems(placed, 1) == []
    assert split(61, 16, 1, PipelineOptions(layout=placed)).loss.tolist() == split(
        61, 16, 1, PipelineOptions(layout=placed.replace("m", ""))).loss.tolist()


def test_a_stack_s_uneven_split_refusal_hints_a_string_with_the_mtp_layers():
    """megatron-core-2024 places no string: the refusal names the one a newer stack runs, `m` before the `L` as the
    job trains them, so copying it does not meet Megatron-core's count assert (`mtp_problems`)."""
    dsv3 = replace(DSV3, mtp_layers=1)
    job = replace(Job(dsv3, 4096, 15360, "fp8"), split_stack="megatron-core-2024")
    (problem,) = layout_problems(dsv3, job, 2048, tp=1, pp=16, dp=128, ep=64)
    assert problem.field == "pp"
    hinted = re.search(r"with pipeline_layout '([^']+)'", problem)
    assert hinted is not None and hinted[1].endswith("t*3mL") and mtp_problems(hinted[1], 1) == []
    bare = bare_split_problem("megatron-core-2024", 61, 16, 1)  # no MTP layers: none in the string
    assert bare is not None and "t*3L'" in bare


def test_a_case_trains_no_more_mtp_layers_than_its_model_has():
    case = {"id": "c", "source": "s", "status": "secondary",
            "system": {"accelerator": "h100-sxm5-80gb", "count": 8, "scale_up": {"domain": 8, "bandwidth": "450 GB/s"}},
            "model": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 1000},
            "training": _training(tp=1, pp=1, dp=8, mtp_layers=1),
            "measured": [{"metric": "step_time", "value": 1.0, "unit": "s"}]}
    with pytest.raises(ValidationError, match="exceeds the model's mtp_layers"):
        Case.model_validate(case)
    Case.model_validate({**case, "model": {**case["model"], "mtp_layers": 1}})


JOB = """\
kind: Workload
id: dsv3-mtp
name: DeepSeek-V3 pre-training on one GB200 NVL72 SU
model: deepseek-v3
cluster: gb200-nvl72-su
training:
  seq_len: 4096
  global_batch: 1152
  precision: bf16
  {mtp}parallelism: {{tp: 1, pp: 9, ep: 8, micro_batch: 1}}
"""


def _estimate(cli, tmp_path, mtp: str):
    (tmp_path / "job.yaml").write_text(JOB.format(mtp=mtp), encoding="utf-8")
    return cli("estimate", str(SPECS), str(tmp_path), "--workload", "dsv3-mtp", "--format", "json")


def test_the_catalog_model_has_its_module_and_the_run_chooses_to_train_it(cli, tmp_path):
    """deepseek-v3.yaml states its MTP module; a workload that leaves training.mtp_layers out trains none, and says so."""
    left_out = json.loads(_estimate(cli, tmp_path, "").out)
    assert [n for n in left_out["notes"] if n.startswith("multi-token prediction: model 'deepseek-v3' has 1 MTP "
                                                         "module that this training leaves out")]
    trained = json.loads(_estimate(cli, tmp_path, "mtp_layers: 1\n  ").out)
    assert [n for n in trained["notes"] if n.startswith("multi-token prediction: 1 MTP layer trained on the last")]
    assert trained["metrics"]["step_time"]["value"] > left_out["metrics"]["step_time"]["value"]
    refused = _estimate(cli, tmp_path, "mtp_layers: 2\n  ")
    assert refused.code != 0 and "exceeds model 'deepseek-v3''s mtp_layers (1)" in refused.out + refused.err


def test_the_note_names_the_last_stage_only_where_there_are_stages():
    """At pp 1 every layer and the loss share the one rank: the note says "beside the loss", no "last stage"."""
    model = Model.model_validate(load_file(SPECS / "catalog" / "models" / "deepseek-v3.yaml")[0].data)
    t = Training(seq_len=4096, global_batch=8, precision="bf16", mtp_layers=1)
    (one,), (nine,) = mtp_note(model, t, 1), mtp_note(model, t, 9)
    assert one.startswith("multi-token prediction: 1 MTP layer trained beside the loss, as") and "stage" not in one
    assert nine.startswith("multi-token prediction: 1 MTP layer trained on the last pipeline stage beside the loss")


def test_a_checkpoint_saves_the_mtp_layers_the_job_trains():
    """The checkpoint is the job's parameters (`Arch.of_workload`, as its memory counts them) x 14 B: with the MTP
    module trained, DeepSeek-V3's 671.0 B main model and its 11.61 B module (+1.7 %); left out, the main model only."""
    model = Model.model_validate(load_file(SPECS / "catalog" / "models" / "deepseek-v3.yaml")[0].data)
    trained, left_out = (Workload.model_validate(load_text(JOB.format(mtp=mtp), "job.yaml")[0].data)
                         for mtp in ("mtp_layers: 1\n  ", ""))
    assert checkpoint_bytes(model, left_out) == DSV3.params() * 14
    assert checkpoint_bytes(model, trained) == replace(DSV3, mtp_layers=1).params() * 14
    assert checkpoint_bytes(model, trained) / checkpoint_bytes(model, left_out) == pytest.approx(1.0173, abs=1e-4)


def test_the_held_out_deepseek_v3_row_trains_its_mtp_module():
    """tests/perf/data/heldout-v5.yaml: DeepSeek-V3 trained with D = 1 (arXiv 2412.19437, section 4.2). With it,
    the last of the 16 stages (3 layers and the loss under the uniform partition) also holds an MoE block and the
    output layer again, and sets the pace; Megatron-Bridge's placement (one layer on that stage) would balance it."""
    held = Path(__file__).resolve().parent / "data" / "heldout-v5.yaml"
    cases, _ = read_cases(held)
    (case,) = [c for c in cases if c.id == "ho-deepseek-v3-2048xh800"]
    assert case.model is not None and case.training is not None
    assert case.model.mtp_layers == case.training.mtp_layers == 1
    hw = case_hardware(case, load_accelerators())
    without = case.model_copy(update={"training": case.training.model_copy(update={"mtp_layers": 0})})
    bridge = case.model_copy(update={"training": case.training.model_copy(update={
        "first_stage_layers": 4, "last_stage_layers": 1})})
    step, base, placed = (float(training_estimate(c, hw).step_time) for c in (case, without, bridge))
    assert step > 1.2 * base and base < placed < 1.01 * base


def test_a_case_with_two_mtp_layers_and_the_ep_overlap_is_refused():
    """As a Training is: the case's switches with its MTP layers (`scoring.case_checks.training_problems`)."""
    model = {"layers": 4, "hidden": 256, "heads": 4, "ffn": 1024, "vocab": 1000, "mtp_layers": 2,
             "moe": {"experts": 8, "top_k": 2, "expert_ffn": 128}}
    case = Case.model_validate({
        "id": "c", "source": "s", "status": "secondary",
        "system": {"accelerator": "h100-sxm5-80gb", "count": 8, "scale_up": {"domain": 8, "bandwidth": "450 GB/s"}},
        "model": model, "training": _training(tp=1, pp=1, dp=8, ep=8, mtp_layers=2, overlap_ep_comm=True),
        "measured": [{"metric": "step_time", "value": 1.0, "unit": "s"}]})
    assert [f for f, why in training_problems(case) if "MTP supports at most one layer" in why] == ["mtp_layers"]
