"""Reliability and goodput: the closed forms against their published values, and the Llama 3 405B run.

Sources are in tests/data/reliability/llama3-sources.yaml. The Llama 3 reproduction with the shipped rates is a
*consistency* check: the accelerator, host, NIC and software rates of the shipped set come from the same Table 5
(specs/catalog/reliability/field-h100-2024.yaml). The independent check uses Meta's RSC cluster rates (HPCA 2025)
and states how far they land from the run.
"""

from __future__ import annotations

import math
import shutil
import time
from pathlib import Path

import pytest
from pydantic import ValidationError
from ruamel.yaml import YAML

from archgen.model.reliability import FailureRates
from archgen.perf.train.goodput import daly, ettr, poisson_tail, young
from archgen.pipeline import run

DATA = Path(__file__).parent / "data" / "reliability"
SOURCES = YAML(typ="safe", pure=True).load((DATA / "llama3-sources.yaml").read_text(encoding="utf-8"))
RACK = Path(__file__).parents[1] / "specs" / "racks" / "dgx-h100-4.yaml"


def test_young_is_the_first_order_closed_form():
    # Young (1974): tau = sqrt(2 delta M); delta = 5 min, M = 24 h -> 120 min
    assert young(5, 24 * 60) == pytest.approx(120.0)


@pytest.mark.parametrize("case", SOURCES["checkpoint_interval"]["cases"], ids=lambda c: c["mtti"])
def test_daly_interval_matches_the_published_optima(case):
    """Daly (2006), Figs. 3-5: delta = 5 min gives 117, 57 and 9.1 min at M = 24 h, 6 h and 15 min."""
    m = float(case["mtti"].split()[0]) * (60 if case["mtti"].endswith("h") else 1)
    assert daly(5, m) == pytest.approx(float(case["optimum"].split()[0]), abs=0.5)


def test_daly_interval_is_where_ettr_peaks():
    """The interval maximising Daly's wall-time model lies within 1 % of his closed-form optimum."""
    delta, restart, mtti = 300.0, 600.0, 6 * 3600.0
    grid = [60.0 + i for i in range(20000)]
    best = max(grid, key=lambda t: ettr(t, delta, restart, mtti))
    assert best == pytest.approx(daly(delta, mtti), rel=0.01)


def test_ettr_closed_form():
    """Daly's expected wall time: Ts / Tw = tau / (M e^(R/M) (e^((tau+delta)/M) - 1)); small delta, R -> first
    order 1 - sqrt(2 delta / M) - R / M."""
    delta, restart, mtti = 3.0, 600.0, 3 * 3600.0
    tau = daly(delta, mtti)
    exact = tau / (mtti * math.exp(restart / mtti) * (math.exp((tau + delta) / mtti) - 1))
    assert ettr(tau, delta, restart, mtti) == pytest.approx(exact)
    assert ettr(tau, delta, restart, mtti) == pytest.approx(1 - math.sqrt(2 * delta / mtti) - restart / mtti,
                                                           abs=0.003)
    assert ettr(tau, delta, restart, math.inf) == pytest.approx(tau / (tau + delta))


def test_poisson_tail():
    assert poisson_tail(1.0, 0) == pytest.approx(1 - math.exp(-1))
    assert poisson_tail(0.0, 3) == 0.0


def _run(tmp_path: Path, rates: str | None = None, extra: Path | None = None):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    if extra:
        shutil.copy(extra, tree / extra.name)
    if rates:
        cluster = tree / "cluster.yaml"
        cluster.write_text(cluster.read_text().replace("facility: hall-air", f"facility: hall-air\nfailure_rates: "
                                                                             f"{rates}"), encoding="utf-8")
    return run([tree])


def test_llama3_fixture_passes_archgens_own_checks(tmp_path):
    """The fixture had invalid optics (single-port modules in twin-port OSFP cages, 100 m reach over 183 m runs)."""
    assert not [f for f in _run(tmp_path).findings if f.severity == "error"]


