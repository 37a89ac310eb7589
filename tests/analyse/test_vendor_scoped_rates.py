"""A rate set measured on another vendor's GPUs of an unstated model is named as borrowed (newuser41 finding 2).

The input that showed it (new-user trial, a buyer's reliability and cost reviewer): a 4,096-GPU MI355X proposal that
names `failure_rates: stepfun-nvidia-2024` read `mtti >= 8 h` as "met (on assumed inputs: cable failure rate, switch
failure rate, transceiver failure rate, 'field-h100-2024' failure rates (...; mi355x borrows them))". StepFun's trace
gives the GPU, NIC, host and software rates, counted on NVIDIA GPUs (its fault descriptions are NVIDIA's: "GPU xid
Error", "nvidia-smi Timeout"; github.com/stepfun-ai/InfiniteHBD-Trace) of a model it does not state, so the set named
no `accelerators` and nothing said that an AMD design borrows them; only its base set's (H100) switch and link rates
were named. The set now states `accelerator_vendor: NVIDIA`, and a design on another vendor's accelerator is told.
"""

from __future__ import annotations

import pytest

from archgen.model.reliability import FailureRates
from tests.conftest import shipped_edited

STEPFUN = ("'stepfun-nvidia-2024' failure rates (measured on NVIDIA accelerators of an unstated model, compute "
           "capability 9.0 or older; mi355x borrows them)")
H100 = "'field-h100-2024' failure rates (measured on h100-sxm5-80gb; mi355x borrows them)"
REQ = ("requirements:\n  - {id: REQ-REL-MTTI-MI, statement: MTTI of a job on every GPU, subject: cluster/mi355x-th5, "
       "metric: mtti, target: \">= 1 h\"}\n")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """`check` of the shipped specs with the MI355X cluster on StepFun's set and an MTTI requirement on it."""
    return shipped_edited(tmp_path_factory.mktemp("vendor"), "clusters/mi355x-th5.yaml", "facility: hall-liquid\n",
                          "facility: hall-liquid\nfailure_rates: stepfun-nvidia-2024\n" + REQ)


def test_an_amd_cluster_on_nvidia_rates_names_both_sets(result):
    (rel007,) = [f for f in result.findings if f.id == "REL007" and f.object == "cluster/mi355x-th5"]
    assert "the 'stepfun-nvidia-2024' rates were measured on NVIDIA accelerators of an unstated model" \
        in rel007.message, rel007.message
    assumed = result.operations.assumed["cluster/mi355x-th5"]["mtti"]
    assert STEPFUN in assumed and H100 in assumed, assumed           # before: the H100 base set alone
    (req005,) = [f for f in result.findings if f.id == "REQ005" and f.requirement == "REQ-REL-MTTI-MI"]
    assert STEPFUN in req005.message


def test_an_nvidia_cluster_is_not_told_it_borrows_a_vendor_scoped_set(result):
    """A Hopper design is not outside the vendor's scope (its model is unstated, not another); a Blackwell design is
    outside the set's generation (`compute_capability_max`, tests/analyse/test_generation_scoped_rates.py)."""
    from archgen.analyse.rate_sets import measured_outside

    stepfun = result.specs.get("stepfun-nvidia-2024")
    assert isinstance(stepfun, FailureRates) and stepfun.accelerator_vendor == "NVIDIA"
    scope = "NVIDIA accelerators of an unstated model, compute capability 9.0 or older"
    assert measured_outside(result.specs, stepfun, "h100-sxm5-80gb") == ""
    assert measured_outside(result.specs, stepfun, "mi355x") == scope
    assert measured_outside(result.specs, stepfun, "tpu-v4") == scope
