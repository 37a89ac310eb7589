"""An offline run's TPOT carries the offline family's tokens/s band by Little's law (issue 20 part 7, offband38).

No published offline run's TPOT is scored (MLPerf's Offline scenario judges no latency; NVIDIA's perf-overview tables,
tests/perf/data/trtllm-perf-overview.yaml, give throughput alone), so offtpot37's TPOT, a request's mean gap over the
run (295.6 ms on the shipped llama3-70b-serve-b200, decode step 49.37 ms), read "no band" and a target it met was at
risk whatever its margin. But by Little's law a request lives batch x output_len / tokens/s per replica, so at one
split of that life between the first token and the gaps TPOT moves as 1 / tokens/s: the tokens/s band turned holds
it, each end at the scheduler's own end of the split (the decode step, the closed form's schedule). Where the batch is
the KV cache's capacity by the model's memory estimate, a met target stays at risk. The decode step alone is scored
by no run: no band, with why.
"""

from __future__ import annotations

import pytest

from archgen.model.at_risk import UNBANDED
from archgen.model.requirements import Requirement, Status
from archgen.model.target import Target
from archgen.perf.workload.band_families import UNSCORED
from archgen.perf.workload.band_lookup import offline_gap
from archgen.perf.workload.band_span import turned
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import band
from archgen.perf.workload.derived import judge_requirements
from archgen.units import Q_

B200 = "workload/llama3-70b-serve-b200"


def _req(metric: str, target: str) -> Requirement:
    return Requirement(id="REQ-T-1", statement="s", metric=metric, target=Target.parse(target))


@pytest.fixture(scope="module")
def est(shipped):
    return shipped.workloads[B200].estimate


def test_the_tpot_band_is_the_tokens_per_second_band_turned_from_the_step_to_the_schedule(est):
    """The ends: the decode step over (1 + the time's highest error), the closed form's TPOT over (1 + its lowest),
    the errors the offline family's tokens/s row turned (53 measurements, -8.1 % to +43.0 %, docs/accuracy.md)."""
    count, low, high, _ = TABLE["offline-serving"]["tokens_per_second"]
    t_low, t_high = turned(low, high)
    b = est.bands["tpot"]
    assert (b.count, b.measured, b.likely) == (count, True, True)
    assert (b.low, b.high) == pytest.approx((t_low, t_high))
    tpot, step = est.metrics["tpot"].m_as("s"), est.metrics["decode_step_time"].m_as("s")
    ends = [e.m_as("s") for e in b.values(est.metrics["tpot"])]
    assert ends == pytest.approx([step / (1 + t_high), tpot / (1 + t_low)])
    assert ends[1] == pytest.approx(tpot * (1 + high))   # Little's law: a request lives (1 + h) longer
    assert ends == pytest.approx([0.04538, 0.4226], abs=5e-5)
    words = b.describe()
    assert words.startswith("no published offline run's TPOT is scored; by Little's law a request lives 2,048 in flight")
    assert "49.37 ms" in words and "295.6 ms" in words and "on 53 offline serving measurements" in words


def test_tokens_per_user_is_the_same_band_seen_as_a_rate(est):
    user, tpot = est.bands["tokens_per_second_per_user"], est.bands["tpot"]
    rate_ends = [e.m_as("1/s") for e in user.values(est.metrics["tokens_per_second_per_user"])]
    time_ends = [e.m_as("s") for e in tpot.values(est.metrics["tpot"])]
    assert rate_ends == pytest.approx([1 / time_ends[1], 1 / time_ends[0]])


@pytest.mark.parametrize(("target", "status"), [("<= 300 ms", Status.AT_RISK), ("<= 425 ms", Status.MET),
                                                ("<= 250 ms", Status.NOT_MET)])
def test_a_tpot_target_is_judged_at_the_band_s_pessimistic_end(est, target, status):
    """Met at 295.6 ms but not at the band's 422.6 ms: at risk; met at both: met (the 2,048 in flight are the engine's
    max_batch_size, not a memory estimate); missed at the estimate: not met."""
    (o,) = judge_requirements([_req("tpot", target)], est)
    assert o.status is status


