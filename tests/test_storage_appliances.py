"""Storage built from appliances placed in racks (`storage.appliance`, REL014): nu76fix, after newuser76's trial.

The trial's `storage:` had power but no rack units, weight or rack, so hall space, floor load and space cost left
it out. A storage server placed in racks is a System (no accelerators): its racks count its units, weight, power
and price. `storage.appliance` names that part, whose `storage:` figures (one appliance's capacity, read and write
bandwidth) bound what the cluster's storage may state: n placed x each figure (REL014). The figures here are a test
part's (assumed), not a datasheet's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.errors import ValidateError
from archgen.pipeline import run
from archgen.render.reference import storage as storage_section
from tests.test_storage_frontend import SERVER, servers_design

FIGURES = {"capacity": "500 TB", "read_bandwidth": "90 GB/s", "write_bandwidth": "65 GB/s"}


def _with_appliance(tmp_path: Path, servers: int, **storage: object) -> Path:
    """`servers_design` with the server carrying `FIGURES` and the cluster's storage naming it (and `storage`)."""
    path = servers_design(tmp_path, servers=servers)
    yaml = YAML()
    docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
    docs[0]["storage"] = dict(FIGURES)
    cluster = next(d for d in docs if d.get("kind") == "Cluster")
    cluster["storage"].update({"appliance": SERVER["id"], **storage})
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    return path


def test_stated_storage_within_the_placed_appliances_passes(tmp_path: Path) -> None:
    # 4 x (500 TB, 65 GB/s write, 90 GB/s read) = 2 PB, 260 GB/s, 360 GB/s, as stated (a figure below the sum is said:
    # `test_a_stated_figure_below_the_appliances_is_said`)
    result = run([_with_appliance(tmp_path, 4, write_bandwidth="260 GB/s", read_bandwidth="360 GB/s")])
    assert [f.message for f in result.findings if f.id == "REL014"] == []


def test_more_than_the_placed_appliances_give_is_rel014(tmp_path: Path) -> None:
    result = run([_with_appliance(tmp_path, 2)])   # 2 x: 1 PB, 130 GB/s write, 180 GB/s read
    found = sorted(f.message for f in result.findings if f.id == "REL014")
    assert found == [
        "capacity 2,000 TB is more than the 2 'sto-server' the racks place give (2 x 500 TB = 1,000 TB)",
        "read_bandwidth 320 GB/s is more than the 2 'sto-server' the racks place give (2 x 90 GB/s = 180 GB/s)",
        "write_bandwidth 320 GB/s is more than the 2 'sto-server' the racks place give (2 x 65 GB/s = 130 GB/s)"]


def test_the_placed_appliances_count_in_rack_power(tmp_path: Path) -> None:
    """The appliances are placed parts: their 1.2 kW each is in their rack's IT load, as any system's."""
    for n in (2, 4):
        (tmp_path / str(n)).mkdir()
    two, four = (run([_with_appliance(tmp_path / str(n), n)]) for n in (2, 4))
    load = [r.metrics["rack/sto-servers"]["it_power"].m_as("kW") for r in (two, four)]
    assert load[1] - load[0] == pytest.approx(2 * 1.2)


def test_power_beside_an_appliance_is_refused(tmp_path: Path) -> None:
    path = _with_appliance(tmp_path, 2, power={"max": "3 kW", "basis": "assumed", "source": "test"})
    with pytest.raises(ValidateError, match="counted twice"):
        run([path])


def test_an_appliance_no_rack_places_is_rel014(tmp_path: Path) -> None:
    path = _with_appliance(tmp_path, 2, appliance="sto-other")
    yaml = YAML()
    docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
    docs.insert(0, {**SERVER, "id": "sto-other", "storage": dict(FIGURES)})
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    found = [f.message for f in run([path]).findings if f.id == "REL014"]
    assert found == ["no rack of the cluster places 'sto-other', so the storage's rack units, weight, power and price "
                     "are counted nowhere: place the appliances in a rack of its `layout`"]


def _open_items(result) -> list[str]:   # noqa: ANN001 (a pipeline Result)
    from archgen.render.operations_items import open_items
    return [str(item) for a in result.clusters.values() for item in open_items(result, a)]


