"""Every training FLOP count with DeepSeek-V3's multi-token prediction layer, by hand (issue 20, fits36).

DeepSeek-V3 (specs/catalog/models/deepseek-v3.yaml; arXiv 2412.19437 section 4.2): h 7,168, 128 heads, MLA with
q_lora_rank 1,536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128; MoE FFN 2,048 wide, top 8 of 256 plus 1 shared,
gated (three matrices); vocabulary 129,280; one MTP module. Megatron-LM's count is `num_floating_point_operations`,
megatron/training/training.py at d98e8a6 (NVIDIA/Megatron-LM): MTP layers join the layers of the last layer's kind
(lines 1042-1046), "MTP norms and proj" 3h + 2h² (lines 1288-1298), the logits (1 + mtp) times (line 1303), the
core attention halved for the causal mask (lines 1132-1135 for MLA, 1168).
"""

from __future__ import annotations

import json
from dataclasses import replace

from archgen.load import load_file, load_text
from archgen.model.cases import Case
from archgen.model.workload import Model, Workload
from archgen.perf.workload.flop_counting import flop_counting
from archgen.perf.workload.roofline import workload_roofline
from archgen.render.roofline import _scope
from archgen.scoring.cases import flop_note
from tests.conftest import SPECS

from .test_mtp import DSV3, JOB

S = 4096
H, V, E, HEADS = 7168, 129280, 256, 128
Q_LORA, KV_LORA, NOPE, ROPE, VD = 1536, 512, 128, 64, 128


def test_deepseek_v3_mtp_layer_forward_flops_by_hand():
    """Forward FLOP per token the MTP layer adds at s = 4,096 (2 FLOP per multiply-add), worked by hand:
    MLA projections 1,536·7,168 + 576·7,168 + 128·192·1,536 + 128·256·512 + 7,168·128·128 = 187,105,280 weights;
    the MoE block's active FFN 9 x 3·7,168·2,048 = 396,361,728 and its router 7,168·256 = 1,835,008; eh_proj 2·7,168²
    = 102,760,448: 688,062,464 weights, 1,376,124,928 FLOP. The core over the full square, 2 x 2·4,096·128·160 (QK^T
    at 192 and AV at 128 a head) = 335,544,320. The logits again, 2·7,168·129,280 = 1,853,358,080. In all
    3,565,027,328, 3.66 % of the job's model FLOPs."""
    one = replace(DSV3, mtp_layers=1)
    assert one.forward_flops_per_token(S) - DSV3.forward_flops_per_token(S) == 3_565_027_328
    assert one.model_flops(1e6, S) - DSV3.model_flops(1e6, S) == 3 * 1e6 * 3_565_027_328
    assert round(100 * one.mtp_share(S), 2) == 3.66 and DSV3.mtp_share(S) == 0.0


def test_the_mtp_layer_against_megatron_lm_s_own_count():
    """Megatron-LM's forward FLOP for the same layer, its terms at d98e8a6 over 3 (fwd + wgrad + dgrad): MLA with
    its +1 per latent (the latent norms), the routed and shared experts without the router, the MTP norms and proj
    2·(3h + 2h²), the logits, and the core at half the square (the causal mask). The two counts differ by exactly
    what each leaves out: the router GEMM (Megatron) against the norms (here) and the causal half (here, a full-s²
    convention: `flop_counting` gives the rate without it)."""
    mla = Q_LORA * (H + HEADS * (NOPE + ROPE) + 1) + KV_LORA * (H + HEADS * (NOPE + VD) + 1) + H * ROPE \
        + HEADS * VD * H
    moe = H * (2048 * 8 * 3 + 2048 * 3)
    megatron = 2 * mla + 2 * moe + 2 * (3 * H + 2 * H * H) + 2 * H * V + 2 * (HEADS * (NOPE + ROPE) + HEADS * VD) // 2 * S
    assert megatron == 3_393_632_256
    ours = replace(DSV3, mtp_layers=1).forward_flops_per_token(S) - DSV3.forward_flops_per_token(S)
    router, causal_half, norms = 2 * H * E, 2 * (HEADS * (NOPE + ROPE) + HEADS * VD) // 2 * S, 2 * (Q_LORA + KV_LORA + 3 * H)
    assert ours - megatron == router + causal_half - norms == 171_395_072