def test_a_batch_the_kv_cache_sets_leaves_a_met_target_at_risk(edited_shipped):
    """With the engine's cap above what the KV cache holds, the batch is the model's memory estimate: the band stays,
    but a target met at both its ends is at risk, saying why."""
    run = edited_shipped("workloads/llama3-70b.yaml", "  output_len: 256\nrequirements:",
                         "  output_len: 256\n  max_batch_size: 8192\nrequirements:")
    est = run.workloads[B200].estimate
    b = est.bands["tpot"]
    assert b.measured and not b.likely and "the KV cache's capacity by the model's memory estimate" in b.caveat
    high = b.values(est.metrics["tpot"])[1]
    (o,) = judge_requirements([_req("tpot", f"<= {high.m_as('ms') * 1.01:.1f} ms")], est)
    assert o.status is Status.AT_RISK and o.note == b.caveat


def test_the_decode_step_has_no_band_and_a_met_target_on_it_is_at_risk(est):
    b = est.bands["decode_step_time"]
    assert not b.measured and b.describe() == f"no band: {UNSCORED['decode_step']}"
    (o,) = judge_requirements([_req("decode_step_time", "<= 1 s")], est)
    assert o.status is Status.AT_RISK and o.note.startswith(UNBANDED)


def test_a_scored_offline_tpot_keeps_its_own_band_and_no_tokens_band_gives_none():
    """A table with an offline TPOT row gives that band, which the carried one does not replace; without a tokens/s
    band (here: none in the table) nothing is carried."""
    rows = {"offline-serving": {"tokens_per_second": (10, -0.1, 0.2, 0.05), "tpot": (4, -0.3, 0.1, 0.1)}}
    got = {m: band("offline-serving", m, rows) for m in ("tokens_per_second", "tpot", "tokens_per_second_per_user")}
    carried = offline_gap(got, 0.3, 0.05, 64, False)
    assert set(carried) == set()   # both TPOT metrics measured: their own rows
    bare = {m: band("offline-serving", m, {"offline-serving": {}}) for m in ("tokens_per_second", "tpot")}
    assert offline_gap(bare, 0.3, 0.05, 64, False) == {}
    one = {"tokens_per_second": got["tokens_per_second"], "tpot": band("offline-serving", "tpot", {"offline-serving": {
        "tokens_per_second": (10, -0.1, 0.2, 0.05)}})}
    (b,) = offline_gap(one, 0.3, 0.05, 64, False).values()
    # time errors 1 / 1.2 - 1 and 1 / 0.9 - 1: the step at the first, the point at the second
    assert [e.m_as("s") for e in b.values(Q_(0.3, "s"))] == pytest.approx([0.05 * 0.9, 0.3 * 1.2])


def test_the_band_holds_the_simulated_closed_loop_s_schedule(est, spec_tree):
    """The split is the scheduler's: the same job as a simulated closed loop at the same 2,048 in flight (continuous
    batching, chunked prefill, `perf.scheduler`) schedules its prompts otherwise and reads another TPOT (128.7 ms at
    this writing, docs/perf-model.md), which lies between the band's ends, not at the offline point."""
    from archgen.pipeline import run
    from tests.conftest import SPECS

    text = (SPECS / "workloads" / "llama3-70b.yaml").read_text(encoding="utf-8").split("---")[1]
    job = text.split("requirements:")[0].replace("id: llama3-70b-serve-b200", "id: closed-2048")
    root = spec_tree({"w.yaml": job + "  scenario: concurrency\n  batch: 2048\n"})
    closed = run([root, SPECS / "clusters", SPECS / "racks"]).workloads["workload/closed-2048"].estimate.metrics["tpot"]
    low, high = est.bands["tpot"].values(est.metrics["tpot"])
    assert low < closed < high and abs(closed - est.metrics["tpot"]) > 0.3 * est.metrics["tpot"]
