"""The KV cache's share of memory is its engine's own rule, not vLLM's for every job (kvrule37, issue 20).

newuser95 found every serving job sized its cache in 90 % of HBM less the weights, vLLM's gpu_memory_utilization
rule, while an NVIDIA job runs TensorRT-LLM, whose KvCacheConfig.free_gpu_memory_fraction (0.9 where unset) is a
share of the memory left once the weights are loaded: `available_kv_mem = (total_gpu_memory - peak_memory + ...) x
fraction` (NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/_util.py at d8ae02ca, `_cal_max_tokens`), where vLLM
takes `total_gpu_memory x gpu_memory_utilization - peak_memory` (vllm-project/vllm vllm/v1/worker/gpu_worker.py at
0012cf69) and SGLang `available_gpu_memory - total_gpu_memory x (1 - mem_fraction_static)` (sgl-project/sglang
model_runner_kv_cache_mixin.py at 226149ac). Each fraction is a key of its engine's name; another engine's key is
refused, and SGLang's, which has no fixed default, is stated. kvpeak37: the peak TensorRT-LLM and vLLM take out is the
weights plus `perf.serve.profile_peak` (the largest activation of a max_num_tokens pass, the CUDA context, NCCL).
"""

from __future__ import annotations

import math

import pytest
import yaml

from archgen.errors import InternalError, ValidateError
from archgen.model.inference import Inference
from archgen.model.kv_memory import KV_RULES, kv_memory
from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.engine_defaults import job_of, kv_rule_of
from archgen.perf.serve.inference import ServeJob, estimate_inference, weights_per_gpu
from archgen.pipeline import run
from archgen.scoring.catalog import load_accelerators
from tests.conftest import SPECS

SERVE = ("kind: Workload\nid: long\nname: long requests\nmodel: llama3-8b\ncluster: {cluster}\n"
         "accelerators: 8\ninference: {{precision: fp8, tp: 1, input_len: 4096, output_len: 4096{extra}}}\n")
#: Llama 3.1 8B's KV cache a sequence: 32 layers x 8 KV heads x 128 head dim x K and V x 1 B (FP8) x 8,192 tokens.
KV_PER_SEQ = 32 * 8 * 128 * 2 * 1 * 8192
GIB = 2**30
#: The profiling peak beyond the weights of Llama 3.1 8B on one B200 (tp 1, no NCCL), max_num_tokens 8,192: the
#: largest tensor of the pass, and under TensorRT-LLM the CUDA context 0.4 GB (hw/reserve.py). TensorRT-LLM: the FFN's
#: gate+up output, 8,192 tokens x 2 x 14,336 x 2 B (BF16); vLLM: the sampler's FP32 logits, min(8,192, max_num_seqs
#: 1,024) x 128,256 x 4 B, which is larger, and no CUDA context: vLLM's memory snapshot is taken once the context and
#: NCCL are up, so they sit in its 1 - fraction (review57; kvpeak37 took 0.4 GB out of vLLM's budget too).
TRT_PEAK = 0.4e9 + 8192 * 2 * 14336 * 2
VLLM_PEAK = 1024 * 128256 * 4


def _run(spec_tree, extra: str = "", cluster: str = "dgx-b200-superpod"):
    root = spec_tree({"w.yaml": SERVE.format(cluster=cluster, extra=extra)})
    return run([root, SPECS / "clusters", SPECS / "racks"]).workloads["workload/long"]


def _llama8b() -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "llama3-8b.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def _weights() -> float:
    return float(weights_per_gpu(_llama8b(), "fp8", 1))


def test_the_rules_from_the_engines_code() -> None:
    trt, vllm, sglang = KV_RULES["tensorrt-llm"], KV_RULES["vllm"], KV_RULES["sglang"]
    # (total - weights) x fraction against total x fraction - weights, on 180 GiB with 9 GB of weights
    assert kv_memory(trt, 0.9, 180 * GIB, 9e9) == pytest.approx(0.9 * (180 * GIB - 9e9))
    assert kv_memory(vllm, 0.9, 180 * GIB, 9e9) == pytest.approx(0.9 * 180 * GIB - 9e9)
    assert kv_memory(sglang, 0.85, 180 * GIB, 9e9) == pytest.approx(0.85 * 180 * GIB - 9e9)
    # SGLang's fraction is of what is free before the weights load, the runtime (CUDA context, NCCL) up (review57)
    assert kv_memory(sglang, 0.85, 180 * GIB, 9e9, 1e9) == pytest.approx(0.85 * (180 * GIB - 1e9) - 9e9)
    # TensorRT-LLM leaves the runtime 10 % of what the weights leave, so its cache is 0.1 x weights larger
    assert kv_memory(trt, 0.9, 180 * GIB, 9e9) - kv_memory(vllm, 0.9, 180 * GIB, 9e9) == pytest.approx(0.9e9)
    assert (trt.default, vllm.default, sglang.default) == (0.9, 0.9, None)