def test_an_appliance_storage_is_not_said_left_out_of_capex_and_power(tmp_path: Path) -> None:
    """review42: the racks count the appliances' price and power, yet the Open items said 'Capex and IT power leave
    out the checkpoint storage (2 PB, 260 GB/s write), which `storage:` places in no rack and gives no price'
    (`storage_cost.not_costed` read the refused `power` and `price` as unstated). An unpriced appliance is an
    unpriced part (COST002), as any system."""
    result = run([_with_appliance(tmp_path, 4, write_bandwidth="260 GB/s")])
    assert not [i for i in _open_items(result) if "checkpoint storage" in i]
    assert [f.message for f in result.findings if f.id == "COST002"] == [
        "capex, TCO and cost per accelerator-hour and per token not provided: unpriced parts sto-server x4"]


def test_a_price_list_naming_an_appliance_storage_prices_it_once(tmp_path: Path) -> None:
    """review42: `storage.price` beside `appliance` is refused (counted twice), but a `Prices` document's price of
    the storage's `id` still added a capex line of the whole storage on top of the placed appliances' own prices."""
    _with_appliance(tmp_path, 4, write_bandwidth="260 GB/s", id="site-fs")
    (tmp_path / "prices.yaml").write_text(
        'kind: Prices\nid: quote\nprices:\n  site-fs: {capex: 900000 USD, date: "2025-06", basis: assumed, '
        'source: "test figure"}\n  sto-server: {capex: 200000 USD, date: "2025-06", basis: assumed, '
        'source: "test figure"}\n', encoding="utf-8")
    result = run([tmp_path])
    assert [f.message for f in result.findings if f.id == "COST004"] == [
        "site-fs is a checkpoint storage built from 'sto-server' appliances (`storage.appliance`), which its racks "
        "price by that part's id: this price is not counted in any capex"]
    cost = result.operations.cost["cluster/b200-storage"]
    assert not cost.storage_priced
    assert [(line.part, line.quantity, line.unit_price.m) for line in cost.lines
            if line.part in ("sto-server", "site-fs") and line.unit_price is not None] == [("sto-server", 4, 200000)]


def test_an_appliance_id_that_names_nothing_is_ref001_with_did_you_mean(tmp_path: Path) -> None:
    """review42: a typo in `storage.appliance` read "'sto-servr' is not a System with `storage:` figures" (REL014),
    as if it named a part without figures, and offered no id. It is a reference, resolved as every other one is:
    REF001 with "did you mean", REF002 for another kind, and REL014 says nothing more of it."""
    result = run([_with_appliance(tmp_path, 4, write_bandwidth="260 GB/s", appliance="sto-servr")])
    found = [(f.id, f.message) for f in result.findings if f.id in ("REF001", "REF002", "REL014")]
    assert found == [("REF001", "'sto-servr' names no document (expected a System); did you mean 'sto-server'?")]
    (tmp_path / "b").mkdir()
    result = run([_with_appliance(tmp_path / "b", 4, write_bandwidth="260 GB/s", appliance="sn5600")])
    found = [(f.id, f.message) for f in result.findings if f.id in ("REF001", "REF002", "REL014")]
    assert found == [("REF002", "'sn5600' is a Switch, expected a System")]


def test_storage_figures_on_a_system_with_accelerators_are_refused(tmp_path: Path) -> None:
    """review42: `System.storage` says "no accelerators", but a compute node with `storage:` was taken as an
    appliance: REL014 counted its placed nodes as the storage's, while its NICs are a compute node's, never the
    storage's ports (REL010 counts systems without accelerators)."""
    from archgen.model.system import System
    with pytest.raises(ValueError, match="a storage appliance fits no accelerators, and this system fits 8"):
        System.model_validate({**SERVER, "accelerator": "b200-sxm-180gb", "accelerators": 8,
                               "storage": dict(FIGURES)})
    assert System.model_validate({**SERVER, "storage": dict(FIGURES)}).storage is not None


