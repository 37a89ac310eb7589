"""Checkpoint storage priced and powered like the rest, where its `storage:` says so (issue 22 part 1).

Before, a cluster's `storage:` had no price and no draw: capex, IT power and TCO left it out, so a larger or faster
storage raised goodput and lowered cost per token at no cost. With `price` (or a `Prices` document's price of its
`id`) and `power`, its price is one more capex line and its draw enters IT power, facility power and energy as a
part's does; without them nothing changes. The figures here are test inputs (round numbers, not quotes); the
expected values are the cost model's formulas (docs/reliability.md, "Cost"): capex + price, IT power + `max`,
average load + `typical`, facility power = IT power x PUE, energy = load x 8,766 h x PUE x price of energy.
"""

from __future__ import annotations

import json
import shutil

import pytest

from archgen.analyse.storage_cost import NO_POWER, NOT_COSTED
from tests.conftest import SPECS, run_cli, shipped_edited

CLUSTER_FILE, CLUSTER = "clusters/dgx-b200-superpod.yaml", "cluster/dgx-b200-superpod"
#: The shipped SuperPOD's assumed storage block ends with its basis and source; the tests add keys before them.
TAIL = 'basis: assumed,\n          source: "assumed checkpoint storage for four SUs'
PRICE = "price: {capex: 1000000 USD, date: '2025-03', basis: assumed, source: test figure}"
POWER = "power: {max: 20 kW, typical: 15 kW, basis: assumed, source: test figure}"
HOURS_PER_YEAR = 8766


def _with(tmp_path, *keys: str, files: dict[str, str] | None = None):
    """The shipped specs with `keys` added to the SuperPOD's `storage:` block."""
    return shipped_edited(tmp_path, CLUSTER_FILE, TAIL, "".join(f"{k}, " for k in keys) + TAIL, files)


def _hall(run):
    cluster = run.clusters[CLUSTER].cluster
    return cluster.facility.cost   # hall-air: 0.0895 USD/kWh, PUE 1.4, utilisation as the catalog states


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The shipped specs as they are (storage with no price or power), from the same copied tree."""
    return _with(tmp_path_factory.mktemp("base"))


@pytest.fixture(scope="module")
def stated(tmp_path_factory):
    return _with(tmp_path_factory.mktemp("stated"), PRICE, POWER)


def test_price_enters_capex_and_tco(base, stated):
    before, after = base.metrics[CLUSTER], stated.metrics[CLUSTER]
    assert (after["capex"] - before["capex"]).m_as("USD") == pytest.approx(1_000_000)
    crf = after["capital_recovery_factor"].m
    energy = (after["energy_cost_per_year"] - before["energy_cost_per_year"]).m_as("USD")
    assert (after["tco_per_year"] - before["tco_per_year"]).m_as("USD") == pytest.approx(1_000_000 * crf + energy)
    gpus = after["accelerators"].m
    assert after["tco_per_accelerator_hour"].m_as("USD") == pytest.approx(
        after["tco_per_year"].m_as("USD") / (gpus * HOURS_PER_YEAR))
    line = [x for x in stated.operations.cost[CLUSTER].lines if x.kind == "Storage"]
    assert [(x.part, x.quantity, x.unit_price.m_as("USD")) for x in line] == [("checkpoint-storage", 1, 1_000_000)]


def test_draw_enters_it_power_facility_power_and_energy(base, stated):
    before, after = base.metrics[CLUSTER], stated.metrics[CLUSTER]
    hall = _hall(stated)
    assert (after["it_power"] - before["it_power"]).m_as("kW") == pytest.approx(20)            # max
    assert (after["it_power_typical"] - before["it_power_typical"]).m_as("kW") == pytest.approx(15)   # typical
    assert (after["power_average"] - before["power_average"]).m_as("kW") == pytest.approx(15)
    assert after["facility_power"].m_as("kW") == pytest.approx(after["it_power"].m_as("kW") * hall.energy.pue)
    # its idle draw is its average (it states none): the load rises by 15 kW at any utilisation
    mwh = 15 * HOURS_PER_YEAR * hall.energy.pue / 1000
    assert (after["facility_energy_per_year"] - before["facility_energy_per_year"]).m_as("MWh") == pytest.approx(mwh)
    assert (after["energy_cost_per_year"] - before["energy_cost_per_year"]).m_as("USD") == pytest.approx(
        mwh * 1000 * hall.energy.price.m_as("USD/kWh"))


def test_costed_storage_drops_the_left_out_notes(base, stated):
    """The Open item and the warning go away where price and power are stated; without them they stay."""
    def items(run):
        from archgen.render.operations import open_items
        return " ".join(str(i) for i in open_items(run, run.clusters[CLUSTER]))
    assert "leave out the checkpoint storage" in items(base)
    assert "checkpoint storage" not in items(stated)
    assert not [f for f in stated.findings if f.id == "COST008"]
    assert "checkpoint-storage price" in " ".join(f.message for f in stated.findings if f.id == "COST003")


def test_shipped_storage_still_costed_without_it(base, shipped):
    """The shipped examples state no storage price: their cost metrics are as before, nothing is 'not provided'."""
    assert base.metrics[CLUSTER]["capex"] == shipped.metrics[CLUSTER]["capex"]
    assert base.metrics[CLUSTER]["it_power"] == shipped.metrics[CLUSTER]["it_power"]
    assert "tco_per_accelerator_hour" in shipped.metrics[CLUSTER]


def test_price_list_prices_the_storage_by_its_id(tmp_path, base):
    """A `Prices` document prices the storage by `storage.id`, before its own `price`, as it does a part."""
    prices = ("kind: Prices\nid: storage-quote\nprices:\n"
              "  test-pfs: {capex: 2500000 USD, date: '2025-03', basis: assumed, source: test figure}\n")
    r = _with(tmp_path, "id: test-pfs", PRICE, POWER, files={"prices.yaml": prices})
    assert (r.metrics[CLUSTER]["capex"] - base.metrics[CLUSTER]["capex"]).m_as("USD") == pytest.approx(2_500_000)
    (line,) = [x for x in r.operations.cost[CLUSTER].lines if x.kind == "Storage"]
    assert (line.part, line.listed) == ("test-pfs", "storage-quote")
    assert not [f for f in r.findings if f.id == "COST004"]


def test_price_list_id_of_a_catalog_part_is_refused(tmp_path):
    """A storage id that names a catalog part would take (and give) that part's listed price: COST004 refuses it."""
    prices = ("kind: Prices\nid: q\nprices:\n"
              "  qm9700: {capex: 30000 USD, date: '2025-03', basis: assumed, source: test figure}\n")
    r = _with(tmp_path, "id: qm9700", POWER, files={"prices.yaml": prices})
    assert any(f.id == "COST004" and "checkpoint storage" in f.message for f in r.findings)


