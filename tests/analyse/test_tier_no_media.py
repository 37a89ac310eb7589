"""A fabric tier built with no link media is counted as not provided, never as 0 (newuser105 P1).

newuser105 grew the GB200 SU to 16 SUs and followed the compute fabric's NET003 ("use 3 tiers") literally: the
spec then checked with 0 errors, the only note an info CAB003 on 9,216 spine-core links, while the metrics read
`cables.spine_core` 0 and `transceivers.spine_core` 0, the cabling table 0 cables and 0.00 kW of optics, and the
fabric's network power left that tier's optics out. Here on the 4-SU proposal of `test_cost_media` (3,072 links).
"""

from __future__ import annotations

from archgen.analyse.bom_line import NOT_PROVIDED
from archgen.analyse.portmap import port_map
from archgen.analyse.scaling import scaling
from archgen.pipeline import run
from archgen.render.cabling import cabling
from archgen.render.reference import growth
from archgen.render.wiring import section
from tests.analyse.test_cost_media import CLUSTER, _proposal
from tests.conftest import SPECS, run_specs

COMPUTE = f"{CLUSTER}/fabric/compute"


def test_a_tier_on_no_media_is_a_warning_naming_its_key(tmp_path):
    r = run([_proposal(tmp_path / "a")])
    found, = (f for f in r.findings if f.id == "CAB003")
    assert found.severity == "warning"      # was info, in a spec that checked with 0 errors
    assert found.message == ("spine_core: 3072 links without link media: their cables, transceivers and optics power "
                             "are not provided, and their reach not checked; list their link options under "
                             "`links.spine_core`")


def test_its_cables_transceivers_and_network_power_are_not_provided(tmp_path):
    r = run([_proposal(tmp_path / "a")])
    m = r.metrics[COMPUTE]
    for name in ("cables.spine_core", "transceivers.spine_core", "network_power", "optics_power"):
        assert name not in m, name                                  # cables and transceivers were 0
        assert "spine_core x3072; CAB003" in r.operations.withheld[COMPUTE][name]
    assert m["cables.leaf_spine"].m > 0 and m["transceivers.access"].m > 0     # the tiers with media stay counted
    oob = r.metrics[f"{CLUSTER}/fabric/oob"]
    assert oob["network_power"].m > 0 and "optics_power" in oob    # a fabric whose tiers all name media is whole
    line, = (x for x in r.clusters[CLUSTER].cabling.bom if x.part == "compute spine-core links")
    assert not line.provided and "`links.spine_core`" in line.note


def test_the_documents_say_not_provided_not_zero(tmp_path):
    r = run([_proposal(tmp_path / "a")])
    a = r.clusters[CLUSTER]
    tiers = next(b for b in cabling(a).blocks if getattr(b, "id", "") == "cabling-tiers")
    row, = (x for x in tiers.rows if x[:2] == ("compute", "spine to core"))
    assert row[2:8] == (3072, *(NOT_PROVIDED,) * 5)                 # links; cables ... optics power were 0 and "—"
    counts = next(b for b in section(a, port_map(a)).blocks if getattr(b, "id", "") == "portmap-counts")
    assert ("compute", "spine to core", 3072, NOT_PROVIDED) in counts.rows


def test_the_growth_table_has_no_total_on_links_without_media(tmp_path):
    r = run([_proposal(tmp_path / "a")])
    design = r.design
    cluster = next(c for c in design.clusters if c.path == CLUSTER)
    series = scaling(design, r.racks, cluster, max_points=1)
    assert series.points[0].no_media == (("compute", "spine_core", 3072),)
    table = next(b for b in growth(series) if getattr(b, "id", "") == "growth")
    assert table.rows[0][-3:] == (NOT_PROVIDED,) * 3     # transceivers, network power and per accelerator


def test_net003_of_a_fabric_with_media_names_the_core_tier_s(tmp_path):
    root = _proposal(tmp_path / "a")
    path = root / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("    tiers: auto\n", "    tiers: 2\n", 1),
                    encoding="utf-8")
    found, = (f.message for f in run([root]).findings if f.id == "NET003" and f.object == COMPUTE)
    assert found.endswith("use 3 tiers, with link media for the spine-core links (`links.spine_core`)")


def test_a_bin_of_runs_not_laid_out_reads_not_provided_not_0_m(tmp_path):
    """newuser105 P3: the infeasible 16-SU document's length bins read "dac-800g-osfp | 0 m | 9,216 | 4,608"."""
    root = _proposal(tmp_path / "a")
    path = root / "cluster.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("    tiers: auto\n", "    tiers: 2\n", 1),
                    encoding="utf-8")
    bins = next(b for b in cabling(run([root]).clusters[CLUSTER]).sections[0].blocks
                if getattr(b, "id", "") == "length-bins")
    compute = [row for row in bins.rows if row[0] == "compute"]
    assert compute and all(row[3] == NOT_PROVIDED for row in compute)   # NET003: counted, not laid out
    assert not [row for row in bins.rows if row[3] == "0 m"]


