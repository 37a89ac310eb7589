"""A requirement met on failure rates measured on another accelerator names the borrowed set among its inputs.

The input that showed it (new-user trial, a fleet reliability engineer): `mtti >= 24 h` on a 1,152-GPU GB200
cluster read "met (on assumed inputs: cable failure rate, switch failure rate, transceiver failure rate)" in `gap`
and REQ005: the GPU, host, NIC and software rates under it are Llama 3's H100 counts (`field-h100-2024`, scope
`h100-sxm5-80gb`), which only REL007, an info finding about the cluster, said. A rate set is sourced,
but that it carries over to another accelerator is an assumption, so the requirement's own line now says so.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from tests.conftest import REPO, shipped_edited

BORROWED = "'field-h100-2024' failure rates (measured on h100-sxm5-80gb; gb200 borrows them)"
REQ = "  - {id: REQ-REL-MTTI, statement: MTTI of a job on every GPU, metric: mtti, target: \">= 1 h\"}\n"

ANCHOR = "target: \"== 8\"}\n"   # the cluster's last requirement: REQ goes after it


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """`check` of the shipped specs with an MTTI target on the GB200 SU (its rates: the default H100 set)."""
    return shipped_edited(tmp_path_factory.mktemp("borrowed"), "clusters/gb200-nvl72-su.yaml", ANCHOR, ANCHOR + REQ)


def test_a_requirement_met_on_borrowed_rates_names_the_set(result):
    (finding,) = [f for f in result.findings if f.id == "REQ005" and f.requirement == "REQ-REL-MTTI"]
    assert BORROWED in finding.message, finding.message
    assumed = result.operations.assumed["cluster/gb200-nvl72-su"]
    for metric in ("mtti", "interruptions_per_day", "goodput"):
        assert BORROWED in assumed[metric], metric


def test_a_cluster_on_its_own_accelerators_rates_borrows_nothing():
    """The Llama 3 stand-in runs on H100, the set's own scope: no set borrowed for its accelerator among its inputs.

    The one borrowed input is a class rate (issue 22): the set's switches take Alibaba HPN's ToR rate, since Llama 3
    does not split its network count, and a figure resting on it says so.
    """
    from archgen.pipeline import run

    with contextlib.chdir(REPO):
        r = run([Path("tests/data/reliability/llama3")])
    assumed = r.operations.assumed["cluster/llama3-16k"]
    borrowed = [x for x in assumed["mtti"] if "borrows" in x]
    assert assumed["mtti"] and not any("failure rates (measured on" in x for x in assumed["mtti"])
    assert borrowed == ["switch failure rate (measured by Alibaba Cloud, ToRs of its single-ToR LLM-training clusters "
                        "(Qian et al., HPN, SIGCOMM 2024, section 2.3); 'field-h100-2024' borrows it)"]
