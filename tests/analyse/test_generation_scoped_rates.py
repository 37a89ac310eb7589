"""A rate set whose dates rule out a generation is borrowed on it; one that leaves the model unstated says so.

newuser41's open item 5 (nu41misc item 1): StepFun's set (`stepfun-nvidia-2024`) was not called borrowed on the
shipped B200 and GB200 designs, nor on the trial's GB300 one, though its trace begins on March 30, 2024
(github.com/stepfun-ai/InfiniteHBD-Trace README.md), twelve days after NVIDIA announced Blackwell with products
"later this year" (the set's yaml cites it): its GPUs are Hopper (compute capability 9.0) or older. The set now
states `compute_capability_max: 9.0`, and a design whose accelerator is newer (B200's 10.0, GB300's 10.3, from their
catalog entries) is told it borrows it. An H100 design is in scope, but the trace does not state its GPU model either:
REL007 and the document say "accelerator not stated by the source".
"""

from __future__ import annotations

import pytest

from archgen.analyse.rate_sets import measured_outside, unstated
from archgen.model.reliability import FailureRates
from tests.conftest import shipped_edited

SCOPE = "NVIDIA accelerators of an unstated model, compute capability 9.0 or older"


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """`check` of the shipped specs with the DGX B200 SuperPOD on StepFun's set."""
    return shipped_edited(tmp_path_factory.mktemp("generation"), "clusters/dgx-b200-superpod.yaml",
                          "facility: hall-air\n", "facility: hall-air\nfailure_rates: stepfun-nvidia-2024\n")


def test_a_blackwell_cluster_on_a_2024_trace_is_told_it_borrows_it(result):
    (rel007,) = [f for f in result.findings if f.id == "REL007" and f.object == "cluster/dgx-b200-superpod"]
    assert f"the 'stepfun-nvidia-2024' rates were measured on {SCOPE}" in rel007.message, rel007.message
    stepfun = result.specs.get("stepfun-nvidia-2024")
    assert isinstance(stepfun, FailureRates)
    for acc in ("b200-sxm-180gb", "gb200", "gb300", "b300-sxm-288gb"):    # compute capability 10.0 and 10.3
        assert measured_outside(result.specs, stepfun, acc) == SCOPE, acc


def test_a_hopper_or_ampere_design_is_told_the_model_is_unstated(result):
    stepfun = result.specs.get("stepfun-nvidia-2024")
    assert isinstance(stepfun, FailureRates)
    for acc in ("h100-sxm5-80gb", "a100-sxm4-80gb"):                      # 9.0 and 8.0: in scope, not shown to be it
        assert measured_outside(result.specs, stepfun, acc) == ""
        said = unstated(result.specs, [stepfun], acc)
        assert said.startswith(f"accelerator not stated by the source of 'stepfun-nvidia-2024' ({SCOPE})"), said
    field = result.specs.get("field-h100-2024")
    assert isinstance(field, FailureRates) and unstated(result.specs, [field], "h100-sxm5-80gb") == ""


def test_the_range_of_a_blackwell_design_names_stepfun(result):
    rel = result.operations.reliability["cluster/gb200-nvl72-su"]
    assert rel.spread and "'stepfun-nvidia-2024' (" + SCOPE + ")" in rel.borrowed, rel.borrowed


def test_the_scope_needs_a_vendor():
    from archgen.model.spec import FieldError

    with pytest.raises(Exception, match="compute_capability_max") as info:
        FailureRates.model_validate({"id": "x", "name": "x", "compute_capability_max": 9.0, "classes": {}})
    assert isinstance(info.value, (FieldError, ValueError))