def test_an_estimate_s_flop_counting_says_the_mtp_layer(cli, tmp_path):
    """The workload's MFU counts the MTP layer: its `flop_counting` says so, with its share; without it, no word."""
    (tmp_path / "job.yaml").write_text(JOB.format(mtp="mtp_layers: 1\n  "), encoding="utf-8")
    est = json.loads(cli("estimate", str(SPECS), str(tmp_path), "--workload", "dsv3-mtp", "--format", "json").out)
    conv = est["conventions"]["flop_counting"]
    assert "the 1 multi-token prediction layer trained counted as Megatron-LM counts it" in conv
    assert "3.66 % of these FLOPs" in conv   # s = 4,096, as by hand above
    one = replace(DSV3, mtp_layers=1)
    assert "multi-token" not in flop_counting(DSV3, S, 1e15, 2e15) and "3.66 %" in flop_counting(one, S, 1e15, 2e15)


def test_the_roofline_is_the_job_s_and_names_its_mtp_layers(h100):
    """The roofline draws one MoE layer's kernels, which the MTP block runs too: its shape is the job's
    (`Arch.of_workload`, the MTP layer with it), its kernels the same with or without, and its words say so."""
    model = Model.model_validate(load_file(SPECS / "catalog" / "models" / "deepseek-v3.yaml")[0].data)
    trained, left_out = (Workload.model_validate(load_text(JOB.format(mtp=mtp), "job.yaml")[0].data)
                         for mtp in ("mtp_layers: 1\n  ", ""))
    layout = {"tp": 1, "ep": 8, "micro_batch": 1}
    rf, bare = workload_roofline(trained, model, h100, layout), workload_roofline(left_out, model, h100, layout)
    assert rf is not None and bare is not None and rf.mtp_layers == 1 and bare.mtp_layers == 0
    assert rf.kernels == bare.kernels
    assert "multi-token" not in _scope(bare)
    assert "each of the 1 multi-token prediction layers trained runs these kernels too" in _scope(rf)


def test_a_case_s_published_formula_has_no_mtp_term_and_says_so():
    """A case that trains MTP and measures TFLOP/s by SC21's eq. 3: predicted by that formula over the model's step
    (its MTP layer in the step, not in the FLOPs), and the case says why the two counts differ."""
    case = Case.model_validate({
        "id": "v3", "source": "test", "status": "confirmed",
        "system": {"accelerator": "h800-sxm5-80gb", "count": 2048, "scale_up": {"domain": 8, "bandwidth": "200 GB/s"}},
        "model": {"layers": 61, "hidden": H, "heads": HEADS, "head_dim": 128, "ffn": 18432, "vocab": V,
                  "gated_ffn": True, "moe": {"experts": E, "top_k": 8, "expert_ffn": 2048, "shared_experts": 1,
                                            "dense_layers": 3},
                  "mla": {"kv_lora_rank": KV_LORA, "qk_rope_head_dim": ROPE, "qk_nope_head_dim": NOPE,
                          "v_head_dim": VD, "q_lora_rank": Q_LORA}, "mtp_layers": 1},
        "training": {"seq_len": S, "global_batch": 15360, "precision": "bf16", "tp": 1, "pp": 16, "dp": 128,
                     "ep": 64, "mtp_layers": 1},
        "flop_counting": "megatron_96", "measured": [{"metric": "tflops_per_gpu", "value": 200, "unit": "TFLOPS"}]})
    note = flop_note(case)
    assert note is not None and note.startswith("TFLOP/s and MFU by its flop_counting, megatron_96")
    assert "adds 3.66 % for them" in note
    bare = case.model_copy(update={"training": case.training.model_copy(update={"mtp_layers": 0})})
    assert flop_note(bare) is None
