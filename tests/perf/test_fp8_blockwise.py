"""FP8 block scaling (`fp8_recipe: blockwise`): Transformer Engine's `Float8BlockScaling`, DeepSeek-V3's recipe.

DeepSeek-V3 trained in FP8 with 1 x 128 activation tiles and 128 x 128 weight blocks (arXiv 2412.19437, section
3.3.2); Megatron-core runs it as `--fp8-recipe blockwise`, which builds TE's `Float8BlockScaling` (NVIDIA/Megatron-LM
at 3097d81, megatron/core/fp8_utils.py lines 565-566). Read at NVIDIA/TransformerEngine f031cf87:

* recipe/__init__.py lines 345-347: activations and gradients 1D (1 x 128), weights 2D (128 x 128);
* pytorch/csrc/quantizer.cpp line 935 (FP32 scales) and line 1282 (`kBlockLen = 128`); `quantize` (lines
  1257-1271): one `nvte_quantize_v2` writes both usages; per-block amax in the kernel (no amax pass);
* extensions/normalization.cpp lines 106-131: the norm stays `Impl::UNFUSED` (BF16 out, then the cast);
* quantization.py lines 80-87: compute capability 9.0 or higher (Hopper runs it; MXFP8 needs 10.0);
* module/base.py lines 538-635: userbuffers take per-tensor FP8 and MXFP8 only (no TP overlap under blockwise);
* distributed.py lines 1071-1218: the all-gather carries each usage with its scales.

Before this recipe, a Hopper job could not state DeepSeek-V3's scaling at all (`mxfp8` is refused below 10.0).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.model.cases import CaseTraining
from archgen.model.workload import Training
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.perf.train.stacks import resolve
from archgen.perf.train.tp_comm import gather_bytes
from archgen.perf.workload.training_setup import recipe_problem
from archgen.scoring.scores import score_file
from archgen.units import Q_

from .test_cases import MFU, write

HOPPER, BLACKWELL = 9.0, 10.0
LLAMA = Arch(layers=1, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=32768, gated=True, rope=True, qk_norm=False)
#: One FP8 byte per value plus one FP32 scale (4 B) per block: 128 values for activations, 128 x 128 for weights.
TILE, WEIGHT = 1 + 4 / 128, 1 + 4 / (128 * 128)


@pytest.mark.parametrize("cc", [HOPPER, BLACKWELL])
def test_bytes_per_quantised_element(cc):
    """Read the BF16 input (2 B), write both usages (row- and column-wise, 1 x 128 tiles); no amax pass, and the
    norm's output is cast like any other input (its norm is unfused)."""
    assert float(Q.tensor_bytes("blockwise", cc)) == pytest.approx(2 + 2 * TILE)
    assert float(Q.tensor_bytes("blockwise", cc, norm_output=True)) == pytest.approx(2 + 2 * TILE)
    assert float(Q.weight_bytes("blockwise", cc)) == pytest.approx(2 + 2 * WEIGHT)


def test_one_kernel_per_quantised_tensor():
    """A dense layer: forward the four linear inputs (QKV and FC1 after norms), backward four output gradients."""
    assert Q.layer_kernels(LLAMA, "blockwise", HOPPER, 1) == (4.0, 4.0)


def test_the_gather_carries_each_usage_with_its_scales():
    assert gather_bytes("blockwise") == pytest.approx(TILE)
    assert gather_bytes("blockwise", 2.0) == pytest.approx(2 * TILE)


def test_hopper_runs_it_and_ada_does_not(tmp_path, accelerators):
    """TE's `check_fp8_block_scaling_support`: compute capability 9.0 or higher. An H100 case scores (on main the
    recipe could not be written); a part at 8.9 (Ada, FP8 without block-scaled GEMMs: no catalog part, so a fork of
    the H100) is refused, and MXFP8 on Hopper now names blockwise among the recipes it runs."""
    text = MFU.replace("VALUE", "0.44").replace("UNIT", '""').replace(
        "precision: bf16", "precision: fp8, fp8_recipe: blockwise")
    (r,) = score_file(write(tmp_path, text))
    assert r.predicted > 0
    h100 = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    assert recipe_problem("fp8", "blockwise", h100) is None
    ada = replace(h100, compute_capability=8.9)
    assert recipe_problem("fp8", "blockwise", ada) == (
        "fp8_recipe 'blockwise' needs compute capability 9.0 or higher (Hopper; Transformer Engine refuses it "
        "below); accelerator 'h100-sxm5-80gb' is 8.9: use delayed or tensorwise")
    assert recipe_problem("fp8", "mxfp8", h100).endswith("is 9: use delayed, tensorwise or blockwise")


def test_no_userbuffers_under_block_scaling(accelerators):
    """The profile's TP overlap goes off, a stated one is refused, and a job built with it runs as without it."""
    assert resolve("nemo-2025", {"fp8_recipe": "blockwise"}, "fp8").overlap_tp_comm is False
    assert resolve("nemo-2025", {}, "fp8").overlap_tp_comm is True
    with pytest.raises(ValueError, match="overlap_tp_comm true cannot run with fp8_recipe blockwise"):
        Training(seq_len=8192, global_batch=512, precision="fp8", fp8_recipe="blockwise", overlap_tp_comm=True)
    with pytest.raises(ValueError, match="Unsupported quantizer for Userbuffers"):
        CaseTraining(seq_len=8192, global_batch=512, precision="fp8", fp8_recipe="blockwise", overlap_tp_comm=True,
                     tp=2, pp=1, dp=1)
    h100 = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))

    def tp(recipe, overlap):
        job = Job(LLAMA, 4096, 1, precision="fp8", fp8_recipe=recipe, overlap_tp_comm=overlap)
        return float(layer_times(h100, job, tp=8.0, mb=1.0, cp=1.0, ep=1.0, rc=0.0, sp=True).tp)

    assert tp("blockwise", True) == tp("blockwise", False)
    assert tp("tensorwise", True) != tp("tensorwise", False)
