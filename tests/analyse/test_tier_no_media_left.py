"""What tier43 left of a tier with no link media: per-rack power, the cascade, the 1-tier NET003, cabling.csv.

A fabric tier with no link media is not provided (tests/analyse/test_tier_no_media.py). Here: the cluster document's
power and heat by rack type read "at least" where a rack holds such links' ends (their optics are counted nowhere);
a CAB003 on a fabric that cannot be built folds under its NET error; a 1-tier fabric's NET003 names
`links.leaf_spine`; cabling.csv says which run lengths are assumed in a column of its own.
"""

from __future__ import annotations

from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.cabling import run_list
from archgen.render.cluster import cluster_scope, power_cooling
from tests.analyse.test_cost_media import CLUSTER, _proposal
from tests.analyse.test_tier_no_media import LOOSE_SPINES, RACKS
from tests.conftest import run_specs

COMPUTE = f"{CLUSTER}/fabric/compute"


def _power_rows(r):
    a = r.clusters[CLUSTER]
    section = power_cooling(cluster_scope(r, a, "r", "2026-01-01")[0], a)
    table = next(b for b in section.blocks if getattr(b, "id", "") == "power-by-rack")
    return {row[0]: row for row in table.rows}, [b.text for b in section.blocks if isinstance(b, Para)]


def test_racks_holding_ends_of_links_without_media_read_at_least(tmp_path):
    """The 4-SU proposal's spine-core links end at the IB racks' spines: their optics were left out with no word."""
    rows, texts = _power_rows(run([_proposal(tmp_path / "a")]))
    ib = rows["gb200-su-ib"]
    assert all(isinstance(v, str) and v.startswith("at least ") for v in (ib[2], ib[3], ib[5])), ib
    assert all(isinstance(v, str) and v.startswith("at least ") for v in rows["All racks"][2:4])
    assert not isinstance(ib[4], str) and not ib[4].magnitude          # an air-cooled rack's heat to liquid: 0
    assert not isinstance(rows["All racks"][4], str)    # so the total's heat to liquid leaves nothing out: exact
    assert ib[2].startswith("at least 200.7 (")                     # the unit is the column's, as in other cells
    assert not any(isinstance(v, str) for v in rows["gb200-nvl72"][2:])     # holds no spine or core: exact
    assert not any(isinstance(v, str) for v in rows["gb200-su-eth"][2:])
    said, = (t for t in texts if t.startswith('Rows reading "at least"'))
    assert "fabric compute spine-core x3,072" in said


def test_media_on_the_tier_leave_the_rack_figures_exact(tmp_path):
    rows, texts = _power_rows(run([_proposal(tmp_path / "a", "      spine_core: [dac-800g-osfp, mmf-800g-sr8]\n")]))
    assert not any(isinstance(v, str) for row in rows.values() for v in row[2:])
    assert not any(t.startswith('Rows reading "at least"') for t in texts)


def test_cab003_on_a_fabric_that_cannot_be_built_folds_under_its_net_error(tmp_path):
    """2 tiers short of 4 SUs (NET003 withholds the spines' wiring) and no leaf-spine media: CAB003 stood apart."""
    root = _proposal(tmp_path / "a")
    path = root / "cluster.yaml"
    text = path.read_text(encoding="utf-8").replace("    tiers: auto\n", "    tiers: 2\n", 1)
    path.write_text(text.replace("      leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]\n",
                                 "", 1), encoding="utf-8")
    found = {f.id: f for f in run([root]).findings if f.object == COMPUTE and f.id in ("NET003", "CAB003")}
    assert found["CAB003"].message.startswith("leaf_spine: ")
    assert found["CAB003"].severity == "warning"                 # still counted: folding is no waiver
    assert found["CAB003"].caused_by == f"NET003 {COMPUTE}" and not found["NET003"].caused_by


def test_cab003_on_a_buildable_fabric_leads(tmp_path):
    found, = (f for f in run([_proposal(tmp_path / "a")]).findings if f.id == "CAB003")
    assert not found.caused_by


def test_one_tier_net003_names_the_leaf_spine_media(tmp_path):
    """A 1-tier fabric with access media, 128 ports on 64-port leaves: told nothing of the spine tier's links."""
    spec = LOOSE_SPINES.replace("  tiers: 2\n", "  tiers: 1\n").replace("    leaf_spine: [mmf-800g-sr8]\n", "")
    r = run_specs(tmp_path, {"racks/r.yaml": RACKS, "clusters/c.yaml": spec})
    found, = (f.message for f in r.findings if f.id == "NET003")
    assert found == ("one tier holds 64 ports; 128 are needed: use 2 tiers, with link media for the leaf-spine "
                     "links (`links.leaf_spine`)")


def test_cabling_csv_says_which_lengths_are_assumed(tmp_path):
    """LOOSE_SPINES' spines stand in no rack: their runs' lengths are the floor's longest, assumed."""
    a = run_specs(tmp_path, {"racks/r.yaml": RACKS, "clusters/c.yaml": LOOSE_SPINES}).clusters["cluster/c"]
    table = run_list(a)
    basis = [c.title for c in table.columns].index("Length basis")
    by_tier = {(row[1], row[basis]) for row in table.rows}
    assert by_tier == {("endpoint to leaf", "laid out"), ("leaf to spine", "assumed")}
    assert all((row[basis] == "assumed") == ("(no rack)" in (row[2], row[4])) for row in table.rows)


def test_cab003_on_access_links_does_not_fold(tmp_path):
    """Access links are the endpoints' ports whatever the tiers above: their missing media is a problem of its own."""
    spec = LOOSE_SPINES.replace("  tiers: 2\n", "  tiers: 1\n").replace(
        "    access: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8]\n    leaf_spine: [mmf-800g-sr8]\n", "    access: []\n")
    found = {f.id: f for f in run_specs(tmp_path, {"racks/r.yaml": RACKS, "clusters/c.yaml": spec}).findings
             if f.id in ("NET003", "CAB003")}
    assert found["NET003"].message == "one tier holds 64 ports; 128 are needed: use 2 tiers"   # no media listed
    assert found["CAB003"].message.startswith("access: 128 links without link media")
    assert not found["CAB003"].caused_by
