"""The network's failure rates: Llama 3's published count for optics and cables, a switch's own rate (issue 22).

Table 5 of the Llama 3 paper (Dubey et al., arXiv 2407.21783) counts 35 "Network Switch/Cable" unexpected
interruptions in the 54-day snapshot on 16,384 H100 GPUs, without splitting them. Section 3.3.1 gives the fabric: 16
GPUs a rack on one Minipack2 ToR, 192 racks a pod "with full bisection bandwidth", 400 Gb/s per GPU; Meta's summary of
its SIGCOMM'24 paper adds copper DACs from the ToR to the GPUs and 400G pluggable optics on fibre from the ToR to the
cluster switches. Counted from that: 1,024 ToRs, 16,384 DACs and at least 2 x 16 x 1,024 = 32,768 optical ends
(the cluster and aggregation switch counts are not published). `field-h100-2024` applies 35 over those parts' 54
days as one rate per part to optics and copper cables (`pooled: network`), whose 95 % interval is the 35 events'
once, however many classes share it. Before, the set's switch, transceiver and cable rates were round
placeholders with no count, so every design's network uncertainty was "not provided".

rel22 (issue 22): a switch is not one optical end. Where a switch's own field rate is published, a switch takes it
rather than the pooled rate: the H100 set borrows Alibaba Cloud's ToR rate (Qian et al., "Alibaba HPN", SIGCOMM 2024,
section 2.3: "about 0.051% of ToR switches encounter critical errors and crashes" a month, 0.612 % a year), and a
second switch set, `azure-switches-2021` (Singh et al., CCR 2021: "a 98% likelihood of functioning uninterrupted for
over 3 months since deployment", 180,000 switches), joins the range: -ln(0.98) / 0.25 = 0.0808 a switch-year.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from archgen.analyse.goodput_range import spanned
from archgen.errors import SpecError
from archgen.pipeline import run
from tests.conftest import REPO

NETWORK = ("switch", "transceiver", "cable")
LINKS = ("transceiver", "cable")                  # Llama 3's pooled count; switches take a switch rate
HPN_TOR = 0.00051 * 12                             # Alibaba HPN section 2.3: 0.051 % of ToRs a month
AZURE = -math.log(0.98) / 0.25                     # Singh et al. CCR 2021: 98 % survive 3 months
DAYS, GPUS, EVENTS = 54, 16384, 35                # Llama 3 section 3.3.4, Table 5
TORS = GPUS // 16                                  # section 3.3.1: 16 GPUs a rack on one Minipack2 ToR
DACS = GPUS                                        # one 400 Gb/s port per GPU, copper DAC to the ToR
OPTICS = 2 * 16 * TORS                             # full bisection: >= 16 x 400G uplinks a ToR, an optic at each end


def _chi2_even_cdf(x: float, dof: int) -> float:
    """P(chi-square of even `dof` <= x) = 1 - sum_{i < dof/2} e^(-x/2) (x/2)^i / i!, the closed form for even dof."""
    h = x / 2
    return 1 - math.fsum(math.exp(-h + i * math.log(h) - math.lgamma(i + 1)) for i in range(dof // 2))


def _chi2_quantile(p: float, dof: int) -> float:
    lo, hi = 0.0, 10.0 * dof
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _chi2_even_cdf(mid, dof) < p else (lo, mid)
    return (lo + hi) / 2


def _superpod():
    return run([REPO / "specs" / "clusters" / "dgx-b200-superpod.yaml", REPO / "specs" / "racks"])


def test_the_rate_is_the_count_over_the_parts_the_job_touched():
    parts = TORS + DACS + OPTICS
    assert (TORS, DACS, OPTICS, parts) == (1024, 16384, 32768, 50176)
    part_years = parts * DAYS / 365.25
    assert part_years == pytest.approx(7418.2, abs=0.05)
    rate = EVENTS / part_years
    assert rate == pytest.approx(0.004718, rel=1e-4)
    field = _superpod().specs.get("field-h100-2024")
    for name in LINKS:
        c = field.classes[name]
        assert (c.afr, c.events, c.pooled, c.basis) == (pytest.approx(rate, rel=1e-4), EVENTS, "network", "assumed")
    # the 95 % interval by the chi-square formula (Garwood): chi2(0.025; 2n) / 2 to chi2(0.975; 2n + 2) / 2 events
    low, high = _chi2_quantile(0.025, 2 * EVENTS) / 2, _chi2_quantile(0.975, 2 * EVENTS + 2) / 2
    assert (low, high) == (pytest.approx(24.38, abs=0.005), pytest.approx(48.68, abs=0.005))
    assert (low / part_years, high / part_years) == (pytest.approx(0.003286, rel=1e-3), pytest.approx(0.006562,
                                                                                                     rel=1e-3))
    # the split is bounded by the count alone: all 35 on the ToRs would be 0.231 a switch-year, on the DACs 0.0144
    assert EVENTS / (TORS * DAYS / 365.25) == pytest.approx(0.2312, abs=1e-4)
    assert EVENTS / (DACS * DAYS / 365.25) == pytest.approx(0.01445, abs=1e-5)


def test_a_switch_takes_a_published_switch_rate_not_the_pooled_one():
    """Issue 22: the switch class is Alibaba HPN's ToR rate, borrowed and said so; the links keep Llama 3's count."""
    specs = _superpod().specs
    switch = specs.get("field-h100-2024").classes["switch"]
    assert (switch.afr, switch.events, switch.pooled, switch.basis) == (pytest.approx(HPN_TOR), None, None, "sourced")
    assert switch.operator.startswith("Alibaba Cloud, ToRs of its single-ToR LLM-training clusters")
    assert specs.get("alibaba-hpn-2024").classes["switch"].afr == pytest.approx(switch.afr)   # one figure, one value
    azure = specs.get("azure-switches-2021")
    assert (azure.base, set(azure.classes)) == ("field-h100-2024", {"switch"})
    assert azure.classes["switch"].afr == pytest.approx(AZURE, abs=5e-5) and AZURE == pytest.approx(0.08081, abs=1e-5)
    # both lie under the count's bound for switches (all 35 on the 1,024 ToRs: 0.231 a switch-year)
    assert HPN_TOR < AZURE < EVENTS / (TORS * DAYS / 365.25)
    # the ToRs stay in the links' exposure: at the borrowed rate they take 0.93 of the 35; the count less those over
    # the 49,152 optical ends and DACs is 0.004689, 0.6 % under the pooled rate the links keep
    tor_share = TORS * HPN_TOR * DAYS / 365.25
    assert tor_share == pytest.approx(0.9265, abs=1e-4)
    net = (EVENTS - tor_share) / ((DACS + OPTICS) * DAYS / 365.25)
    assert net == pytest.approx(0.004689, abs=1e-6)
    assert 1 - net / specs.get("field-h100-2024").classes["cable"].afr == pytest.approx(0.006, abs=5e-4)


def test_a_designs_network_mtti_moves_the_way_the_split_says(shipped):
    """A design's switches fail at the switch rate (1.30x the pooled rate per part), so its network interruptions
    rise by its switches x (0.00612 - 0.004718) a year and its MTTI falls; its optics and cables do not move.

    The DGX B200 SuperPOD (48 interrupting switches, 4,216 optical ends): 20.118 -> 20.185 network interruptions a
    year, MTTI 48.197 -> 48.179 h; under Azure's switch rate (the range's `azure-switches-2021` set) 23.77 a year.
    (4,214 ends, 48.200 -> 48.182 h, before review50 counted the leaves' modules leaf by leaf.)
    """
    pooled = EVENTS / ((TORS + DACS + OPTICS) * DAYS / 365.25)
    for path in ("cluster/dgx-b200-superpod", "cluster/gb200-nvl72-su", "cluster/mi355x-th5", "cluster/tpu-v4-pod"):
        rel = shipped.operations.reliability[path]
        by = {c.name: c for c in rel.classes if c.interrupts}
        switches = by["switch"].units
        assert by["switch"].per_day * 365.25 == pytest.approx(switches * HPN_TOR)
        for name in LINKS:
            if name in by:
                assert by[name].per_day * 365.25 == pytest.approx(by[name].units * pooled, rel=1e-4)
        now = rel.interrupts_per_day(rel.accelerators)
        before = now - switches * (HPN_TOR - pooled) / 365.25     # the switches at the pooled rate
        assert 24 / now < 24 / before, path                          # more switch failures: a shorter MTTI
        azure = next(r for r in rel.spread if r.rates_id == "azure-switches-2021")
        assert {c.name: c for c in azure.classes if c.interrupts}["switch"].per_day * 365.25 == \
            pytest.approx(switches * 0.0808)
        assert azure.interrupts_per_day(rel.accelerators) > now
    rel = shipped.operations.reliability["cluster/dgx-b200-superpod"]
    by = {c.name: c for c in rel.classes if c.interrupts}
    assert (by["switch"].units, by["transceiver"].units) == (48, 4216)
    assert (48 + 4216) * pooled == pytest.approx(20.118, abs=5e-4)
    assert 48 * HPN_TOR + 4216 * pooled == pytest.approx(20.185, abs=5e-4)
    now = rel.interrupts_per_day(rel.accelerators)
    assert (24 / (now - 48 * (HPN_TOR - pooled) / 365.25), 24 / now) == (pytest.approx(48.197, abs=5e-4),
                                                                        pytest.approx(48.179, abs=5e-4))
    assert 48 * 0.0808 + 4216 * pooled == pytest.approx(23.77, abs=5e-3)


def test_a_designs_network_mtti_carries_the_interval():
    rel = _superpod().operations.reliability["cluster/dgx-b200-superpod"]
    net = tuple(c for c in rel.classes if c.interrupts and c.name in NETWORK)
    assert {c.name for c in net} == {"switch", "transceiver"}   # the SuperPOD's links are optics
    # the optics' count has an interval; the borrowed switch rate states no count (HPN gives no fleet size)
    assert set(rel.uncounted()) & set(NETWORK) == {"switch"}
    network = replace(rel, classes=net, site_per_day=0.0, spread=())
    per_day = network.interrupts_per_day(rel.accelerators)
    optics = next(c for c in net if c.name == "transceiver")
    switch = next(c for c in net if c.name == "switch")
    assert optics.per_day * 365.25 == pytest.approx(optics.units * 0.004718, rel=1e-4)
    assert switch.per_day * 365.25 == pytest.approx(switch.units * HPN_TOR)
    # one count shared by the link classes: the interval is the 35 events' once, on the optics' share alone
    low, high = network.interval()
    share = optics.per_day / per_day
    assert (low, high) == (pytest.approx(1 - share + share * 24.379 / EVENTS, abs=1e-4),
                           pytest.approx(1 - share + share * 48.677 / EVENTS, abs=1e-4))
    # the named set's own range says the switch's uncertainty is not provided
    named = replace(rel, spread=())
    assert "the uncertainty of switch is not provided" in spanned(named)
    # a figure resting on the borrowed switch rate names it among its assumed inputs (REQ005), as a set measured on
    # another accelerator is named; before, "switch failure rate" stood there as an assumed pooled rate
    assert ("switch failure rate (measured by Alibaba Cloud, ToRs of its single-ToR LLM-training clusters (Qian et "
            "al., HPN, SIGCOMM 2024, section 2.3); 'field-h100-2024' borrows it)") in rel.borrowed_input
    assert "switch" not in rel.assumed and {"cable", "transceiver"} <= set(rel.assumed)


def test_classes_sharing_a_count_must_state_the_same_count(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: FailureRates\nid: bad\nclasses:\n"
                   "  switch: {afr: 0.01, events: 35, pooled: network, basis: sourced, source: a count}\n"
                   "  cable: {afr: 0.01, events: 30, pooled: network, basis: sourced, source: a count}\n"
                   "  transceiver: {afr: 0.01, pooled: network, basis: sourced, source: a count}\n", encoding="utf-8")
    with pytest.raises(SpecError) as err:
        run([tmp_path])
    text = str(err.value)
    assert "bad.yaml:6:" in text and "shares the count 'network'" in text and "state that count as `events`" in text
    bad.write_text(bad.read_text(encoding="utf-8").replace("0.01, pooled", "0.01, events: 35, pooled"), encoding="utf-8")
    with pytest.raises(SpecError, match=r"bad.yaml:4:\d+: error: classes.switch.pooled: the classes sharing the count "
                                        r"'network' \(switch, cable, transceiver\) state different `events`"):
        run([tmp_path])



#: The parts of each link class the 35 were counted over (above): all 35 on one gives it 35 / its part-years.
COUNTED = {"cable": DACS, "transceiver": OPTICS}


def test_the_split_moves_a_designs_network_rate_more_than_the_interval(shipped):
    """review28: the pooled rate takes a copper assembly as one optical end; the count alone bounds the split between
    them (all 35 on the optics or all on the DACs), and over those ends a shipped design's link interruptions a year
    move further than the count's 95 % interval moves them (0.70x to 1.39x). docs/reliability.md states the ends; no
    range holds them. Switches are out of the pool since rel22 (issue 22): they take a switch rate."""
    said = " ".join((REPO / "docs" / "reliability.md").read_text(encoding="utf-8").split())
    for path, name in (("cluster/dgx-b200-superpod", "DGX B200 SuperPOD"), ("cluster/gb200-nvl72-su", "GB200 NVL72 SU"),
                       ("cluster/mi355x-th5", "MI355X"), ("cluster/tpu-v4-pod", "TPU v4 pod")):
        rel = shipped.operations.reliability[path]
        units = {k: sum(c.units for c in rel.classes if c.interrupts and c.per_day and c.name == k) for k in LINKS}
        pooled = sum(units.values()) * EVENTS / ((TORS + DACS + OPTICS) * DAYS / 365.25)
        ends = [units[k] * EVENTS / (COUNTED[k] * DAYS / 365.25) for k in LINKS]
        assert sum(c.per_day for c in rel.classes if c.name in LINKS and c.interrupts) * 365.25 == \
            pytest.approx(pooled, rel=1e-4)
        assert f"{name} {pooled:.1f} a year ({min(ends):.1f} to {max(ends):.1f})" in said, name
