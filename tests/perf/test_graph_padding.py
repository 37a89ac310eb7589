"""CUDA-graph padding of decode-only iterations, as TensorRT-LLM pads them (serve31, issue 20).

The MLPerf v5.1 DeepSeek-R1 Server runs capture decode batches [128, 256, 384, 512] (GB200: powers of two to 256,
then 384 and 512) with `cuda_graph_padding_enabled` (mlcommons/inference_results_v5.1 at 965182b0,
closed/NVIDIA/configs/*/Server/deepseek-r1.py). `CUDAGraphRunner._get_padded_batch` (NVIDIA/TensorRT-LLM 7b437aaa,
tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py): under attention DP every generation-only rank pads to the
smallest captured size at or above the largest rank's batch, none past max_batch_size, none above the largest size.
The cases below follow from that by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from archgen.model.inference import Inference
from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve import inference as I
from archgen.perf.serve.graph_padding import largest, padded
from archgen.perf.serve.scheduler import _loop, _Pass
from tests.conftest import SPECS

B200 = (128, 256, 384, 512)
GB200 = (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512)


def test_each_rank_pads_to_the_next_captured_size_of_the_busiest():
    # 490 decodes on 8 ranks: the busiest holds 62, padded to 128 a rank, 1,024 tokens (GB200's sizes: 64, 512)
    assert padded(490, 8, B200, 512) == 8 * 128
    assert padded(490, 8, GB200, 512) == 8 * 64
    assert padded(8 * 129, 8, B200, 512) == 8 * 256
    assert padded(8 * 512, 8, B200, 512) == 8 * 512        # a full size: no dummies
    assert padded(8 * 600, 8, B200, 2048) == 8 * 600       # above the largest size: eager, unpadded
    assert padded(100, 8, B200, 64) == 100                 # 128 is past max_batch_size 64: not padded
    assert padded(100, 1, B200, 2048) == 128               # one rank (no attention DP)
    assert padded(100, 8, None, 512) == 100
    assert largest(B200, 8, 512) == 4096 and largest(B200, 8, 300) == 2048 and largest(None, 8, 512) == 0


@pytest.fixture(scope="module")
def deepseek():
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_a_padded_decode_step_times_the_padded_pass_and_the_real_contexts(accelerators, deepseek):
    """DeepSeek-V3 FP8, tp = ep = 8 under attention DP on B200, 8 requests at t = 0 (one a rank), 512 + 16 tokens:
    after the prompts' iteration each of the 15 decode steps runs the pass over 8 x 128 tokens (each rank padded
    from 1 to 128) and the attention over the 8 real sequences: rest(1024, 1024) + unit x 8 x (513 + k). Unpadded,
    rest(8, 8) + the same attention."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    inp, out = 512, 16
    arrivals = np.zeros(8)

    def decode_time(sizes):
        job = I.ServeJob(deepseek, inp, out, "fp8", ep=8, attention_dp=True, scenario="concurrency",
                         max_batch_size=512, graph_sizes=sizes)
        p = _Pass(hw, job, 8, 8 * 512 + 1)
        t = _loop(p, job, arrivals.copy(), 64, None, job.max_num_tokens)
        return float(t.finish[0] - t.first[0]), p

    plain, p = decode_time(None)
    pad, _ = decode_time(B200)
    attention = sum(p.dec_unit * 8 * (inp + 1 + k) for k in range(out - 1))
    assert plain == pytest.approx((out - 1) * p.rest(8, 8) + attention, rel=1e-9)
    assert pad == pytest.approx((out - 1) * p.rest(1024, 1024) + attention, rel=1e-9)
    assert pad > plain


def test_a_job_states_graph_sizes_for_a_simulated_run():
    """`graph_batch_sizes` (not TensorRT-LLM's `cuda_graph_batch_sizes`: a key naming CUDA graphs is refused as a
    feature, and the refusal names this field, `serving_features.CUDA_GRAPHS`)."""
    base = {"tp": 8, "input_len": 804, "output_len": 64, "graph_batch_sizes": [512, 128, 256, 128]}
    job = Inference.model_validate({**base, "scenario": "server", "arrival_rate": "5 1/s"})
    assert job.graph_batch_sizes == (128, 256, 512)
    with pytest.raises(ValueError, match="the offline closed form does not run it"):
        Inference.model_validate(base)
    with pytest.raises(ValueError, match="expected batch sizes above 0"):
        Inference.model_validate({**base, "graph_batch_sizes": [0, 128], "scenario": "concurrency", "batch": 8})