def test_a_storage_price_in_another_currency_is_cost001(tmp_path):
    r = _with(tmp_path, PRICE.replace("USD", "EUR"), POWER)
    assert [f.severity for f in r.findings if f.id == "COST001" and f.object == CLUSTER] == ["error"]
    assert "capex" not in r.metrics[CLUSTER]


def test_price_without_power_is_a_warning_and_says_so(tmp_path, base):
    r = _with(tmp_path, PRICE)
    assert [f.severity for f in r.findings if f.id == "COST008"] == ["warning"]
    assert (r.metrics[CLUSTER]["capex"] - base.metrics[CLUSTER]["capex"]).m_as("USD") == pytest.approx(1_000_000)
    assert r.metrics[CLUSTER]["it_power"] == base.metrics[CLUSTER]["it_power"]


def _tree(dest, *keys: str):
    shutil.copytree(SPECS, dest, ignore=shutil.ignore_patterns("catalog"))
    path = dest / CLUSTER_FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(TAIL, "".join(f"{k}, " for k in keys) + TAIL, 1), encoding="utf-8")
    return dest


def test_diff_costs_a_priced_storage_change(tmp_path):
    """200 -> 400 GB/s with its price 1.0 -> 1.6 M USD and draw 20 -> 30 kW: the diff's capex and IT power move by
    the difference, and no "Not costed" sentence is left; with only a price on HEAD, the sentence says the power;
    from no price and power to both, it says the change holds the whole price and draw."""
    faster = ("write_bandwidth: 400 GB/s", PRICE.replace("1000000", "1600000"), POWER.replace("max: 20", "max: 30"))
    base = _tree(tmp_path / "base", PRICE, POWER)
    head = _tree(tmp_path / "head", *faster[1:])
    text = (head / CLUSTER_FILE).read_text(encoding="utf-8")
    (head / CLUSTER_FILE).write_text(text.replace("write_bandwidth: 200 GB/s", faster[0], 1), encoding="utf-8")
    doc = json.loads(run_cli("diff", base, head, "--format", "json").out)
    assert doc["not_costed"] == []
    moved = {m["metric"]: m for m in doc["metrics"] if m["object"] == CLUSTER}
    assert moved["capex"]["head"]["value"] - moved["capex"]["base"]["value"] == pytest.approx(600_000)
    assert moved["it_power"]["head"]["value"] - moved["it_power"]["base"]["value"] == pytest.approx(10_000)   # W (SI in JSON)
    half = _tree(tmp_path / "half", PRICE)
    doc = json.loads(run_cli("diff", base, half, "--format", "json").out)
    assert doc["not_costed"] == [f"{CLUSTER} checkpoint storage changed: its price, power, basis or source; {NO_POWER}"]
    assert NOT_COSTED not in " ".join(doc["not_costed"])
    plain = _tree(tmp_path / "plain")   # BASE states neither, HEAD both: the capex change is the whole price
    (said,) = json.loads(run_cli("diff", plain, base, "--format", "json").out)["not_costed"]
    assert said.endswith("BASE's storage states no price or power and HEAD's does: the capex and power changes hold "
                         "the storage's whole price and draw, not only what the change costs")


def test_sweep_words_drop_the_note_where_the_storage_is_costed(base, stated):
    """A sweep's document says beside each priced cluster's goodput what its cost leaves out (`sweep_words`): the
    storage note stays without a price and power and goes with them, whose cost is then in each point's cost."""
    from archgen.analyse.assumed import sweep_words

    def words(run):
        return sweep_words(run.clusters[CLUSTER], run.operations.reliability.get(CLUSTER),
                           run.operations.cost[CLUSTER], in_memory=False)
    assert NOT_COSTED.replace("the change", "a faster storage") in words(base)
    assert "checkpoint storage has no" not in words(stated)


def test_idle_hours_at_the_stated_idle_draw_else_the_typical(tmp_path, base, stated):
    """The idle load (the hours `utilisation` leaves idle) takes the storage's `idle` where stated, else its typical
    draw, listed as assumed as a part's is (COST003)."""
    from archgen.analyse.cost_load import average_load as _load

    def idle(run):
        return _load(run.specs, run.clusters[CLUSTER], idle=True)
    (zero, _), (typical, typical_assumed) = idle(base), idle(stated)
    assert (typical - zero).m_as("kW") == pytest.approx(15) and "checkpoint-storage" in typical_assumed
    given = _with(tmp_path, PRICE, POWER.replace("typical: 15 kW", "typical: 15 kW, idle: 5 kW"))
    low, low_assumed = idle(given)
    assert (low - zero).m_as("kW") == pytest.approx(5) and "checkpoint-storage" not in low_assumed