def _figures_left_out(path: Path, *keys: str) -> Path:
    """`path` with the cluster's storage stating none of `keys` (capacity, write or read bandwidth)."""
    yaml = YAML()
    docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
    cluster = next(d for d in docs if d.get("kind") == "Cluster")
    for key in keys:
        del cluster["storage"][key]
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    return path


def test_figures_left_out_are_the_placed_appliances_sum(tmp_path: Path) -> None:
    """storage29 (issue 22): the storage tier's figures come from its parts. 4 x (500 TB, 65 GB/s, 90 GB/s) placed:
    2000 TB, 260 GB/s write, 360 GB/s read; the checkpoints are written and restored at them, and the document says
    where they come from."""
    path = _figures_left_out(_with_appliance(tmp_path, 4), "capacity", "write_bandwidth", "read_bandwidth")
    result = run([path])
    storage = result.clusters["cluster/b200-storage"].cluster.spec.storage
    assert (storage.capacity.m_as("TB"), storage.write_bandwidth.m_as("GB/s"),
            storage.read_bandwidth.m_as("GB/s")) == pytest.approx((2000, 260, 360))
    assert [f.message for f in result.findings if f.id == "REL014"] == []
    g = next(iter(result.operations.goodput.values()))
    assert g.write_bandwidth <= 260e9 * (1 + 1e-9) and g.read_bandwidth <= 360e9 * (1 + 1e-9)
    rows = [row for b in storage_section(result.clusters["cluster/b200-storage"], result.specs).blocks
            for row in getattr(b, "rows", ()) if row[0] == "Derived from the appliances"]
    assert [row[1] for row in rows] == ["capacity, write bandwidth, read bandwidth: 4 x 'sto-server' placed in the "
                                        "racks, each as catalogued"]


def test_a_stated_figure_below_the_appliances_is_said(tmp_path: Path) -> None:
    """Both given and disagreeing: above the sum is an error (above), below it information at the stated key."""
    result = run([_with_appliance(tmp_path, 4, write_bandwidth="200 GB/s", read_bandwidth="360 GB/s")])
    found = [(f.severity, f.message) for f in result.findings if f.id == "REL014"]
    assert found == [("info", "write_bandwidth 200 GB/s is less than the 4 'sto-server' the racks place give "
                              "(4 x 65 GB/s = 260 GB/s): the stated figure is used (leave it out to take the "
                              "appliances' sum)")]


def test_figures_without_an_appliance_are_required(tmp_path: Path) -> None:
    path = _figures_left_out(servers_design(tmp_path, servers=2), "capacity")
    with pytest.raises(ValidateError, match="`capacity` is required: state it, or name the `appliance`"):
        run([path])


def test_figures_left_out_of_an_appliance_no_rack_places_are_not_provided(tmp_path: Path) -> None:
    """review43: the figures derived from an appliance no rack places are 0 (REL014 names it), and were read as the
    storage's: 0 GB/s per accelerator as a number a requirement judged, and goodput withheld as "nowhere to go
    (REL006)" with no REL006 finding and no word of the appliance. Now neither figure is given, and the job's goodput
    is withheld, and REL006 says so, because the appliance gives none."""
    path = _with_appliance(tmp_path, 2, appliance="sto-other")
    yaml = YAML()
    docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
    docs.insert(0, {**SERVER, "id": "sto-other", "storage": dict(FIGURES)})
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    result = run([_figures_left_out(path, "capacity", "write_bandwidth", "read_bandwidth")])
    cluster = "cluster/b200-storage"
    assert "storage_read_bandwidth_per_accelerator" not in result.metrics[cluster]
    why = ("cluster 'b200-storage' takes its storage's capacity, write bandwidth and read bandwidth from the "
           "appliances 'sto-other', which no rack of it places, so it has none (REL014)")
    assert why in result.operations.withheld[cluster]["storage_read_bandwidth_per_accelerator"]
    (job,) = [p for p, w in result.workloads.items() if w.workload.training is not None]
    assert why in result.operations.withheld[job]["goodput"]
    assert sorted(f.id for f in result.findings if f.id in ("REL006", "REL014")) == ["REL006", "REL014"]
