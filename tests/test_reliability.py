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
from archgen.model.requirements import Status
from archgen.model.storage import AT_STATED_BANDWIDTH
from archgen.perf.train.goodput import daly, ettr, poisson_tail, young
from archgen.perf.train.point_goodput import STACK_LOADS
from archgen.pipeline import run
from archgen.render.blocks import Para, Table
from archgen.render.operations import reliability_section

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
        cluster.write_text(cluster.read_text(encoding="utf-8").replace("facility: hall-air", f"facility: hall-air\nfailure_rates: "
                                                                             f"{rates}"), encoding="utf-8")
    return run([tree])


def test_llama3_fixture_passes_archgens_own_checks(tmp_path):
    """The fixture had invalid optics (single-port modules in twin-port OSFP cages, 100 m reach over 183 m runs)."""
    # the shipped rack's floor load, a lower bound since weight67, is waived there with its reason
    assert not [f for f in _run(tmp_path).findings if f.severity == "error" and not f.waived]


def test_llama3_run_consistency_with_the_shipped_rates(tmp_path):
    """Consistency check (not independent: the shipped GPU, host, NIC and software rates come from Table 5).

    419 unplanned interruptions in 54 days on 16,384 H100: within 15 %. The shipped set reproduces the GPU, host,
    NIC and software counts, and its network rate is the run's 35 switch and cable interruptions over the parts
    section 3.3.1 lets one count (tests/analyse/test_network_rate.py), applied to the stand-in's own switches and optics.
    """
    r = _run(tmp_path)
    measured = SOURCES["measured"]
    got = r.metrics["workload/llama3-405b-16k"]["interruptions_per_day"].m_as("1/day") * measured["days"]
    assert got == pytest.approx(measured["interruptions_unplanned"], rel=0.15)
    # +0.6 %: the job's share of the stand-in's 2,816 switches and 73,728 optical ends (twin-port optics, one module
    # for two ports), 51,029 parts against the 50,176 the rate was counted over, at 0.004718 a part-year give 35.6
    # switch and transceiver interruptions where the run had 35 (42 with the assumed rates before); its switches at
    # Alibaba HPN's ToR rate instead (issue 22) add 2/3 x 2,816 x (0.00612 - 0.004718) x 54 / 365.25 = 0.39 (421.25
    # before); NICs are counted per NIC, so the stand-in DGX H100's 10 data NICs take 7 x 10 / 8 = 8.75 where the
    # run's 8-NIC servers had 7
    assert got == pytest.approx(421.25 + 2 / 3 * 2816 * (0.00612 - 0.004718) * 54 / 365.25, rel=1e-4)
    assert got == pytest.approx(421.64, abs=0.005)
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
    # NICs were still counted as the run's 8 a server; 2.93 with the assumed network rates)
    assert rel.interrupts_per_day(1) / (gpu + shared + node / 8) == pytest.approx(2.96, abs=0.01)


def _without_storage(tmp_path):
    """The Llama 3 stand-in with its rack, its cluster's checkpoint `storage:` taken out."""
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    cluster = tree / "cluster.yaml"
    text = cluster.read_text(encoding="utf-8")
    start = text.index("storage: {")
    cluster.write_text(text[:start] + text[text.index("}\n", start) + 2:], encoding="utf-8")
    return tree


def test_without_storage_the_job_keeps_its_interruptions_and_withholds_goodput(tmp_path):
    """No `storage:` wrote the checkpoint over the compute NICs (0.99 TB in 0.04 s); now REL006 and no goodput.

    The job's interruptions and MTTI, which need no storage, are still reported; its cost per token is not.
    """
    tree = _without_storage(tmp_path)
    r = run([tree])
    m = r.metrics["workload/llama3-405b-16k"]
    assert [f.id for f in r.findings if f.id == "REL006"] == ["REL006"]
    assert "goodput" not in m and "checkpoint_write_time" not in m and "cost_per_token" not in m
    rel = r.operations.reliability["cluster/llama3-16k"]
    assert m["interruptions_per_day"].m_as("1/day") == pytest.approx(rel.interrupts_per_day(16384))
    assert m["mtti_low"] < m["mtti"] < m["mtti_high"]