def test_llama3_run_consistency_with_the_shipped_rates(tmp_path):
    """Consistency check (not independent: the shipped GPU, host, NIC and software rates come from Table 5).

    419 unplanned interruptions in 54 days on 16,384 H100: within 15 %. The shipped set reproduces the GPU, host,
    NIC and software counts and adds its assumed network rates (switches, transceivers) in place of the run's 35.
    """
    r = _run(tmp_path)
    measured = SOURCES["measured"]
    got = r.metrics["workload/llama3-405b-16k"]["interruptions_per_day"].m_as("1/day") * measured["days"]
    assert got == pytest.approx(measured["interruptions_unplanned"], rel=0.15)
    # +2.0 %: the assumed network rates give 42 switch and transceiver interruptions (twin-port optics, one module for
    # two ports) where the run had 35; NICs are counted per NIC, so the stand-in DGX H100's 10 data NICs take
    # 7 x 10 / 8 = 8.75 where the run's 8-NIC servers had 7 (425.8 + 1.75)
    assert got == pytest.approx(427.55, rel=0.002)
    # the measured MTTI (54 days / 419) lies inside the range over the catalog's rate sets and their intervals
    m = r.metrics["workload/llama3-405b-16k"]
    assert m["mtti_low"].m_as("h") < measured["days"] * 24 / measured["interruptions_unplanned"] < m["mtti_high"].m_as("h")
    goodput = r.metrics["workload/llama3-405b-16k"]["goodput"].m_as("")
    assert goodput == pytest.approx(measured["effective_training_time"], abs=0.05)


@pytest.mark.parametrize(("rates", "expected"), [("rsc1-a100-2024", 718.8), ("rsc2-a100-2024", 258.8)])
def test_llama3_run_from_independent_rsc_rates(tmp_path, rates, expected):
    """Independent check: Meta's RSC-1 / RSC-2 node failure rates (A100, HPCA 2025) on the run's 2,048 nodes.

    2,048 nodes x 54 days x r_f: 719 (RSC-1) and 259 (RSC-2) against 419, i.e. +72 % and -38 %. Neither meets the
    15 % bar; the run lies between the two clusters. RSC-1's own projection for a 16,384-GPU job, 1.8 h MTTF, is
    what 6.50 per 1000 node-days gives.
    """
    r = _run(tmp_path, rates)
    m = r.metrics["workload/llama3-405b-16k"]
    got = m["interruptions_per_day"].m_as("1/day") * SOURCES["measured"]["days"]
    assert got == pytest.approx(expected, rel=0.001)
    lo, hi = sorted((718.8, 258.8))
    assert lo < SOURCES["measured"]["interruptions_unplanned"] < hi
    if rates == "rsc1-a100-2024":
        assert m["mtti"].m_as("h") == pytest.approx(SOURCES["independent"]["rsc1_mttf_16384_gpus_hours"], abs=0.05)


def test_server_rates_apply_per_accelerator_and_management_stops_no_job():
    """Host and software rates were counted per node: a 4-GPU tray took twice an 8-GPU server's rate per GPU.

    Llama 3's host, NIC and software rates are per 8-GPU server (`per_accelerators: 8`): on the GB200 SU's 144
    trays of 4 GPUs they apply to 576 / 8 = 72 server equivalents. A management (out-of-band) leaf failure is a
    repair, not an interruption: it removes no accelerator from a job.
    """
    r = run([Path(__file__).parents[1] / "specs" / "clusters" / "gb200-nvl72-su.yaml",
             Path(__file__).parents[1] / "specs" / "racks", Path(__file__).parents[1] / "specs" / "workloads"])
    rel = r.operations.reliability["cluster/gb200-nvl72-su"]
    by = {c.name: c for c in rel.classes if c.interrupts}
    assert by["host"].units == 144
    assert by["host"].per_day == pytest.approx(576 / 8 * 0.1519 / 365.25)
    assert by["software"].per_day == pytest.approx(576 / 8 * 0.2081 / 365.25)
    nics = sum(c.units for c in rel.classes if c.name == "nic" and c.interrupts)
    assert nics == 144 * 6  # a GB200 compute tray: 4 ConnectX-7 and 2 BlueField-3 (its BMC port is a repair)
    assert by["nic"].per_day == pytest.approx(nics * 0.002890 / 365.25)
    assert [d.accelerators for d in rel.domains if d.name == "leaf (oob)"] == [0]
    # every reliability figure carries its range over the catalog's sets, and the borrowed H100 rates are named
    m = r.metrics["cluster/gb200-nvl72-su"]
    assert m["mtti_low"] < m["mtti"] < m["mtti_high"]
    assert "gb200 borrows them" in rel.borrowed


