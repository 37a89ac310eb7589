"""A part's unstated scale-up figures take NCCL's own, and estimates name them (newuser37's finding).

A part announced with NVLink and NVLS but no measurement (NVIDIA Rubin, drafted from GTC 2025 / CES 2026 figures)
left `efficiency.in_network_reduction` out and got 0.8, a figure NCCL gives no generation (src/graph/tuning.cc line
139, `nvlsEfficiency`: 0.85 Hopper, 0.74 Blackwell and later, `perf.comm.nccl.NVLS_EFFICIENCY`): its 72-GPU
all-reduce read 1,978 GB/s busbw, NCCL's own figure gives 1,830. Neither that nor the 1.9 us NVLink LL128 step it
took as its scale-up latency was named in the estimate's notes.
"""

from __future__ import annotations

from archgen.model.accelerator import Accelerator
from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.perf.comm.nccl import NVLS_EFFICIENCY
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.defaults_note import defaults_note

GIB8 = 8 * 2**30


def _part(**efficiency) -> Accelerator:
    scale_up = {"technology": "NVLink 6", "bandwidth": "1800 GB/s", "links": 18, "in_network_reduction": True}
    if "latency" in efficiency:
        scale_up["latency"] = efficiency.pop("latency")
    return Accelerator.model_validate({
        "kind": "Accelerator", "id": "next-gen", "source": "announced", "memory": "288 GB",
        "memory_bandwidth": "22 TB/s", "peak": {"bf16": "8300 TFLOPS"}, "tdp": "1800 W", "compute_capability": 10.0,
        "scale_up": scale_up, **({"efficiency": efficiency} if efficiency else {})})


def _busbw(acc: Accelerator) -> float:
    hw = hardware_for(acc, scale_up_size=72)
    return float(bus_bandwidth("all_reduce", GIB8, float(collective_time(hw, "all_reduce", GIB8, 72, 72)), 72))


def test_an_unstated_nvls_efficiency_is_nccls_figure_for_the_generation():
    assert NVLS_EFFICIENCY[3] == 0.74  # tuning.cc line 139: compute capability 10 and later
    assert _busbw(_part()) == _busbw(_part(in_network_reduction=0.74))
    assert _busbw(_part()) < _busbw(_part(in_network_reduction=0.8))  # the old default, sourced nowhere


def test_the_estimate_names_the_scale_up_defaults_it_took():
    [note] = defaults_note(hardware_for(_part(), scale_up_size=72), collective=True)
    assert "NVLS (in-switch reduction) efficiency, NCCL's nvlsEfficiency" in note
    assert "scale-up latency 1.9 us per ring step, NCCL's LL128 step over NVLink" in note
    assert "vector" not in note  # a collective's time reads no vector rate


def test_a_part_that_states_them_is_told_nothing():
    stated = _part(in_network_reduction=0.74, latency="1.9 us", vector=0.9, gemm_half_size=128)
    assert defaults_note(hardware_for(stated, scale_up_size=72)) == []
    alone = hardware_for(_part(), scale_up_size=1)  # one device: no scale-up step, no NVLS
    assert not any("NVLS" in n or "scale-up latency" in n for n in defaults_note(alone))


def test_another_vendors_part_is_not_told_nvlink_or_tensor_cores_are_its_own():
    """An Intel part that states no latency or GEMM tile (as Gaudi 3's RoCE mesh): the same 1.9 us and 128, said to
    be another vendor's step and not its own (nu50fix; before, "NCCL's LL128 step over NVLink", "one tensor-core
    tile" as if it had them)."""
    acc = _part().model_copy(update={"vendor": "Intel", "compute_capability": None})
    [note] = defaults_note(hardware_for(acc, scale_up_size=8))
    assert ("scale-up latency 1.9 us per ring step, a step on another vendor's link (NCCL's LL128 step over NVIDIA's "
            "NVLink, `model.accelerator.ScaleUp`), not a figure of next-gen's own scale-up link") in note
    assert "one 128-wide matrix-unit tile, not a figure of next-gen's own matrix units" in note
    assert "tensor-core" not in note
