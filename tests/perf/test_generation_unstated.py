"""An NVIDIA part that states no compute capability is not modelled as another vendor's without a word (newuser37).

NVIDIA has not published Rubin's compute capability, so a part drafted from its GTC 2025 / CES 2026 announcements left
it out: `perf.comm.nccl.generation` then gave no generation, the model ran NCCL's Simple protocol only and no NVLS
(its `scale_up.in_network_reduction: true` dropped silently), costed FP8 training by Hopper's rule, and its notes
read as if it were not an NVIDIA GPU ("its own stack's switches may differ"). The numbers stay (nothing is guessed
for it); `archgen check` flags the part (CAT008, CAT009) and the estimate names what it assumed.
"""

from __future__ import annotations

import pytest

from archgen.model.accelerator import Accelerator
from archgen.perf.comm import nccl
from archgen.perf.comm.algorithms import labelled
from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.perf.comm.group import Topo
from archgen.perf.hw import generation
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.defaults_note import (
    cuda_switches_note,
    fp4_format_note,
    fp8_copies_note,
    generation_note,
    nvls_note,
    stack_origin,
)
from archgen.perf.workload.unconfirmed_note import unconfirmed_figures, unconfirmed_read

GIB8 = 8 * 2**30


def _part(vendor: str = "NVIDIA", nvls: bool = True, **more) -> Accelerator:
    return Accelerator.model_validate({
        "kind": "Accelerator", "id": "rubin-draft", "vendor": vendor, "source": "announced", "memory": "288 GB",
        "memory_bandwidth": "22 TB/s", "peak": {"bf16": "8300 TFLOPS", "fp8": "16600 TFLOPS"}, "tdp": "1800 W",
        "scale_up": {"technology": "NVLink 6", "bandwidth": "1800 GB/s", "links": 18, "in_network_reduction": nvls},
        **more})


def _busbw(acc: Accelerator) -> float:
    hw = hardware_for(acc, scale_up_size=72)
    return float(bus_bandwidth("all_reduce", GIB8, float(collective_time(hw, "all_reduce", GIB8, 72, 72)), 72))


def test_the_numbers_move_with_the_capability_the_note_is_about():
    # what the note is about: stated 10.0 (Blackwell's row of NCCL's tables), NVLS runs and the busbw is higher
    assert _busbw(_part()) < _busbw(_part(compute_capability=10.0))


def test_a_collective_names_what_it_assumed_and_what_to_state():
    [note] = generation_note(hardware_for(_part(), scale_up_size=72), training=False)
    assert note.startswith("rubin-draft is an NVIDIA part (`vendor`) that states no `compute_capability`")
    assert "NCCL's Simple protocol only (no LL or LL128)" in note
    assert "its stated `scale_up.in_network_reduction: true` is not used" in note
    assert "FP8" not in note   # a collective quantises nothing
    assert "state `compute_capability` (NVIDIA's CUDA GPUs table), listed under `unconfirmed:`" in note
    # the NVLS it states is named once, in this note
    assert nvls_note(hardware_for(_part(), scale_up_size=72)) == []


def test_a_training_job_is_told_the_fp8_rule_and_not_that_its_stack_is_another_vendors():
    hw = hardware_for(_part(), scale_up_size=72)
    [note] = generation_note(hw, training=True)
    assert "FP8 training quantised by Transformer Engine's rule for Hopper" in note
    assert "the HybridEP MoE dispatcher refused" in note
    # the notes written for a part that is not an NVIDIA GPU stay away from it
    assert stack_origin(hw) == "" and fp4_format_note(hw, "fp4") == [] and fp8_copies_note(hw, "fp8", True) == []
    assert cuda_switches_note(hw, None) == []


def test_a_stated_capability_or_another_vendor_gets_no_note():
    assert generation_note(hardware_for(_part(compute_capability=10.0), scale_up_size=72), training=True) == []
    amd = hardware_for(_part(vendor="AMD", nvls=False), scale_up_size=8)
    assert generation_note(amd, training=True) == []
    assert fp8_copies_note(amd, "fp8", True) != []   # the AMD wording is unchanged


def test_nvls_below_hopper_or_without_a_capability_is_said_to_be_unused():
    ampere = hardware_for(_part(compute_capability=8.0), scale_up_size=8)
    [note] = nvls_note(ampere)
    assert "NCCL runs NVLS from compute capability 9.0" in note and "states compute capability 8.0" in note
    other = hardware_for(_part(vendor="Intel"), scale_up_size=8)
    assert "states no compute capability" in nvls_note(other)[0]
    assert nvls_note(hardware_for(_part(compute_capability=9.0), scale_up_size=8)) == []
    assert nvls_note(hardware_for(_part(compute_capability=8.0), scale_up_size=1)) == []   # no domain to reduce in


def test_a_capability_stated_unconfirmed_is_named_where_the_estimate_reads_it():
    # CAT008's fix: state the figure you can stand behind, listed unconfirmed; the estimate then names it
    part = _part(compute_capability=10.0, unconfirmed=["compute_capability"])
    assert unconfirmed_read(unconfirmed_figures(part), None) == ("compute_capability",)   # a collective reads it
    assert generation_note(hardware_for(part, scale_up_size=72), training=True) == []


def test_the_hopper_cutoff_of_nvls_is_kept_once():
    """NVLS from Hopper was a rule in two places: `generation.NVLS_FROM` (CAT009, the estimate's note) and the
    algorithm choice's own `gen >= 2` on NCCL's generation index (leftovers21, issue 20). The choice now reads
    `generation.runs_nvls`, and the cutoff agrees with NCCL's table: `nvlsEfficiency` is 0 for the generations before
    it (NVIDIA/nccl 5067397c2676, src/graph/tuning.cc 139; `nccl.NVLS_EFFICIENCY`)."""
    for cc in (7.0, 8.0, 8.9, 9.0, 10.0, 12.0):
        assert generation.runs_nvls(True, cc) == (nccl.NVLS_EFFICIENCY[nccl.generation(cc)] > 0)
    hopper = hardware_for(_part(compute_capability=9.0), scale_up_size=8)
    assert "NVLS/Simple" in [n for n, _ in labelled(hopper, Topo(hopper, 8.0, 8.0), "all_reduce")]
    with pytest.MonkeyPatch.context() as mp:   # one constant moves every reader: the choice too
        mp.setattr(generation, "NVLS_FROM", 10.0)
        assert "NVLS/Simple" not in [n for n, _ in labelled(hopper, Topo(hopper, 8.0, 8.0), "all_reduce")]
        assert nvls_note(hopper) != []


def test_a_chip_swapped_into_an_nvls_domain_is_not_said_to_state_it():
    """A sweep's `accelerator` axis keeps the cluster's domain (`Hardware.with_chip`): an MI355X (which states
    `in_network_reduction: false`) put in a DGX B200's NVSwitch domain was said to "state
    `scale_up.in_network_reduction: true`" (newuser93); the note names the domain's statement, not the part's."""
    domain = hardware_for(_part(compute_capability=10.0), scale_up_size=8)
    chip = hardware_for(_part(vendor="AMD", nvls=False), scale_up_size=1)
    [note] = nvls_note(domain.with_chip(chip))
    assert "states `scale_up.in_network_reduction: true`" not in note
    assert "scale-up domain is stated to reduce in the network" in note and "states no compute capability" in note