def test_a_job_pays_node_rates_for_every_node_it_occupies(tmp_path):
    """Host, NIC and software failures take a whole node: a 1-GPU job was charged 1/8 of its server's (2.8x too few).

    On the Llama 3 stand-in (DGX H100, 8 GPUs, 10 data NICs): a 1-GPU job pays one GPU's rate, its whole node's
    host, NIC and software rates, and its share of the shared network; an 8-GPU job the same node with 8 GPUs.
    """
    rel = _run(tmp_path).operations.reliability["cluster/llama3-16k"]
    by = {c.name: c for c in rel.classes if c.interrupts}
    nodes = rel.accelerators // 8
    assert by["nic"].units == nodes * 10  # 8 ConnectX-7 compute + 2 dual-port storage NICs a DGX H100
    assert by["nic"].per_day == pytest.approx(nodes * 10 * 7 / (2048 * 8 * 54), rel=1e-3)  # 7 on 2,048 x 8 NICs
    node = sum(by[n].per_day for n in ("host", "nic", "software")) / nodes
    shared = sum(by[n].per_day for n in ("switch", "transceiver")) / rel.accelerators
    gpu = by["accelerator"].per_day / rel.accelerators
    assert rel.interrupts_per_day(1) == pytest.approx(gpu + shared + node)
    assert rel.interrupts_per_day(8) == pytest.approx(8 * (gpu + shared) + node)
    assert rel.interrupts_per_day(9) == pytest.approx(9 * (gpu + shared) + 2 * node)
    # against what the per-share count gave a 1-GPU job (an eighth of its node): 2.9x (issue 22 measured 2.8x when
    # NICs were still counted as the run's 8 a server)
    assert rel.interrupts_per_day(1) / (gpu + shared + node / 8) == pytest.approx(2.93, abs=0.01)


def test_without_storage_the_job_keeps_its_interruptions_and_withholds_goodput(tmp_path):
    """No `storage:` wrote the checkpoint over the compute NICs (0.99 TB in 0.04 s); now REL006 and no goodput.

    The job's interruptions and MTTI, which need no storage, are still reported; its cost per token is not.
    """
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    cluster = tree / "cluster.yaml"
    text = cluster.read_text(encoding="utf-8")
    start = text.index("storage: {")
    cluster.write_text(text[:start] + text[text.index("}\n", start) + 2:], encoding="utf-8")
    r = run([tree])
    m = r.metrics["workload/llama3-405b-16k"]
    assert [f.id for f in r.findings if f.id == "REL006"] == ["REL006"]
    assert "goodput" not in m and "checkpoint_write_time" not in m and "cost_per_token" not in m
    rel = r.operations.reliability["cluster/llama3-16k"]
    assert m["interruptions_per_day"].m_as("1/day") == pytest.approx(rel.interrupts_per_day(16384))
    assert m["mtti_low"] < m["mtti"] < m["mtti_high"]


def test_a_million_accelerator_reliability_analysis_with_spares_is_quick(tmp_path):
    """Bar (issue 22): 1,048,576 accelerators with spares in under 10 s, the whole pipeline (was 224 s).

    The Llama 3 stand-in grown to 2,100 pods of 512 H100 (1,075,200; its 3-tier QM9700 fabric cannot hold them,
    NET003, so only the nodes' and racks' parts fail), a job on 1,048,576 with 3,328 idle nodes, its spares sized
    to goodput 0.01, every rate set at both ends of its interval.
    """
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    cluster = tree / "cluster.yaml"
    text = cluster.read_text(encoding="utf-8").replace("{unit: pod, count: 48}", "{unit: pod, count: 2100}")
    text = text.replace("accelerators: 16384", "accelerators: 1048576").replace("dp: 128", "dp: 8192")
    text = text.replace("global_batch: 2048", "global_batch: 16384")
    cluster.write_text(text.replace("checkpoint: {tokens: 15.6e12}", "checkpoint: {tokens: 15.6e12, "
                                    "goodput_target: 0.01}"), encoding="utf-8")
    start = time.process_time()  # CPU seconds (about 0.3 here), not the wall clock of a shared machine
    r = run([tree])
    assert time.process_time() - start < 10
    m = r.metrics["workload/llama3-405b-16k"]
    assert r.operations.reliability["cluster/llama3-16k"].accelerators == 1_075_200
    assert m["spares"].m >= 0 and m["goodput"].m > 0.01 and m["goodput_low"] <= m["goodput"] <= m["goodput_high"]


