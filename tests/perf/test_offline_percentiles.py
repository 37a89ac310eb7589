"""A percentile target on an offline serving job is not provided, with the reason (newuser95).

A partner's SLA on `ttft_p99` or `tpot_p99` over the shipped offline job llama3-70b-serve-b200 read only "its ttft_p99
is not provided for this workload (docs/metrics.md)": the offline closed form simulates no request, so no percentile
exists; the finding now says so and what to state, as the offline TTFT's does (`serving_estimate.OFFLINE_TTFT`).
"""

from __future__ import annotations

import pytest

from tests.conftest import shipped_edited

SLA = ("kind: Requirements\nid: sla\nrequirements:\n"
       "  - {id: P-TTFT, statement: s, subject: workload/llama3-70b-serve-b200, metric: ttft_p99, target: '<= 2 s'}\n"
       "  - {id: P-TPOT, statement: s, subject: workload/llama3-70b-serve-b200, metric: tpot_p99, target: '<= 80 ms'}\n")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("sla")
    return shipped_edited(root, "workloads/llama3-70b.yaml", "id: llama3-70b-serve-b200", "id: llama3-70b-serve-b200",
                          {"requirements/sla.yaml": SLA})


@pytest.mark.parametrize(("req", "metric"), [("P-TTFT", "ttft_p99"), ("P-TPOT", "tpot_p99")])
def test_the_finding_says_why_and_what_to_state(run, req, metric):
    (f,) = [f for f in run.findings if f.requirement == req]
    assert (f.id, f.severity) == ("REQ002", "error")
    assert f"{metric} is a percentile over a simulated run's requests, and an offline run simulates none" in f.message
    assert "state scenario: server with an arrival_rate, or scenario: concurrency with batch" in f.message
