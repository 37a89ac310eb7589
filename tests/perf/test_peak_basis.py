"""Announced peaks: whether a figure is dense is stated (`peak_basis`), and an assumed compute capability says what it
selects (newuser46's open list).

Before: a Rubin drafted from "1.2 EF FP8 training" took its 16,670 TFLOP/s as dense with no field to say whether
NVIDIA's figure counts sparsity (a 2x swing where 2:4 sparsity doubles the rate: H100 SXM FP8 3,958 sparse, 1,979
dense, h100-sxm5-80gb's source), and its guessed compute_capability 10.3 silently selected Blackwell's NCCL, NVLS
and Transformer Engine rules. Now a sparse figure is refused (its ratio to dense is no constant: a B300's FP4 is
18 | 14 PFLOPS sparse | dense, NVIDIA's Blackwell Ultra datasheet), an unconfirmed peak without a basis is flagged
(CAT010, tests/checks/cases/CAT010.yml), and an unconfirmed compute capability's estimate names what it takes from it.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.model.accelerator import Accelerator
from archgen.perf.workload.unconfirmed_note import keyed_on, mfu_peak, unconfirmed_figures, unconfirmed_note
from archgen.scoring.catalog import load_accelerators

LOW = ("fp8", "fp6", "fp4", "int8")


def _part(**extra) -> Accelerator:
    return Accelerator.model_validate({
        "kind": "Accelerator", "id": "rubin-draft", "vendor": "NVIDIA", "source": "announced", "memory": "288 GB",
        "memory_bandwidth": "22 TB/s", "peak": {"bf16": "8300 TFLOPS", "fp8": "16600 TFLOPS"}, "tdp": "1800 W",
        "compute_capability": 10.3, "unconfirmed": ["peak", "compute_capability"], **extra})


def test_a_sparse_peak_is_refused_with_why() -> None:
    with pytest.raises((ValidateError, ValueError)) as err:
        _part(peak_basis={"fp8": "sparse"})
    assert "peak.fp8 is a sparse figure" in str(err.value) and "18 / 14 = 1.29x" in str(err.value)
    with pytest.raises((ValidateError, ValueError)) as err:
        _part(peak_basis={"fp4": "dense"})
    assert "peak_basis.fp4 names no `peak` figure" in str(err.value)


def test_every_shipped_low_precision_peak_states_its_basis() -> None:
    """Each checked against the entry's cited source (its `source` and `notes`): all dense."""
    for acc in load_accelerators().values():
        for dt in LOW:
            if dt in acc.peak:
                assert acc.peak_basis.get(dt) == "dense", (acc.id, dt)


def test_the_mfu_peak_says_a_stated_basis() -> None:
    conventions = {"mfu_peak": "dense fp8 peak of rubin-draft: 16,600 TFLOP/s"}
    read = unconfirmed_figures(_part(peak_basis={"fp8": "dense"}))
    assert "peak.fp8" in read
    unstated = mfu_peak(conventions, read, "fp8")["mfu_peak"]
    assert "not confirmed dense" in unstated
    stated = mfu_peak(conventions, read, "fp8", ("fp8",))["mfu_peak"]
    assert stated == ("dense fp8 peak of rubin-draft, unconfirmed (dense as its source states it, `peak_basis`; the "
                      "figure itself not confirmed): 16,600 TFLOP/s")


def test_an_unconfirmed_compute_capability_names_what_it_selects() -> None:
    figures = unconfirmed_figures(_part())
    [rests, keyed] = unconfirmed_note("rubin-draft", figures, "fp8", (), 10.3, True)
    assert "compute_capability" in rests
    assert keyed.startswith("its unconfirmed compute_capability 10.3 is an assumed generation")
    assert "NCCL's Blackwell's (NCCL's newest) tuning constants" in keyed and "NVLS in-switch reduction" in keyed
    assert "FP8 tensors quantised once" in keyed and "several streams" in keyed and "MXFP8 recipe allowed" in keyed
    assert "HybridEP dispatcher allowed" in keyed
    assert "Hopper's" in keyed_on(9.0, False) and "FP8" not in keyed_on(9.0, False)
    assert "twice, once transposed" in keyed_on(9.0, True)
    # a confirmed compute capability: no such note
    assert len(unconfirmed_note("rubin-draft", unconfirmed_figures(_part(unconfirmed=["peak"])), "fp8", (),
                                10.3, True)) == 1
