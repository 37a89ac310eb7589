"""A serving pass launched without CUDA graphs takes at least its kernels' host launch time (eager40, issue 20).

graphs39 read that NVIDIA's MLPerf v5.1 Llama and Mixtral runs ran TensorRT engines under the executor with
cudaGraphMode false, and AMD's MI325X vLLM runs enforce_eager True, while the model charged every kernel its
in-graph cost only. `Inference.kernel_launch` states how a run launches ('graph', 'pytorch', 'tensorrt'); the host
issues an eager pass's kernels ahead of the GPU, so a pass takes max(GPU time, kernels x one launch's host time)
(`serve.pass_costs.host_floor`, figures in `perf.hw.launch`). The rows are tests/perf/data/mlperf-inference-v5.yaml's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from archgen.model.inference import Inference
from archgen.perf.hw import launch as L
from archgen.perf.serve.inference import estimate_inference
from archgen.perf.serve.pass_costs import host_floor, kernels_per_pass
from archgen.perf.serve.scheduler import estimate_serving
from archgen.scoring.cases import case_hardware, predicted, read_case_file, serve_job
from archgen.scoring.unstated import serving_range
from tests.perf.test_case_graph_padding import UNPADDED
from tests.perf.test_case_kv_fractions import ROWS

V5 = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5.yaml"
SERVER_8B = "mlperf51-llama31-8b-server-8xb200-tp1-fp4"


@pytest.fixture(scope="module")
def eight_b(accelerators):
    case = next(c for c in read_case_file(V5).cases if c.id == SERVER_8B)
    hw = case_hardware(case, accelerators)
    return case, hw, serve_job(case, hw)


def test_the_launch_figures_are_the_cited_ones():
    """TE #2053's 13.48 us eager PyTorch op; HTA's 5-20 us launch call, a TensorRT engine's, scored at its low end."""
    assert L.HOST_OP_TIME == 13.48e-6 and L.LAUNCH_RANGE == L.TENSORRT_LAUNCH == (5e-6, 20e-6)
    assert L.HOST_PER_LAUNCH == {"graph": 0.0, "pytorch": 13.48e-6, "tensorrt": 5e-6}


def test_the_floor_is_the_pass_kernels_times_one_launch(eight_b):
    case, _, job = eight_b
    assert case.inference.kernel_launch == "tensorrt" and job.launch_host == 5e-6
    kernels = float(kernels_per_pass(job.arch, 1, job.attention_dp, job.precision, job.ffn_activation,
                                     job.quantised_attention))
    assert kernels == 388   # Llama 3.1 8B: 32 layers x (5 attention + 4 FFN + 3 FP4 casts) + 4 a pass
    assert float(host_floor(job, 1)) == pytest.approx(kernels * 5e-6, rel=1e-12)
    assert host_floor(replace(job, launch_host=0.0), 1) == 0.0


def test_a_short_step_waits_for_its_host_and_a_long_one_does_not(eight_b):
    _, hw, job = eight_b
    graph, eager = replace(job, launch_host=0.0), replace(job, launch_host=L.HOST_OP_TIME)
    floor = float(host_floor(eager, 1))
    one_graph, one_eager = estimate_inference(hw, graph, 1, 1), estimate_inference(hw, eager, 1, 1)
    assert float(one_graph.decode_step) < floor   # one sequence's step is shorter than issuing its 388 kernels
    assert float(one_eager.decode_step) == pytest.approx(floor, rel=1e-12)
    assert float(one_eager.tpot) > float(one_graph.tpot)
    full_graph, full_eager = estimate_inference(hw, graph, 1, 2048), estimate_inference(hw, eager, 1, 2048)
    assert float(full_eager.decode_step) == float(full_graph.decode_step) > floor   # the host hides behind the GPU


def test_a_simulated_run_of_one_request_steps_at_the_host_floor(eight_b):
    _, hw, job = eight_b
    loop = replace(job, scenario="concurrency", output_len=64)
    eager = replace(loop, launch_host=L.HOST_OP_TIME)
    floor = float(host_floor(eager, 1))
    graph_est, _ = estimate_serving(hw, loop, 1, 1, load=False)
    eager_est, _ = estimate_serving(hw, eager, 1, 1, load=False)
    assert float(graph_est.tpot) < floor
    assert float(eager_est.tpot) == pytest.approx(floor, rel=1e-9)


def test_padding_the_graphs_of_an_eager_run_is_refused():
    with pytest.raises(ValueError, match="replays none: remove one of the two"):
        Inference(tp=1, input_len=128, output_len=128, scenario="concurrency", batch=8, graph_batch_sizes=[8],
                  kernel_launch="pytorch")


def test_every_row_that_ran_without_graphs_states_how_it_launched():
    """A source quoting use_graphs False or the 8B's unused flags ran a TensorRT engine; enforce_eager True, vLLM
    eagerly. The Offline rows of the same harnesses state it too (graphs39: the executor core never reads the
    flags; AMD's offline config also sets enforce_eager), 24 rows in all (four Interactive rows since
    interactive40)."""
    for name, i, case in ROWS:
        said = UNPADDED.search(case["source"])
        launch = case["inference"].get("kernel_launch")
        if said:
            assert launch == ("pytorch" if said.group(0) == "enforce_eager True" else "tensorrt"), f"{name}:{i}"
        if launch not in (None, "graph"):
            assert "graph_batch_sizes" not in case["inference"], f"{name}:{i}"
    launched = sorted(i for _, i, c in ROWS if c["inference"].get("kernel_launch"))
    assert len(launched) == 24
    assert [i for i in launched if "mi325x" in i] == ["mlperf51-llama2-70b-offline-8xmi325x-vllm-tp1-fp8",
                                                      "mlperf51-llama2-70b-server-8xmi325x-vllm-tp1-fp8"]


def test_the_range_reaches_the_high_end_launch(eight_b, accelerators):
    """The 8B Server row's short iterations wait for 388 launches at 20 us (7.8 ms) but not at 5 us (1.9 ms): its
    range (over the part's efficiency ranges too) reaches at least the 20 us prediction."""
    case, _, _ = eight_b
    scored = predicted(case, accelerators)
    high = predicted(case, accelerators, load=False, launch_host=L.TENSORRT_LAUNCH[1]).values
    low_end, high_end = serving_range(case, accelerators, scored)["tpot"]
    assert high_end >= high["tpot"] > scored.values["tpot"] * 1.5
    assert low_end <= scored.values["tpot"]
