"""Published field data against archgen's reported range (issue 22, bar: held-out figures inside the range).

Each figure of tests/data/reliability/field-data.yaml is judged on the Llama 3 stand-in cluster (8-GPU nodes; the
catalog's rate sets are per node or per part, so the stand-in's hardware matters only for the H100 set's assumed
network) as a job of its size, over its period: the range is `Reliability.band`, every catalog rate set at both
ends of its 95 % Poisson interval. A figure whose own source built one of the sets (`set:`) is judged twice: with
every set (consistency) and without its own (held out). Every figure is judged held out once more without the sets
counted from fewer than 10 failures (`few_events`, issue 22's low-count policy), so that no figure is read as inside
by an interval's width alone without saying so. Figures outside the range are marked `xfail(strict=True)` with the
measured miss: they fail the bar, and the test fails the day they pass without the reason being revised.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import get_args

import pytest
from ruamel.yaml import YAML

from archgen.model.reliability import Counted
from archgen.perf.train.poisson import poisson_interval
from archgen.pipeline import run
from archgen.units import Q_

DATA = Path(__file__).parent / "data" / "reliability"
FIGURES = {f["id"]: f for f in YAML(typ="safe", pure=True).load(
    (DATA / "field-data.yaml").read_text(encoding="utf-8"))["figures"]}
RACK = Path(__file__).parents[1] / "specs" / "racks" / "dgx-h100-4.yaml"

#: Why the two Meta job MTTFs stay outside held out, each clause tested below (docs/reliability.md).
_WHY = (". Why: the gap is per node, not per job: Figure 7's two sizes fail at 20.96 and 23.73 per 1000 node-days, and "
        "a per-job term closing the 1,024-GPU gap over r_f would put the 8-GPU MTTF at 10.8 h, not 47.7 d; no set "
        "independent of Figure 7 reaches that rate per node even at the top of its 95 % Poisson interval (MPT-7B's, "
        "4 events: 19.60); r_f's sets carry no interval (no count given), and RSC-1's would reach it only on 2 (8 "
        "GPUs) or 1 (1,024) failures, where the paper's crash loop alone is 35 (its cluster not named) "
        "(test_no_per_job_term_or_uncounted_interval_closes_the_gap); the paper's per-job, correlated causes (that "
        "crash loop, lemon nodes: 512+ GPU jobs failing 14 % -> 4 % once removed) are not said to be outside r_f, and "
        "a factor from the same paper would not be held out; whether the miss exceeds the figure's own Poisson spread "
        "is not known: only if counted from 879 (8 GPUs) / 116 (1,024) failures or more "
        "(test_the_misses_against_the_figures_own_sampling_spread), and the paper gives no count")
#: Figures outside archgen's range, with the miss measured when this was written (the bar is not met for them).
OUTSIDE = {
    "meta-rsc1-8gpu-job-mttf-held-out": "47.7 d measured; without the set built from the same figure the sets give "
                                        "51.0 d at the shortest (the high end of MPT-7B's 4-event interval): an 8-GPU "
                                        "job at Meta failed 1.07x more often than any other published node rate "
                                        "allows (1.36x before mpt7b-a100-2023, against OPT-175B's 64.8 d)" + _WHY,
    "meta-rsc1-1024gpu-job-mttf-held-out": "7.9 h measured; without the set built from it the sets give 9.57 h at "
                                           "the shortest (MPT-7B's high end, 1.21x; 12.1 h and 1.54x before)" + _WHY,
    "meta-rsc1-8gpu-job-mttf-held-out-without-few-events":
        "47.7 d measured; without the set built from it and without MPT-7B's 4-event set the sets give 64.8 d at the "
        "shortest (the high end of OPT-175B's 90-event interval): 1.36x. MPT-7B's interval narrows the miss to 1.07x "
        "by its width, not its rate (7.66 per 1000 node-days at its point)" + _WHY,
    "meta-rsc1-1024gpu-job-mttf-held-out-without-few-events":
        "7.9 h measured; without the set built from it and without MPT-7B's 4-event set the sets give 12.1 h at the "
        "shortest (OPT-175B's high end): 1.54x" + _WHY,
}
#: Figures inside the range held out only through a set counted from fewer than 10 failures (`few_events`): none.
#: A figure that entered the range through such a set's interval alone would be listed here, and docs/reliability.md
#: would say so beside it.
INSIDE_ONLY_THROUGH_FEW_EVENTS: set[str] = set()
#: A set reproduces the figure it was built from up to the rounding of its catalog FIT (988,924 for 988,924.05).
ROUNDING = 1e-6


@pytest.fixture(scope="module")
def rel(tmp_path_factory):
    tree = tmp_path_factory.mktemp("field") / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    return run([tree]).operations.reliability["cluster/llama3-16k"]


def _judge(rel, figure: dict, without: str = "", few: bool = True) -> tuple[float, float, float]:
    """(low, measured, high) in the figure's own terms: an MTTF in hours, or interruptions over its period.

    `few=False` leaves out the sets counted from fewer than 10 failures (`Reliability.few_events`)."""
    lo, hi = rel.band(figure["gpus"], without, few)
    if "mttf" in figure:
        return 24 / hi, Q_(figure["mttf"]).m_as("h"), 24 / lo
    return lo * figure["days"], figure["interruptions"], hi * figure["days"]


def _cases():
    for fid, figure in FIGURES.items():
        held = figure["set"] or ""
        for without, few, pid in [("", True, fid)] + ([(held, True, f"{fid}-held-out")] if held else []) \
                + [(held, False, f"{fid}-held-out-without-few-events")]:
            marks = [pytest.mark.xfail(strict=True, reason=OUTSIDE[pid])] if pid in OUTSIDE else []
            yield pytest.param(fid, without, few, id=pid, marks=marks)


def _inside(low: float, measured: float, high: float) -> bool:
    return low * (1 - ROUNDING) <= measured <= high * (1 + ROUNDING)


@pytest.mark.parametrize(("fid", "without", "few"), list(_cases()))
def test_published_figure_inside_the_reported_range(rel, fid, without, few):
    low, measured, high = _judge(rel, FIGURES[fid], without, few)
    assert _inside(low, measured, high), f"{fid}: {measured:.4g} outside {low:.4g}-{high:.4g}"


def test_no_figure_is_inside_only_through_a_few_event_set(rel):
    """Issue 22's low-count policy: held out, which figures the range reaches only through a set counted from fewer
    than 10 failures (MPT-7B's 4). None: MPT-7B's interval top (19.60 per 1000 node-days) narrows Meta's two misses
    from 1.36x and 1.54x to 1.07x and 1.21x but closes neither, and every other figure is inside without it."""
    few = {r.rates_id for r in rel.spread if r.few_events}
    assert few == {"mpt7b-a100-2023"}
    through = {fid for fid, f in FIGURES.items()
               if _inside(*_judge(rel, f, f["set"] or "")) and not _inside(*_judge(rel, f, f["set"] or "", False))}
    assert through == INSIDE_ONLY_THROUGH_FEW_EVENTS
    for fid, ratios in (("meta-rsc1-8gpu-job-mttf", (1.07, 1.36)), ("meta-rsc1-1024gpu-job-mttf", (1.21, 1.54))):
        figure = FIGURES[fid]
        got = tuple(_judge(rel, figure, figure["set"], few)[0] / _judge(rel, figure, figure["set"], few)[1]
                    for few in (True, False))
        assert got == (pytest.approx(ratios[0], abs=0.005), pytest.approx(ratios[1], abs=0.005))


def test_the_range_spans_every_catalog_set(rel):
    """The range is over all twelve published sets, and each set's figures are what its source gives."""
    assert [r.rates_id for r in rel.spread] == ["alibaba-hpn-2024", "azure-switches-2021", "byterobust-hopper-2025",
                                                "field-h100-2024",
                                                "glm130b-a100-2022", "lablup-b200-2026", "mpt7b-a100-2023",
                                                "opt175b-a100-2021", "rsc1-a100-2024",
                                                "rsc1-jobs-a100-2024", "rsc2-a100-2024", "stepfun-nvidia-2024"]
    by = {r.rates_id: r for r in rel.spread}
    # one 8-GPU node, per day: OPT's ~90 restarts over 128 nodes x 56 days; RSC-1 and RSC-2's r_f
    assert by["opt175b-a100-2021"].interrupts_per_day(8) == pytest.approx(90 / (128 * 56), rel=1e-6)
    assert by["rsc1-a100-2024"].interrupts_per_day(8) == pytest.approx(6.50e-3, rel=1e-5)
    assert by["rsc2-a100-2024"].interrupts_per_day(8) == pytest.approx(2.34e-3, rel=1e-5)
    # Kokolis et al. Figure 7: a 1,024-GPU job on RSC-1 fails every 7.9 h
    assert 24 / by["rsc1-jobs-a100-2024"].interrupts_per_day(1024) == pytest.approx(7.9, rel=1e-6)
    # Garwood's 95 % interval on OPT's 90 restarts: 0.804-1.229 (tables: 72.4-110.6 for n = 90)
    lo, hi = by["opt175b-a100-2021"].interval()
    assert lo * 90 == pytest.approx(72.4, abs=0.1) and hi * 90 == pytest.approx(110.6, abs=0.1)
    # ByteRobust Table 4, dense job: 155 unplanned incidents in 91 days on 1,200 8-GPU machines, 20 manual restarts
    # planned; its two counted classes (143 evictions, 12 code issues) combine to Garwood's interval on 155:
    # 131.56-181.41 (chi-square quantiles 263.12 / 2 and 362.83 / 2 at 310 and 312 degrees of freedom)
    byte = by["byterobust-hopper-2025"]
    assert byte.interrupts_per_day(8) == pytest.approx(155 / (1200 * 91), rel=1e-4)
    assert byte.planned_per_accelerator_day * 8 == pytest.approx(20 / (1200 * 91), rel=1e-4)
    lo, hi = byte.interval()
    assert lo * 155 == pytest.approx(131.56, abs=0.01) and hi * 155 == pytest.approx(181.41, abs=0.01)
    # GLM-130B training notes: 11 infrastructure interruptions in 53.83 days on 96 8-GPU nodes; Garwood on 11:
    # 5.49-19.68 (tables: 5.49-19.68 for n = 11)
    glm = by["glm130b-a100-2022"]
    assert glm.interrupts_per_day(8) == pytest.approx(11 / (96 * (53 + 20 / 24)), rel=1e-4)
    lo, hi = glm.interval()
    assert lo * 11 == pytest.approx(5.49, abs=0.01) and hi * 11 == pytest.approx(19.68, abs=0.01)
    # MosaicML's MPT-7B post: 4 hardware failures in 9.5 days on 440 A100-40GB (55 nodes of 8); Garwood on 4:
    # 1.09-10.24 (tables: 1.090-10.242 for n = 4)
    mpt = by["mpt7b-a100-2023"]
    assert mpt.interrupts_per_day(8) == pytest.approx(4 / (55 * 9.5), rel=1e-5)
    lo, hi = mpt.interval()
    assert lo * 4 == pytest.approx(1.090, abs=0.001) and hi * 4 == pytest.approx(10.242, abs=0.001)
    # Lablup's B200 report (abstract): 10 XID-identified GPU failures in 55 days on 504 GPUs, per GPU; the other
    # classes are the H100 set's (its base)
    lab = {c.name: c for c in by["lablup-b200-2026"].classes if c.interrupts}
    h100 = {c.name: c for c in by["field-h100-2024"].classes if c.interrupts}
    assert lab["accelerator"].rate.per_year == pytest.approx(10 / (504 * 55) * 365.25, rel=1e-4)
    assert lab["accelerator"].rate.events == 10 and lab["host"].rate is h100["host"].rate


def test_kokolis_projection_against_its_own_job_mttfs(rel):
    """Kokolis et al.: MTTF = 1 / (N_nodes r_f), r_f = 6.50 per 1000 node-days on RSC-1 (docs/reliability.md). The
    set reproduces that projection through the pipeline at 128 and 512 nodes: 28.8 h where Figure 7 measured 7.9 h
    for 1,024-GPU jobs (3.65x), 7.2 h where the paper gives "about 10 hours" at 4K GPUs (0.72x)."""
    rsc1 = next(r for r in rel.spread if r.rates_id == "rsc1-a100-2024")
    assert 24 / rsc1.interrupts_per_day(1024) == pytest.approx(24 / (128 * 6.50e-3), rel=1e-5)
    assert 24 / rsc1.interrupts_per_day(1024) == pytest.approx(28.8, abs=0.05)
    assert 24 / rsc1.interrupts_per_day(4096) == pytest.approx(7.2, abs=0.05)
    assert 24 / rsc1.interrupts_per_day(1024) / Q_(FIGURES["meta-rsc1-1024gpu-job-mttf"]["mttf"]).m_as("h") \
        == pytest.approx(3.65, abs=0.005)


#: RSC-1 as Kokolis et al. give it (HPCA 2025, sections II and III): 16K A100 in 8-GPU DGX nodes (2,000 nodes),
#: 83 % utilisation, 11 months of data; its node-days in use over that window, 11 x 365.25 / 12 days a month.
RSC1_NODE_DAYS = 2000 * 11 * 365.25 / 12 * 0.83


def _fewest_events_outside(ratio: float) -> int:
    """The smallest count n at which a rate measured `ratio` x the range's top lies outside the range beyond its own
    sampling spread: Garwood's 95 % low end on n events, times the measured rate, above the range's top."""
    n = 1
    while poisson_interval(n)[0] * ratio <= 1:
        n += 1
    return n


def test_the_misses_against_the_figures_own_sampling_spread(rel):
    """Figure 7's MTTFs are rates (47.7 d is longer than the 7 days an RSC-1 job may run: runtime over failures, what
    archgen's MTTI inverts), measured from counts the paper does not give. A measured rate 1.07x (1.21x) the
    range's highest rate is outside beyond its own 95 % Poisson interval only if counted from at least 879 (116) failures:
    879 x 47.7 d = 41,928 node-days, 7.5 % of RSC-1's ~556,000 in use, where jobs of one server or less took under
    10 % of the GPU time (Observation 7); 116 x 7.9 h on 128 nodes = 4,887 node-days, 0.88 %, where the paper gives
    no share for 1,024-GPU jobs. Neither bound is met or missed by anything the paper states."""
    for fid, fewest, share in (("meta-rsc1-8gpu-job-mttf", 879, 0.0754), ("meta-rsc1-1024gpu-job-mttf", 116, 0.0088)):
        figure = FIGURES[fid]
        low, measured, _ = _judge(rel, figure, figure["set"])
        assert _fewest_events_outside(low / measured) == fewest
        nodes = figure["gpus"] // 8
        assert fewest * Q_(figure["mttf"]).m_as("day") * nodes / RSC1_NODE_DAYS == pytest.approx(share, abs=5e-5)
    assert RSC1_NODE_DAYS == pytest.approx(555_789, abs=1)


#: Kokolis et al. (docs/reliability.md, read in the translation): "a 1024 GPU job NODE_FAIL and subsequently requeue
#: 35 times" — NODE_FAILs of a job above 128 GPUs, the failures r_f counts; the quote does not name the cluster.
CRASH_LOOP = 35


def _most_events_reaching(ratio: float) -> int:
    """The largest count n whose Garwood 95 % high end is at least `ratio` x the rate counted (0 if none)."""
    n = 0
    while poisson_interval(n + 1)[1] >= ratio:
        n += 1
    return n


def test_no_per_job_term_or_uncounted_interval_closes_the_gap(rel):
    """The two things the range might leave out, judged against Figure 7's own two sizes and r_f's missing count.

    A job-level term (failures per job, not per node: a failure that ends a job whatever its size) adds the same rate
    to every job. Sized to close the 1,024-GPU figure over r_f (3.04 a day - 128 nodes x 6.50e-3 = 2.21 a day), it
    puts the 8-GPU job's MTTF at 10.8 h where Figure 7 measured 47.7 d; over the range's top held out (MPT-7B's
    interval top, 19.60 per 1000 node-days), at 1.8 d. The two sizes fail at 20.96 and 23.73 per 1000 node-days: the
    line rate = a + b x nodes through them has a = -2.8e-3 a day, so they leave no room for a per-job term of any
    positive size. The gap is per node (3.2-3.65x r_f at both sizes): it is in which failures are counted.

    r_f's sets state no count, so they carry no interval. RSC-1's would reach the 8-GPU figure only if r_f rested on
    2 failures or fewer (Garwood's top on 2 is 3.61x: 23.5 per 1000 node-days), the 1,024-GPU figure only on 1
    (5.57x): at 6.50 per 1000 node-days, 308 (154) node-days of jobs above 128 GPUs in 11 months, 2.4 (1.2) days of
    one 1,024-GPU job. The paper's crash loop alone is 35 such failures (on a cluster it does not name); on 35 the top
    is 1.39x, 9.04 per 1000 node-days, below the 19.60 the range already reaches.
    """
    by = {r.rates_id: r for r in rel.spread}
    rsc1, mpt = by["rsc1-a100-2024"], by["mpt7b-a100-2023"]
    rate = {fid: 1 / Q_(FIGURES[fid]["mttf"]).m_as("day") for fid in ("meta-rsc1-8gpu-job-mttf",
                                                                          "meta-rsc1-1024gpu-job-mttf")}
    small, large = rate["meta-rsc1-8gpu-job-mttf"], rate["meta-rsc1-1024gpu-job-mttf"]
    assert (small * 1000, large / 128 * 1000) == (pytest.approx(20.96, abs=0.005), pytest.approx(23.73, abs=0.005))
    per_node = (large - small) / 127
    assert small - per_node == pytest.approx(-2.79e-3, abs=5e-6)
    # a per-job term closing the 1,024-GPU gap over r_f, then over the held-out range's top, applied to an 8-GPU job
    rf8, rf1024 = rsc1.interrupts_per_day(8), rsc1.interrupts_per_day(1024)
    assert rf8 == pytest.approx(6.50e-3, rel=1e-5) and rf1024 == pytest.approx(128 * rf8, rel=1e-9)
    assert 24 / (large - rf1024 + rf8) == pytest.approx(10.85, abs=0.01)
    top8, top1024 = (rel.band(n, "rsc1-jobs-a100-2024")[1] for n in (8, 1024))
    assert top8 == pytest.approx(mpt.interrupts_per_day(8) * mpt.interval()[1], rel=1e-9)
    assert top8 * 1000 == pytest.approx(19.60, abs=0.005)
    assert 1 / (large - top1024 + top8) == pytest.approx(1.82, abs=0.005)
    # r_f's interval would reach the figures only on 2 (8 GPUs) or 1 (1,024 GPUs) failures
    assert rsc1.interval() == (1.0, 1.0)
    fewest = {n: _most_events_reaching(r / rsc1.interrupts_per_day(n)) for n, r in ((8, small), (1024, large))}
    assert fewest == {8: 2, 1024: 1}
    assert rf8 * poisson_interval(2)[1] * 1000 == pytest.approx(23.48, abs=0.005)
    assert [n / rf8 for n in fewest.values()] == [pytest.approx(307.7, abs=0.05), pytest.approx(153.8, abs=0.05)]
    assert [n / rf8 / 128 for n in fewest.values()] == [pytest.approx(2.40, abs=0.005), pytest.approx(1.20, abs=0.005)]
    assert poisson_interval(CRASH_LOOP)[1] == pytest.approx(1.391, abs=5e-4)
    assert rf8 * poisson_interval(CRASH_LOOP)[1] < top8


def test_network_only_set_takes_the_rest_from_its_base(rel):
    """Alibaba HPN (SIGCOMM'24, section 2.3) gives NIC-ToR links and ToRs; every other class is field-h100-2024's."""
    hpn = {c.name: c for c in next(r for r in rel.spread if r.rates_id == "alibaba-hpn-2024").classes if c.interrupts}
    h100 = {c.name: c for c in next(r for r in rel.spread if r.rates_id == "field-h100-2024").classes if c.interrupts}
    assert hpn["nic"].rate.per_year == pytest.approx(0.00057 * 12)      # 0.057 % of NIC-ToR links a month
    assert hpn["switch"].rate.per_year == pytest.approx(0.00051 * 12)   # 0.051 % of ToRs a month
    assert hpn["transceiver"].per_day == 0                           # inside the link rate (no copper here)
    for name in ("accelerator", "host", "software"):
        assert hpn[name].per_day == h100[name].per_day and hpn[name].rate is h100[name].rate
    planned = {r.rates_id: r.planned_per_accelerator_day for r in rel.spread}
    assert planned["alibaba-hpn-2024"] == planned["field-h100-2024"] > 0


def test_llama3_run_is_inside_the_range_without_its_own_set(rel):
    """Llama 3's 419 unplanned interruptions (54 days, 16,384 GPUs) held out from the set built from them, and from
    the sets that take their other classes from it (`base`: HPN's network, Lablup's B200 GPUs)."""
    lo, hi = rel.band(16384, "field-h100-2024")
    assert lo * 54 < 419 < hi * 54
    by = {r.rates_id: r for r in rel.spread}
    assert by["lablup-b200-2026"].chain == ("lablup-b200-2026", "field-h100-2024")
    # held out from field-h100-2024, a spread of it, HPN, Lablup and RSC-2 (no count: no interval) is RSC-2 alone
    four = replace(rel, spread=tuple(by[i] for i in ("field-h100-2024", "alibaba-hpn-2024", "lablup-b200-2026",
                                                      "rsc2-a100-2024")))
    assert four.band(8, "field-h100-2024") == (by["rsc2-a100-2024"].interrupts_per_day(8),) * 2


#: StepFun's InfiniteHBD-Trace (github.com/stepfun-ai/InfiniteHBD-Trace, commit 7aacdc8), fault_statistics.json:
#: faults per Level / Class that took one of 400 servers out of service in 348 days (584 in all, on 231 servers).
STEPFUN = {"GPU": 158, "Parameter Plane Cable": 40, "NIC": 30, "Power Supply": 26, "Fan": 33, "Motherboard Battery": 1,
           "Other Hardware": 1, "Motherboard": 4, "CPU": 3, "RAID Card": 1, "Riser Card": 1, "Software Failure": 24,
           "Unknown Error": 144, "System Crash": 1, "Stress Test Failure": 97, "Change": 4,
           "Training Task Troubleshooting": 14, "Test": 2}
STEPFUN_SERVER_YEARS = 400 * 348 / 365.25   # 8 GPUs and 8 compute NICs per server assumed (not stated)


def test_stepfun_trace_set_is_its_counts(rel):
    """The trace's classes mapped onto archgen's (specs/catalog/reliability/stepfun-nvidia-2024.yaml): GPU per GPU,
    NIC with the parameter-plane link-downs per NIC, the other server hardware, unknown errors, troubleshooting and the
    crash per server, software per server; changes and tests planned; stress-test failures not counted."""
    t = STEPFUN
    assert sum(t.values()) == 584
    gpu, nic = t["GPU"], t["NIC"] + t["Parameter Plane Cable"]
    host = (sum(t[k] for k in ("Power Supply", "Fan", "Motherboard Battery", "Other Hardware", "Motherboard", "CPU",
                               "RAID Card", "Riser Card")) + t["Unknown Error"] + t["Training Task Troubleshooting"]
            + t["System Crash"])
    software, planned = t["Software Failure"], t["Change"] + t["Test"]
    assert gpu + nic + host + software + planned + t["Stress Test Failure"] == 584
    by = {r.rates_id: r for r in rel.spread}
    sf = by["stepfun-nvidia-2024"]
    cls = {c.name: c for c in sf.classes if c.interrupts}
    for name, count, units in (("accelerator", gpu, 8), ("nic", nic, 8), ("host", host, 1), ("software", software, 1)):
        assert cls[name].rate.events == count
        assert cls[name].rate.per_year == pytest.approx(count / (STEPFUN_SERVER_YEARS * units), rel=1e-4)
    assert sf.planned_per_accelerator_day * 8 == pytest.approx(planned / (400 * 348), rel=1e-3)
    # 481 interruptions: 3.46 per 1000 server-days, between RSC-2's 2.34 and RSC-1's 6.50
    assert (gpu + nic + host + software) / (400 * 348) * 1000 == pytest.approx(3.455, abs=0.001)
    # switches, upper-tier links, power and cooling are the base set's (the network: Llama 3's 35 switch and cable
    # interruptions, one pooled rate per optical end and copper cable, switches at Alibaba HPN's ToR rate; power
    # and cooling assumed placeholders)
    assert sf.chain == ("stepfun-nvidia-2024", "field-h100-2024")
    assert cls["switch"].per_day == {c.name: c for c in by["field-h100-2024"].classes}["switch"].per_day > 0
    # the 95 % interval pools the four counted classes and the base's network count, taken once for its classes
    # (Welch-Satterthwaite count, docs/reliability.md), and is Garwood's on it: chi-square quantiles by
    # Wilson-Hilferty, k (1 - 2/(9k) + z sqrt(2/(9k)))^3, z = 1.95996
    network = [c for c in sf.classes if c.interrupts and c.rate is not None and c.rate.pooled == "network"]
    assert {c.name for c in network} >= {"transceiver"} and {c.rate.events for c in network} == {35}
    assert "switch" not in {c.name for c in network}   # a switch takes a switch rate (issue 22), no count
    groups = [(cls[n].per_day, cls[n].rate.events) for n in ("accelerator", "nic", "host", "software")]
    groups.append((sum(c.per_day for c in network), 35))
    known = sum(r for r, _ in groups)
    n_eff = known ** 2 / sum(r ** 2 / n for r, n in groups)
    assert 300 < n_eff < gpu + nic + host + software + 35

    def chi2(p_z: float, k: float) -> float:
        return k * (1 - 2 / (9 * k) + p_z * (2 / (9 * k)) ** 0.5) ** 3

    total = sum(c.per_day for c in sf.classes if c.interrupts and c.per_day)
    lo, hi = sf.interval()
    want_lo = (total - known + known * chi2(-1.95996, 2 * n_eff) / 2 / n_eff) / total
    want_hi = (total - known + known * chi2(1.95996, 2 * n_eff + 2) / 2 / n_eff) / total
    assert lo == pytest.approx(want_lo, rel=1e-3) and hi == pytest.approx(want_hi, rel=1e-3)


def test_a_class_of_several_parts_keeps_its_count(rel):
    """The stand-in's NICs are two parts (ConnectX-7 and its dual-port card) that both take the H100 set's NIC rate:
    the class keeps Llama 3's 7 NIC interruptions (Table 5) for its interval, as one part would."""
    nic = {c.name: c for c in next(r for r in rel.spread if r.rates_id == "field-h100-2024").classes
           if c.interrupts}["nic"]
    assert len(nic.parts) == 2 and nic.rate.events == 7


#: The sets measured on Hopper, and those that take their GPU and host classes from Llama 3's H100 set (`base`),
#: with StepFun's NVIDIA fleet of an unstated model (compute capability 9.0 or older); the A100 sets.
HOPPER = ("field-h100-2024", "byterobust-hopper-2025", "alibaba-hpn-2024", "azure-switches-2021",
          "stepfun-nvidia-2024")
A100 = ("glm130b-a100-2022", "rsc2-a100-2024", "rsc1-a100-2024", "mpt7b-a100-2023", "opt175b-a100-2021",
        "rsc1-jobs-a100-2024")


def test_the_range_is_operator_spread_not_generation(rel):
    """newuser98's doubt: the range (22.3x) holds most figures by its width (docs/reliability.md, Validation).

    Both of its ends are A100 fleets, which the stand-in (H100) borrows and the document names; the six A100 sets
    alone span the same 22.3x, so the width is the spread between operators (and what each counts), not between
    generations. The Hopper sets span 3.64x and hold two of the eight figures (GLM-130B's and BLOOM's)."""
    by = {r.rates_id: r for r in rel.spread}
    lo, hi = rel.band(8)
    assert (lo * 1000, hi * 1000) == (pytest.approx(1.062, abs=5e-4), pytest.approx(23.73, abs=5e-3))
    assert hi / lo == pytest.approx(22.34, abs=0.005)
    assert lo == pytest.approx(by["glm130b-a100-2022"].interrupts_per_day(8) * by["glm130b-a100-2022"].interval()[0])
    assert all(f"'{i}' (a100-sxm4-" in rel.borrowed for i in A100) and "h100-sxm5-80gb borrows them" in rel.borrowed
    a100 = replace(rel, spread=tuple(by[i] for i in A100))
    assert a100.band(8) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    hopper = replace(rel, spread=tuple(by[i] for i in HOPPER))
    hlo, hhi = hopper.band(8)
    assert (hlo * 1000, hhi * 1000) == (pytest.approx(1.205, abs=5e-4), pytest.approx(4.382, abs=5e-4))
    assert hhi / hlo == pytest.approx(3.64, abs=0.005)
    inside = {fid for fid, f in FIGURES.items() if _inside(*_judge(hopper, f, f["set"] or ""))}
    assert inside == {"glm130b-interruptions", "bloom176b-gpu-deaths"}
    # where each figure lies in the whole range held out: (measured / low end, high end / measured)
    where = {fid: (m / low, high / m) for fid, f in FIGURES.items()
             for low, m, high in [_rates(rel, f)]}
    assert {fid: (round(a, 2), round(b, 2)) for fid, (a, b) in where.items()} == {
        "meta-rsc1-8gpu-job-mttf": (19.73, 0.93), "meta-rsc1-1024gpu-job-mttf": (22.34, 0.83),
        "opt175b-restarts": (11.82, 1.89), "byterobust-9600": (1.34, 16.72), "glm130b-interruptions": (1.77, 11.15),
        "mpt7b-hardware-failures": (7.21, 3.1), "bloom176b-gpu-deaths": (2.8, 7.97),
        "ant-dlrover-card-failures": (20.08, 1.11)}


def _rates(rel, figure: dict) -> tuple[float, float, float]:
    """(low, measured, high) as interruptions a day of the figure's job, held out from its own set."""
    low, high = rel.band(figure["gpus"], figure["set"] or "")
    measured = 1 / Q_(figure["mttf"]).m_as("day") if "mttf" in figure else figure["interruptions"] / figure["days"]
    return low, measured, high


def test_every_figure_states_what_it_counts():
    """Each figure says which interruptions it counts in a rate set's words (`FailureRates.counts`), with its note."""
    assert all(f["counts_note"] and f["counts"] in get_args(Counted) for f in FIGURES.values())
    assert {fid for fid, f in FIGURES.items() if f["counts"] == "unknown"} == {"meta-rsc1-8gpu-job-mttf",
                                                                                "meta-rsc1-1024gpu-job-mttf"}


def test_a_figure_counts_what_the_set_built_from_its_source_counts(rel):
    """A figure and the set built from its source (`set:`) count the same interruptions, in the same words: the
    vocabulary is one, so that a figure compared with a set of other counts shows (the range's sets: the document)."""
    sets = {r.rates_id: r.counted_as for r in rel.spread}
    assert {fid: (f["counts"], sets[f["set"]]) for fid, f in FIGURES.items() if f["set"]
            and f["counts"] != sets[f["set"]]} == {}
    assert len([f for f in FIGURES.values() if f["set"]]) == 6


def test_a_figure_of_some_causes_only_is_a_lower_bound(rel):
    """BLOOM's GPU deaths and Ant's card failures count part of their jobs' interruptions: the jobs' rates over
    every cause are higher, so "inside" holds only while the causes left out stay below the range's headroom. Ant's
    80 card failures in 30 days are 1.11x below the range's top (89.0): its job would leave the range if its other
    interruptions (host, switch, power, software) were more than 11 % of its card failures, where Llama 3's run had
    151 interruptions of other causes to 268 of its GPUs (56 %: Table 5, not applied to Ant's fleet). BLOOM's GPU
    deaths (every 7 days) stay inside with up to 6.97 other interruptions to each."""
    headroom = {fid: _rates(rel, f)[2] / _rates(rel, f)[1] - 1 for fid, f in FIGURES.items() if f["counts"] == "part"}
    assert headroom == {"bloom176b-gpu-deaths": pytest.approx(6.97, abs=0.005),
                        "ant-dlrover-card-failures": pytest.approx(0.1125, abs=5e-5)}
    assert _rates(rel, FIGURES["ant-dlrover-card-failures"])[2] * 30 == pytest.approx(89.0, abs=0.05)
    assert (419 - 268) / 268 == pytest.approx(0.563, abs=0.0005)