def test_an_nvidia_job_sizes_its_cache_by_tensorrt_llm_s_rule(spec_tree) -> None:
    w = _weights()
    trt = _run(spec_tree).estimate
    vllm = _run(spec_tree, ", engine: vllm, kv_reserve: full").estimate   # vLLM's own reserve is "mean"
    # 308 and 307 before the profiling peak was held (kvrule37); 307 and 305 with it (kvpeak37); vLLM 306 without
    # the CUDA context its snapshot leaves out (review57)
    assert trt.metrics["concurrency"].m == math.floor(0.9 * (180 * GIB - w - TRT_PEAK) / KV_PER_SEQ) == 307
    assert vllm.metrics["concurrency"].m == math.floor((0.9 * 180 * GIB - w - VLLM_PEAK) / KV_PER_SEQ) == 306
    assert "90% of the HBM left after its profiling peak (TensorRT-LLM's free_gpu_memory_fraction)" \
        in trt.conventions["memory_reserve"]
    assert "90% of HBM, less its profiling peak (vLLM's gpu_memory_utilization)" in vllm.conventions["memory_reserve"]


@pytest.mark.parametrize(("extra", "share", "peak", "space"), [
    (", free_gpu_memory_fraction: 0.5", 0.5, TRT_PEAK, lambda w, p: 0.5 * (180 * GIB - w - p)),
    (", engine: vllm, kv_reserve: full, gpu_memory_utilization: 0.5", 0.5, VLLM_PEAK,
     lambda w, p: 0.5 * 180 * GIB - w - p),
    # SGLang runs no profiling pass; its fraction is of what is free before the weights load, the CUDA context (0.4 GB)
    # up: `total_gpu_memory` in profile_max_num_token is ModelRunner.init_torch_distributed's free memory (review57)
    (", engine: sglang, max_batch_size: 4096, mem_fraction_static: 0.5", 0.5, 0.4e9,
     lambda w, p: 0.5 * (180 * GIB - p) - w)])
def test_a_stated_fraction_is_honoured(spec_tree, extra: str, share: float, peak: float, space) -> None:
    est = _run(spec_tree, extra).estimate
    space = space(_weights(), peak)
    assert est.metrics["concurrency"].m == math.floor(space / KV_PER_SEQ), extra
    assert "50% of" in est.conventions["memory_reserve"] and "as the job states" in est.conventions["memory_reserve"]


def test_another_engine_s_key_is_refused(spec_tree) -> None:
    with pytest.raises(ValidateError) as err:
        _run(spec_tree, ", engine: vllm, free_gpu_memory_fraction: 0.9")
    text = str(err.value)
    assert "inference.free_gpu_memory_fraction: free_gpu_memory_fraction is TensorRT-LLM's" in text, text
    assert "this job runs vLLM, whose own is gpu_memory_utilization" in text


def test_a_key_foreign_to_the_vendor_s_engine_is_refused_at_estimate(cli, tmp_path) -> None:
    # no engine stated: an AMD part runs vLLM (model/engine.py VENDOR_ENGINES), which has no free_gpu_memory_fraction
    lines = ["kind: Workload", "id: w", "name: w", "model: llama3-8b", "cluster: mi355x-th5", "accelerators: 8",
             "inference:", "  precision: fp8", "  tp: 1", "  input_len: 128", "  output_len: 128",
             "  free_gpu_memory_fraction: 0.9"]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    assert r.code != 0 and f"w.yaml:{len(lines)}:" in r.err and "Traceback" not in r.err, r.err
    assert "free_gpu_memory_fraction is TensorRT-LLM's KV cache fraction, and this job runs vLLM" in r.err


def test_an_sglang_job_states_its_fraction(spec_tree) -> None:
    with pytest.raises(ValidateError) as err:
        _run(spec_tree, ", engine: sglang, max_batch_size: 4096")
    text = str(err.value)
    assert "inference.mem_fraction_static: SGLang has no fixed default" in text and "469c63e5" in text, text