RACKS = """\
kind: Rack
id: c4
name: Four DGX H100
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}
slots:
- {at: 3, part: dgx-h100, count: 4}
- {at: 1, part: pdu-415v-60a-3ph, count: 3}
power:
  feeds: {count: 3, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+1}
  pdus: {redundancy: N+1}
cooling:
  air: {class: A2, delta_t: 20 K}
---
kind: Rack
id: net
name: Network rack
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}
slots:
- {at: 3, part: qm9700, count: 8}
- {at: 1, part: pdu-415v-60a-3ph, count: 2}
power:
  feeds: {count: 2, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
"""
#: CAB004.yml's spines in no rack, their uplinks on multimode: every leaf-spine run has an assumed length.
LOOSE_SPINES = """\
kind: Cluster
id: c
units:
- id: su
  racks:
  - {rack: c4, count: 2}
  - {rack: net, count: 1}
layout:
- {unit: su, count: 2}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
scale_up: {domain: node, size: 8, bandwidth: 900 GB/s}
fabrics:
- id: compute
  topology: fat-tree
  role: compute
  speed: 400 Gb/s
  switch: qm9700
  tiers: 2
  rail_optimized: true
  leaf: {rack: net}
  links:
    access: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8]
    leaf_spine: [mmf-800g-sr8]
"""


def test_runs_of_an_assumed_length_are_marked_assumed_wherever_they_show(tmp_path):
    """newuser105 P4: 1,024 OOB spine-core runs to cores in no rack, assumed 129.2 m, were ordered as "mmf-100g-sr4 |
    150 m" and given as the longest run with no mark; CAB004 named no fix."""
    from archgen.analyse.fibre_cords import ASSUMED
    from archgen.render import fmt

    r = run_specs(tmp_path, {"racks/r.yaml": RACKS, "clusters/c.yaml": LOOSE_SPINES})
    a = r.clusters["cluster/c"]
    t, = (x for x in a.cabling.tiers if x.tier == "leaf_spine")
    assert t.assumed_bins == t.by_option_bin == {("mmf-800g-sr8", 10.0): 128}   # every run: spines in no rack
    assert t.assumed_max == t.max_length
    sec = cabling(a)
    row, = (x for x in next(b for b in sec.blocks if getattr(b, "id", "") == "cabling-tiers").rows
            if x[1] == "leaf to spine")
    assert isinstance(row[-1], fmt.Noted) and row[-1].note == "assumed"
    bins = next(b for b in sec.sections[0].blocks if getattr(b, "id", "") == "length-bins")
    assert ("compute", "leaf to spine", "mmf-800g-sr8", "10 m (assumed)", 128, 128) in bins.rows
    assert ("compute", "endpoint to leaf") not in {x[:2] for x in bins.rows if "assumed" in x[3]}   # measured
    cords = [x for x in a.cabling.bom if x.kind == "Fibre" and x.note.endswith(ASSUMED)]
    assert cords and all("-10m" in x.part for x in cords)
    found, = (f.message for f in r.findings if f.id == "CAB004")
    assert found.endswith("; name their rack (`spine.rack`) so that their runs are measured")


def test_net001_on_the_tier_net003_finds_short_folds_under_it(tmp_path):
    """newuser105 P7: at 16 SUs the OOB fabric's "spine switches need 256 ports, sn4600c has 64" stood apart from its
    NET003 (256 leaves > 64 spine ports), split by other lines, though it is the same shortfall on one spine."""
    root = tmp_path / "a"
    root.mkdir()
    text = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    for old, new in (("  - {unit: su, count: 1}", "  - {unit: su, count: 16}"),
                     ("expect: {accelerators: 576, nodes: 144, racks: 10}\n", ""), ('target: "== 8"', 'target: "== 128"')):
        assert old in text, old
        text = text.replace(old, new, 1)
    (root / "cluster.yaml").write_text(text, encoding="utf-8")
    oob = {f.id: f for f in run([root]).findings if f.object == f"{CLUSTER}/fabric/oob" and f.id in ("NET001", "NET003")}
    assert oob["NET001"].message.startswith("spine switches need 256 ports, sn4600c has 64")
    assert oob["NET001"].severity == "error"                     # still counted: folding is no waiver
    assert oob["NET001"].caused_by == f"NET003 {CLUSTER}/fabric/oob" and not oob["NET003"].caused_by


def test_their_failures_are_left_out_and_said_so(tmp_path):
    """The reliability figures counted cables and transceivers per tier: the spine-core links' none, silently."""
    r = run([_proposal(tmp_path / "a")])
    rel = r.operations.reliability[CLUSTER]
    assert rel.unrated_units["cables and transceivers (compute spine_core links, no link media)"] == 3072
    found, = (f.message for f in r.findings if f.id == "REL004")
    assert "cables and transceivers (compute spine_core links, no link media)" in found


def test_copper_assemblies_of_an_assumed_length_are_marked_by_bin(tmp_path):
    """The same spines on active copper (CAB004.yml's case): the BOM's assembly line marks the bin of those runs."""
    files = {"racks/r.yaml": RACKS,
             "clusters/c.yaml": LOOSE_SPINES.replace("leaf_spine: [mmf-800g-sr8]", "leaf_spine: [acc-800g-osfp]")}
    a = run_specs(tmp_path, files).clusters["cluster/c"]
    t, = (x for x in a.cabling.tiers if x.tier == "leaf_spine")
    line, = (x for x in a.cabling.bom if x.part == "acc-800g-osfp")
    assert line.assumed == tuple(sorted({length for _, length in t.assumed_bins})) and line.assumed
    assert set(line.assumed) <= {length for length, _ in line.lengths}