def test_without_storage_requirements_on_goodput_are_not_provided_with_the_reason(tmp_path):
    """A requirement on the goodput of a job without checkpoint storage said "has no metric 'goodput'", as if the
    name were misspelt; now it is not provided because of REL006, on the job and on its cluster."""
    tree = _without_storage(tmp_path)
    (tree / "req.yaml").write_text(
        "kind: Requirements\nid: ops\nrequirements:\n"
        "  - {id: R-JOB, statement: job goodput, subject: workload/llama3-405b-16k, metric: goodput, target: '>= 0.9'}\n"
        "  - {id: R-TOK, statement: cost, subject: workload/llama3-405b-16k, metric: cost_per_token, "
        "target: '<= 1 USD'}\n"
        "  - {id: R-CL, statement: cluster goodput, subject: cluster/llama3-16k, metric: goodput, target: '>= 0.9'}\n",
        encoding="utf-8")
    r = run([tree])
    why = "cluster 'llama3-16k' gives no checkpoint `storage:` (REL006)"
    messages = sorted(f.message for f in r.findings if f.id == "REQ002" and not f.waived)   # not the rack's floor load
    assert messages == [
        f"R-CL: cluster/llama3-16k's goodput is not provided: its training job llama3-405b-16k has no goodput: {why}",
        f"R-JOB: workload/llama3-405b-16k's goodput is not provided: {why}",
        f"R-TOK: workload/llama3-405b-16k's cost_per_token is not provided: {why}; llama3-16k's capex rests on "
        "unpriced parts (dgx-h100 x3072; COST002)"]   # smf-800g-dr8-500m priced since coretier43


def test_without_storage_the_time_to_train_is_still_given(tmp_path):
    """The time to train (tokens over tokens per second) and the checkpoint's size need no goodput; they were left
    out with it (REL006), the size being what a user without `storage:` needs to choose one."""
    tree = _without_storage(tmp_path)
    m = run([tree]).metrics["workload/llama3-405b-16k"]
    assert "goodput_time_to_train" not in m
    # what the storage must hold: 14 B a parameter of Llama 3.1 405B (405,853,388,800 in its published weights)
    assert m["checkpoint_size"].m_as("B") == pytest.approx(405.85e9 * 14, rel=1e-3)
    assert m["time_to_train"].m_as("s") == pytest.approx(15.6e12 / m["tokens_per_second"].m_as("1/s"))