def test_the_closed_form_takes_the_job_s_rule() -> None:
    hw = hardware_for(load_accelerators()["b200-sxm-180gb"], scale_up_size=8)
    arch = _llama8b()
    base = ServeJob(arch, 4096, 4096, kv_rule=KV_RULES["vllm"], kv_fraction=0.9)
    trt = ServeJob(arch, 4096, 4096, kv_rule=KV_RULES["tensorrt-llm"], kv_fraction=0.9)
    e0, e1 = estimate_inference(hw, base, 1), estimate_inference(hw, trt, 1)
    # vLLM's rule takes its whole peak out, TensorRT-LLM's 0.9 of it; their peaks differ by their largest tensor
    # (`TRT_PEAK`: the ServeJob's max_batch_size 2,048 rows of logits, 1.05 GB, outweigh the FFN's output for vLLM,
    # which holds no CUDA context: review57)
    vllm_peak = 2048 * 128256 * 4
    want = 0.1 * float(e0.weights_per_gpu) + vllm_peak - 0.9 * TRT_PEAK
    assert float(e1.kv_space) - float(e0.kv_space) == pytest.approx(want)
    assert float(e1.kv_batch) == math.floor(float(e1.kv_space) / float(e1.kv_per_sequence_per_gpu))


def test_the_profiling_peak_is_held_only_where_the_engine_profiles() -> None:
    """kvpeak37: TensorRT-LLM's and vLLM's peak beyond the weights; under SGLang's rule (no profiling pass) the
    runtime up before the weights load alone (review57: none before, while SGLang measures after NCCL's init); on a TPU
    (Google) no CUDA context or NCCL communicator is held, the activations still are."""
    from archgen.perf.serve.profile_peak import memory_reserve, profile_peak
    arch, kw = _llama8b(), {"tokens": 8192, "seqs": 1024, "attention_dp": False}
    assert profile_peak(KV_RULES["sglang"], arch, 2, vendor="NVIDIA", **kw) == pytest.approx(0.4e9 + 0.688e9)
    trt = profile_peak(KV_RULES["tensorrt-llm"], arch, 2, vendor="NVIDIA", **kw)
    # TP 2: the FFN's gate+up output, 8,192 x 2 x 14,336 / 2 x 2 B, the CUDA context and one NCCL communicator
    assert trt == pytest.approx(8192 * 14336 * 2 + 0.4e9 + 0.688e9)
    tpu = profile_peak(KV_RULES["vllm"], arch, 2, vendor="Google", **kw)
    assert tpu == pytest.approx(1024 * 128256 * 4)   # vLLM's FP32 logits alone, larger than the FFN's output
    # vLLM takes its memory snapshot once the CUDA context and NCCL are up (gpu_worker.py Worker.init_device), so its
    # budget holds neither, on any vendor's part (review57: kvpeak37 held both, 1.09 GB at tp 2)
    assert profile_peak(KV_RULES["vllm"], arch, 2, vendor="NVIDIA", **kw) == pytest.approx(tpu)
    assert "no runtime figure (vLLM takes its memory snapshot once the CUDA context and NCCL are up" in \
        memory_reserve("HBM", KV_RULES["vllm"], 0.9, "NVIDIA")


def test_a_serve_job_s_defaults_are_one_engine_s() -> None:
    """kvtidy38 (review57): a ServeJob's KV rule was vLLM's while its max_batch_size 2,048, max_num_tokens 8,192 and
    whole-request reservation are TensorRT-LLM's, a stack no engine runs; its defaults are now all TensorRT-LLM's."""
    job = ServeJob(_llama8b(), 4096, 4096)
    assert (job.kv_rule, job.kv_fraction) == (KV_RULES["tensorrt-llm"], 0.9)
    assert (job.max_batch_size, job.max_num_tokens, job.kv_reserve) == (2048, 8192, "full")


def test_an_unstated_sglang_fraction_fails_loudly_past_its_problem() -> None:
    """kvtidy38 (review57): `kv_rule_of` gave an SGLang job that states no mem_fraction_static a fraction of 0.0 and
    left the refusal to its caller's reading of the problems; a caller that dropped them built an empty cache. The
    fraction is None now and `job_of` refuses it. The Inference validator refuses such a job first (above), so it is
    built here past the validator, as a caller holding an unchecked one would."""
    inf = Inference.model_construct(engine="sglang", max_batch_size=64, input_len=4096, output_len=4096)
    rule, fraction, problems = kv_rule_of(inf, "NVIDIA")
    assert (rule, fraction) == (KV_RULES["sglang"], None)
    assert [key for key, _ in problems] == ["mem_fraction_static"]
    assert rule.words(fraction) == "a share of HBM not provided (SGLang's mem_fraction_static is not stated)"
    with pytest.raises(InternalError, match="no KV cache fraction for SGLang: mem_fraction_static is not stated"):
        job_of(inf, _llama8b(), 64, "full", rule, fraction)
    stated = Inference.model_construct(engine="sglang", max_batch_size=64, input_len=4096, output_len=4096,
                                       mem_fraction_static=0.8)
    assert kv_rule_of(stated, "NVIDIA") == (KV_RULES["sglang"], 0.8, [])
