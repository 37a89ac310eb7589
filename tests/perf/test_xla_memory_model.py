"""On a part whose own stack is not modelled (a TPU), the fit is Megatron's: said, and a stated layout is not refused.

newuser71's trial: Google's MaxText layout of Llama 2 70B on 512 TPU v5p (FSDP, tp 1, 4 sequences of 4,096 a chip,
remat `save_dot_except_mlpwi`; AI-Hypercomputer/maxtext tiering.md at 20a91e12, about 692 tokens/s per chip) read
"does not fit: needs 371.3 GB per accelerator, 102.0 GB available" and `archgen estimate` exited 1: the activation
memory is Korthikanti et al.'s (Megatron's recomputation), not XLA's. Now such a stated layout is estimated (691
tokens/s per chip) with a note that the verdict is Megatron's and whether it fits is not provided; a searched layout
is still chosen among those that fit by the model, which the note says. An NVIDIA or AMD part is judged as before.
"""

from __future__ import annotations

import dataclasses

import pytest

from archgen.perf.workload.memory_model_note import fit_judged, memory_model_note
from tests.conftest import shipped_edited

STATED = ("  precision: bf16\n  recompute: none\n"
          "  parallelism: {tp: 2, pp: 1, dp: 512, zero: 3, micro_batch: 1, interleave: 1}\n")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """The shipped TPU v4 job (1,024 chips, Llama 3.1 70B at 8K) with a stated layout of no recomputation."""
    return shipped_edited(tmp_path_factory.mktemp("xla"), "clusters/tpu-v4-pod.yaml",
                          "  global_batch: 512\n  precision: bf16\n", "  global_batch: 512\n" + STATED)


def _estimate(result, wid="llama3-70b-pretrain-tpu-v4"):
    return next(r.estimate for r in result.workloads.values() if r.workload.id == wid)


def test_a_stated_layout_that_does_not_fit_by_megatron_is_estimated(result):
    e = _estimate(result)
    need, have = e.memory["total"].m_as("B"), e.metrics["memory_per_gpu"].m_as("B") + \
        e.metrics["memory_headroom"].m_as("B")
    assert need > have                      # by the model's (Megatron's) memory it does not fit ...
    assert e.fits and not e.misfit          # ... and it is not refused
    assert e.metrics["step_time"].m_as("s") > 0
    (note,) = [n for n in e.notes if n.startswith("memory: the model's memory is Megatron's")]
    assert f"by it this stated layout needs {need / 1e9:.1f} GB per accelerator" in note
    assert "whether it fits is not provided" in note
    assert not [f for f in result.findings if f.id == "PERF002" and "tpu-v4" in f.object]


def test_a_searched_layout_says_whose_fit(shipped):
    e = next(r.estimate for r in shipped.workloads.values() if r.workload.id == "llama3-70b-pretrain-tpu-v4")
    (note,) = [n for n in e.notes if n.startswith("memory: the model's memory is Megatron's")]
    assert note.endswith("and the search kept only layouts that fit by it")


def test_an_nvidia_part_is_judged_as_before(h100, accelerators):
    assert fit_judged(h100, True) and fit_judged(h100, False)
    assert memory_model_note(h100, True, 1e12, False) == []


@pytest.mark.parametrize(("vendor", "stack"), [
    ("Google", "XLA on a TPU"), ("AWS", "the Neuron compiler on a Trainium"),
    ("intel", "Habana's graph compiler on a Gaudi"), ("Nexa Silicon", "Nexa Silicon's own compiler and runtime")])
def test_the_note_names_the_parts_own_stack(h100, vendor, stack):
    """newuser99: a start-up's own part (vendor Nexa Silicon, no CUDA compute capability) read "(XLA on a TPU: ...)"."""
    part = dataclasses.replace(h100, accelerator="nexa-nx1", vendor=vendor, compute_capability=0.0)
    (note,) = memory_model_note(part, False, 1e11, True)
    assert f"not that of nexa-nx1's own stack ({stack}: its rematerialisation policies" in note
    assert ("TPU" in note) == (vendor == "Google")