def test_a_network_only_set_takes_the_other_classes_from_its_base(tmp_path):
    """A set that gives only some classes names, in `base`, the set the rest come from (Alibaba HPN: the network).

    Named on the Llama 3 stand-in, HPN's NIC-ToR link and ToR rates (SIGCOMM'24 section 2.3) replace the H100 set's
    NIC, switch and optics rates; accelerator, host and software interruptions are the H100 set's. Without a base
    (or with one that names no set) the classes it leaves out have no rate, and REL004 says which.
    """
    own = _run(tmp_path / "h100").operations.reliability["cluster/llama3-16k"]
    hpn = _run(tmp_path / "hpn", "alibaba-hpn-2024")
    rel = hpn.operations.reliability["cluster/llama3-16k"]
    assert rel.rates_id == "alibaba-hpn-2024" and not rel.unrated and not rel.borrowed
    by = {c.name: c for c in rel.classes if c.interrupts}     # management NICs apart
    h100 = {c.name: c for c in own.classes if c.interrupts}
    assert [by[n].per_day for n in ("accelerator", "host", "software")] == \
        [h100[n].per_day for n in ("accelerator", "host", "software")]
    assert by["nic"].per_day == pytest.approx(by["nic"].units * 0.00057 * 12 / 365.25)
    assert rel.planned_per_accelerator_day == own.planned_per_accelerator_day
    # the run's 16,384 GPUs for 54 days: 376.9 from Table 5's GPU, host and software counts, and HPN's network:
    # 2,048 servers x 10 NICs x 0.684 % x 54 / 365.25 = 20.7 NIC-ToR links and 1.7 switches, 22.4 against the run's
    # 42 (7 NICs, 35 switches and cables): -4.7 % in all
    got = hpn.metrics["workload/llama3-405b-16k"]["interruptions_per_day"].m_as("1/day") * 54
    assert got == pytest.approx(399.3, rel=0.001)
    assert by["nic"].per_day * 54 * 2 / 3 == pytest.approx(2048 * 10 * 0.00684 * 54 / 365.25, rel=1e-6)
    (tmp_path / "net-only.yaml").write_text(
        "kind: FailureRates\nid: net-only\nname: network only\nbase: no-such-set\nclasses:\n"
        "  nic: {afr: 0.01, basis: assumed, source: test}\n", encoding="utf-8")
    r = _run(tmp_path / "orphan", "net-only", extra=tmp_path / "net-only.yaml")
    rel4 = [f.message for f in r.findings if f.id == "REL004"]
    assert rel4 and all(f"{c} (" in rel4[0] for c in ("accelerator", "host", "software", "switch"))
    assert rel4[0].endswith("('net-only' takes the classes it leaves out from base 'no-such-set', which names no set)")
    with pytest.raises(ValidationError, match="cannot take its missing classes from itself"):
        FailureRates.model_validate({"kind": "FailureRates", "id": "x", "name": "x", "base": "x", "classes": {}})


def test_a_failure_free_cluster_needs_no_spares_and_says_nothing_of_them(tmp_path):
    """A cluster whose rates are all zero warned (REL003) that no spare count reached goodput 0.9 while reporting 1.0.

    Through the pipeline, as a user meets it: a `FailureRates` document of zeros that the cluster names.
    """
    zero = tmp_path / "zero.yaml"
    classes = "".join(f"  {c}: {{afr: 0, basis: assumed, source: test}}\n" for c in (
        "accelerator", "host", "nic", "software", "switch", "transceiver", "cable", "power_shelf", "pdu", "cdu"))
    zero.write_text("kind: FailureRates\nid: zero\nname: none\nsource: test\nclasses:\n" + classes, encoding="utf-8")
    r = _run(tmp_path, rates="zero", extra=zero)
    m = r.metrics["workload/llama3-405b-16k"]
    assert m["goodput"].m == m["goodput_low"].m == m["goodput_high"].m == 1.0
    assert m["spares"].m == 0 and m["interruptions_per_day"].m == 0
    assert not [f.id for f in r.findings if f.id.startswith("REL")]