def test_in_memory_checkpoints_without_nics_say_why_there_is_no_goodput(tmp_path):
    """`checkpoint.in_memory` on the TPU v4 pod, whose trays list no NIC, gave no goodput and no finding at all."""
    specs = Path(__file__).parents[1] / "specs"
    text = (specs / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")
    (tmp_path / "pod.yaml").write_text(text.replace("  precision: bf16\n", "  precision: bf16\ncheckpoint: "
                                                    "{in_memory: true}\n", 1), encoding="utf-8")
    shutil.copy(specs / "racks" / "tpu-v4-cube.yaml", tmp_path)
    r = run([tmp_path])
    assert "goodput" not in r.metrics["workload/llama3-70b-pretrain-tpu-v4"]
    assert [f.message for f in r.findings if f.id == "REL006"] == [
        "checkpoints go to peer host memory (`checkpoint.in_memory`), but the nodes of cluster 'tpu-v4-pod' have no "
        "storage, converged or compute NIC to send them over; checkpoint write time, goodput and spares are not "
        "provided"]


def test_a_million_accelerator_reliability_analysis_with_spares_is_quick(tmp_path):
    """Bar (issue 22): 1,048,576 accelerators with spares in under 10 s, the whole pipeline (was 224 s).

    The Llama 3 stand-in grown to 2,100 pods of 512 H100 (1,075,200), a job on 1,048,576 with 3,328 idle nodes, its
    spares sized to goodput 0.01, every rate set at both ends of its interval. Its fabric is built: the stand-in's
    64-port QM9700 reaches 64³/4 = 65,536 ports a plane in 3 tiers (NET003; newuser103 found the fixture's fabric,
    and so its job's estimate and goodput, refused), so the fabric takes the SN5600's 128 ports of 400 Gb/s (64 x
    800G broken out 2 x 400G: 128³/4 = 524,288 a plane) in 4 planes of the DGX H100's 8 compute ports (268,800
    each). About 3 CPU-s here, of which the reliability analysis and the spare search some 0.07 s (reltidy42).
    """
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    cluster = tree / "cluster.yaml"
    text = cluster.read_text(encoding="utf-8").replace("{unit: pod, count: 48}", "{unit: pod, count: 2100}")
    text = text.replace("accelerators: 16384", "accelerators: 1048576").replace("dp: 128", "dp: 8192")
    text = text.replace("global_batch: 2048", "global_batch: 16384")
    text = text.replace("    switch: qm9700\n    tiers: 3\n", "    switch: sn5600\n    tiers: 3\n    planes: 4\n")
    cluster.write_text(text.replace("checkpoint: {tokens: 15.6e12}", "checkpoint: {tokens: 15.6e12, "
                                    "goodput_target: 0.01}"), encoding="utf-8")
    start = time.process_time()  # CPU seconds, not the wall clock of a shared machine
    r = run([tree])
    assert time.process_time() - start < 10
    assert not [f for f in r.findings if f.id.startswith(("NET", "CAB")) and f.severity == "error"]
    (fabric,) = r.clusters["cluster/llama3-16k"].fabrics
    assert fabric.links["access"] == 1_075_200 // 4   # per plane: a quarter of the 1,075,200 compute ports
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
    # the document: no interval (Daly's is infinite; it showed "0.0 min") and no MTTI, and the range is the named
    # set's own interval, not "over the rate sets"
    texts, goodput = _reliability_document(r)
    assert "sees 0 interruptions per day, no part fails at these rates, so there is no mean time to interruption." \
        in texts[0]
    assert texts[-2] == ("Range: llama3-405b-16k: goodput 1.000 to 1.000 over the set's 95 % Poisson interval; "
                         f"restart + repair wait 10.0 min to 10.9 min; {AT_STATED_BANDWIDTH}; {restore('1.000', '1.000')}.")
    assert goodput[0][2] == goodput[0][5] == "—"  # MTTI, interval
    # REL012: the stand-in states `storage:` but builds no storage fabric (its checkpoints ride the nodes' NICs)
    assert not [f.id for f in r.findings if f.id.startswith("REL") and f.id != "REL012"]


#: The stand-in's restore at tp 8, pp 16, dp 128 with the distributed optimizer (nu76fix): 405.85e9 x (2 x 128 + 12) B
#: = 108.8 TB read under Megatron's default load (`storage_demand.restore_read`), against the 5.682 TB checkpoint once
#: under a fully parallel load; the default stack (nemo-2025) does not settle which, so goodput's range spans both
#: (storage29: before, goodput counted the one copy and a note gave the other's time).
def restore(once: str, per_replica: str) -> str:
    """The goodput note on the stand-in's restore, its goodput at each read (`once`, `per_replica`)."""
    return (f"a restore reads the 5.682 TB checkpoint once under a fully parallel load (3 s, goodput {once}) or 108.8 "
            "TB, the weights once per data-parallel replica (`checkpoint_restore_read`), under Megatron's default (54 s, "
            f"goodput {per_replica}); which the stack runs is not settled, {STACK_LOADS['nemo-2025'][1]}: goodput's "
            "range spans both (state `checkpoint.parallel_load`)")


def _reliability_document(r) -> tuple[list[str], list[list[str]]]:
    """The paragraphs of the Llama 3 stand-in's "Reliability and availability" section and its goodput table."""
    section = reliability_section(r, r.clusters["cluster/llama3-16k"])
    assert section is not None
    table, = (b for b in section.blocks if isinstance(b, Table) and b.id == "goodput")
    return [b.text for b in section.blocks if isinstance(b, Para)], table.text()


def test_a_named_set_is_ranged_over_its_own_interval(tmp_path):
    """A cluster that names its set gets that set's Poisson interval; the document said "over the set's and their
    95 % Poisson intervals" and "over the rate sets", as if it were the range over the catalog."""
    texts, _ = _reliability_document(_run(tmp_path, rates="field-h100-2024"))
    # the optics' rate is counted (35 events, one interval); the switches' borrowed HPN rate states no count (issue
    # 22: before, they shared the 35 and no class was left out; 2.1 h at the pooled rate)
    assert texts[0].endswith(" a mean time to interruption of 2.0 h (1.9 h to 2.3 h over the set's 95 % Poisson "
                             "interval; the uncertainty of switch is not provided (their rates state no `events`), so "
                             "the range is narrower than the rates are known).")
    assert _range(texts) == ("Range: llama3-405b-16k: goodput 0.908 to 0.925 over the set's 95 % Poisson interval; "
                        "spares needed 9 to 12; spares sized at Daly's optimum interval (4.15 min); restart + repair "
                        f"wait 10.2 min to 11.1 min; {AT_STATED_BANDWIDTH}; "
                        f"{restore('0.919', '0.914')}; planned interruptions ('field-h100-2024' set's): 0.870 a day, "
                        "each stopping it for its restart and restore, 0.61 % of its wall time (taken after a "
                        "checkpoint: no work lost).")   # the spares' range: nu41cost; planned words: newuser92
    texts, _ = _reliability_document(_run(tmp_path / "default"))   # no set named: the range over the catalog's
    assert "over the published rate sets alibaba-hpn-2024, " in texts[0] and "over the rate sets" in _range(texts)
    assert texts[1].startswith("Few events (accelerator: sdc, accelerator: thermal, nic): ")   # rel36: by class
    assert texts[2].startswith("Spare-parts stock: not provided")   # newuser69, spares22: no turnaround stated


def _range(texts: list[str]) -> str:
    """The goodput table's "Range:" paragraph of a reliability section's paragraphs."""
    (found,) = [t for t in texts if t.startswith("Range: ")]
    return found


def _superpod_with_own_goodput(tmp_path, target: str) -> None:
    """The shipped DGX B200 SuperPOD, its racks and its Llama 3 70B job, the job with its own 'goodput >= target'."""
    specs = Path(__file__).parents[1] / "specs"
    shutil.copy(specs / "clusters" / "dgx-b200-superpod.yaml", tmp_path)
    shutil.copytree(specs / "racks", tmp_path / "racks")
    text = (specs / "workloads" / "llama3-70b.yaml").read_text(encoding="utf-8")
    (tmp_path / "w.yaml").write_text(text.replace(
        "requirements:\n", "requirements:\n  - {id: OWN-GP, statement: own goodput, metric: goodput, "
        f"target: \">= {target}\"}}\n", 1), encoding="utf-8")


def test_a_reliability_requirement_met_only_inside_the_range_is_at_risk(tmp_path):
    """No false "met": on the shipped DGX B200 SuperPOD, 'MTTI >= 40 h' was met at the default set's 47.8 h while the
    published rate sets put it as low as 8.0 h; goodput and interruptions alike. Now at risk (REQ004) at the range's
    pessimistic end, in Requirements documents and in a workload's own requirements; a target met at both ends is
    met, one missed at the point is not met."""
    _superpod_with_own_goodput(tmp_path, "0.98")
    (tmp_path / "req.yaml").write_text(
        "kind: Requirements\nid: ops\nrequirements:\n"
        "  - {id: R-MTTI, statement: MTTI, subject: cluster/dgx-b200-superpod, metric: mtti, target: '>= 40 h'}\n"
        "  - {id: R-EASY, statement: MTTI, subject: cluster/dgx-b200-superpod, metric: mtti, target: '>= 5 h'}\n"
        "  - {id: R-HARD, statement: MTTI, subject: cluster/dgx-b200-superpod, metric: mtti, target: '>= 50 h'}\n"
        "  - {id: R-INT, statement: interruptions, subject: workload/llama3-70b-pretrain-b200, "
        "metric: interruptions_per_day, target: '<= 0.5 1/day'}\n"
        "  - {id: R-CGP, statement: goodput, subject: cluster/dgx-b200-superpod, metric: goodput, "
        "target: '>= 0.98'}\n", encoding="utf-8")
    r = run([tmp_path])
    cluster, job = r.metrics["cluster/dgx-b200-superpod"], r.metrics["workload/llama3-70b-pretrain-b200"]
    assert cluster["mtti_low"].m_as("h") < 40 < cluster["mtti"].m_as("h") < 50       # 8.0 h < 40 h < 47.8 h
    risk = {f.requirement: f for f in r.findings if f.id == "REQ004"}
    # REQ-PERF-001, the workload's MFU >= 0.35, is met at the dense-training band's low end (-37.9 %) since the
    # 512-GPU GB200 8B row left it (perf/comm/placement.py); it was at risk at -47.7 %
    # REQ-PERF-011, the shipped offline serving job's TPOT (a SHOULD), is not met since offtpot37 (each request's
    # tokens ~296 ms apart), no longer at risk on the decode step
    assert sorted(risk) == ["OWN-GP", "R-CGP", "R-INT", "R-MTTI"]
    # the cluster's goodput is its largest training job's, range and all (it had no range: judged at the point)
    assert [cluster[f"goodput{end}"] for end in ("", "_low", "_high")] == \
        [job[f"goodput{end}"] for end in ("", "_low", "_high")]
    assert risk["R-MTTI"].value == cluster["mtti_low"]
    assert risk["R-INT"].value == job["interruptions_per_day_high"]
    assert risk["OWN-GP"].value == job["goodput_low"] and job["goodput_low"].m < 0.98 < job["goodput"].m
    assert "pessimistic end of its range" in risk["R-MTTI"].message
    met = [f.requirement for f in r.findings if f.id == "REQ001"]
    assert met == ["R-HARD"]                                                       # 47.8 h < 50 h: not met
    own, = (o for o in r.workloads["workload/llama3-70b-pretrain-b200"].estimate.requirements
            if o.requirement.id == "OWN-GP")
    assert own.status is Status.AT_RISK


def test_estimate_says_it_leaves_reliability_to_check(tmp_path, cli):
    """`archgen estimate` said a goodput requirement was not provided because "the training job has no goodput",
    while `archgen check` judges it on 0.993; estimate runs no reliability stage and now says so."""
    _superpod_with_own_goodput(tmp_path, "0.9")
    r = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(tmp_path))
    assert ("OWN-GP: goodput >= 0.9: not provided (`archgen estimate` gives the performance estimate only; "
            "`archgen check` computes goodput)") in r.out
