"""The shipped parts catalog: every part validates, cites a source, and key figures match their datasheets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.load import SourceDocument, load_paths
from archgen.model import KINDS, Part
from archgen.units import Q_, Quantity

CATALOG = Path(__file__).resolve().parents[1] / "specs" / "catalog"
FOLDERS = ("systems", "switches", "nics", "links", "power", "cooling")


def _docs() -> list[SourceDocument]:
    """Every document of the non-accelerator catalog folders."""
    return load_paths([CATALOG / folder for folder in FOLDERS if (CATALOG / folder).is_dir()])


DOCS = _docs()


def _part(part_id: str) -> Part:
    """The validated catalog part with id `part_id`."""
    for doc in DOCS:
        if doc.id == part_id:
            return KINDS[doc.kind].model_validate(doc.data)
    raise LookupError(part_id)


def test_catalog_is_not_empty() -> None:
    """Every catalog folder ships at least one part."""
    assert {Path(d.file).parent.name for d in DOCS} == set(FOLDERS)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.id)
def test_part_validates_and_cites_a_source(doc: SourceDocument) -> None:
    """Each part validates against its kind and cites a non-empty source."""
    part = KINDS[doc.kind].model_validate(doc.data)
    assert isinstance(part, Part)
    sources = [part.source] if isinstance(part.source, str) else part.source
    assert sources and all(s.strip() for s in sources)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.id)
def test_file_is_named_after_its_id(doc: SourceDocument) -> None:
    """A part lives in `<id>.yaml`."""
    assert Path(doc.file).stem == doc.id


def test_ids_are_unique() -> None:
    """No two catalog parts share an id."""
    ids = [d.id for d in DOCS]
    assert len(ids) == len(set(ids))


def test_unconfirmed_figures_are_explained() -> None:
    """A part that marks figures unconfirmed says why in `notes`."""
    for doc in DOCS:
        part = KINDS[doc.kind].model_validate(doc.data)
        if part.unconfirmed_fields():
            assert part.notes.strip(), f"{doc.id}: unconfirmed figures need a note saying why"


def test_system_nics_refer_to_catalog_nics() -> None:
    """NIC slots of systems refer to NIC parts in the catalog."""
    nic_ids = {d.id for d in DOCS if d.kind == "NIC"}
    for doc in DOCS:
        if doc.kind == "System":
            for slot in KINDS["System"].model_validate(doc.data).nics:
                assert slot.part in nic_ids, f"{doc.id}: unknown NIC {slot.part}"


def _close(q: Quantity, expected: str, rel: float = 1e-6) -> bool:
    """Whether quantity `q` equals `expected` (a quantity string) within a relative tolerance."""
    return abs(q.to(Q_(expected).units).magnitude - Q_(expected).magnitude) <= rel * abs(Q_(expected).magnitude)


# Published figures. Sources: see each comment.

def test_dgx_h100_published_figures() -> None:
    """DGX H100 figures match the DGX H100/H200 User Guide."""
    # NVIDIA DGX H100/H200 User Guide, Introduction: 8U, 287.6 lb (130.45 kg), 10.2 kW max,
    # 38,557 BTU/h heat output, 1,105 CFM, 8 x H100.
    h100 = _part("dgx-h100")
    assert _close(h100.power.max, "10.2 kW")
    assert _close(h100.mechanical.weight, "130.45 kg")
    assert _close(h100.mechanical.height, "8 U")
    assert _close(h100.airflow, "1105 ft**3/min")
    assert h100.accelerators == 8
    # The published heat output (~11.3 kW) exceeds the published max power; kept as published on purpose.
    assert h100.power.heat_output.to("kW").magnitude == pytest.approx(11.30, abs=0.01)
    assert h100.power.heat_output > h100.power.max


def test_dgx_b200_published_figures() -> None:
    """DGX B200 figures match the DGX B200 User Guide."""
    # NVIDIA DGX B200 User Guide, Introduction: 10U, 142.4 kg, 14.3 kW max.
    b200 = _part("dgx-b200")
    assert _close(b200.power.max, "14.3 kW")
    assert _close(b200.mechanical.weight, "142.4 kg")
    assert _close(b200.mechanical.height, "10 U")


def test_qm9700_ports() -> None:
    """QM9700 radix matches the published port count."""
    # Linux mlx-platform commit 9045512ca6cd: MQM97xx, 64 x 400 Gb/s over 32 OSFP cages (two ports per cage), 1U.
    qm = _part("qm9700")
    assert qm.ports.count == 64
    assert _close(qm.ports.speed, "400 Gbit/s")
    assert qm.ports.count // qm.ports.per_cage == 32
    assert _close(qm.mechanical.height, "1 U")


@pytest.mark.parametrize("doc", [d for d in DOCS if d.kind == "Switch" and "switching_capacity" in d.data],
                         ids=lambda d: d.id)
def test_switching_capacity_is_one_direction(doc: SourceDocument) -> None:
    """`switching_capacity` is one direction, the sum of the ports' line rates: 64 x 800G = 51.2 Tb/s as the
    Ethernet datasheets give it, and the QM9700's 64 x 400G = 25.6 Tb/s, where NVIDIA markets twice that as
    'aggregate bidirectional' (it stood here as 51.2 Tb/s under a field read as one direction elsewhere)."""
    sw = _part(doc.id)
    ports = sum((g.speed * g.count for g in sw.groups), Q_(0, "Tbit/s"))
    assert _close(sw.switching_capacity, ports)


@pytest.mark.parametrize(("part_id", "connector"), [("mmf-100g-sr4", "MPO-12"), ("mmf-400g-sr4", "MPO-12/APC"),
                                                    ("smf-400g-dr4", "MPO-12/APC"),
                                                    ("smf-800g-dr8-500m", "MPO-12/APC")])
def test_parallel_optics_name_their_mpo_connector(part_id: str, connector: str) -> None:
    """SR4/DR4 modules run parallel fibres on an MPO-12 (IEEE 802.3bm clause 95 for 100GBASE-SR4, as the part's
    source says); each of these is the sibling of a catalog module that states its connector (mmf-800g-sr8
    MPO-12/APC, smf-800g-dr8 MPO-12/APC). Without it the BOM ordered 'multimode fibre patch cord, connector not in
    the catalog' for the GB200 SU's 100G OOB uplinks. NVIDIA's MMA4Z00-NS400-T has "a single, 4-channel
    MPO-12/APC optical connector" (https://docs.nvidia.com/networking/display/MMA4Z00NS400T; newuser62)."""
    assert _part(part_id).connector == connector


def test_q3400_ports() -> None:
    """Q3400 radix matches the published port count."""
    # NetBox devicetype-library Q3400-RA: 144 x 800 Gb/s XDR over 72 twin-port OSFP cages, 4U.
    q = _part("q3400")
    assert q.ports.count == 144 and q.ports.count // q.ports.per_cage == 72
    assert _close(q.ports.speed, "800 Gbit/s")


def test_sn5600_ports() -> None:
    """SN5600 radix matches the SN5000 user manual."""
    # NVIDIA SN5000 user manual, Data Interfaces: SN5600 64 x 800GbE.
    sn = _part("sn5600")
    assert sn.ports.count == 64 and _close(sn.ports.speed, "800 Gbit/s")


def test_linkx_reach_and_power() -> None:
    """Link reach and power match the NVIDIA LinkX documentation."""
    # NVIDIA LinkX 100G-PAM4 product line overview: DAC <= 3 m; LACC to 5 m at 1.5 W; multimode <= 50 m,
    # 17 W twin-port / 9 W 400G; MMS4X00-NS DR8 100 m at 17 W max.
    assert _close(_part("dac-800g-osfp").reach, "3 m")
    acc = _part("acc-800g-osfp")
    assert _close(acc.reach, "5 m") and _close(acc.power_per_end, "1.5 W")
    mmf = _part("mmf-800g-sr8")
    assert _close(mmf.reach, "50 m") and _close(mmf.power_per_end, "17 W")
    assert _close(_part("mmf-400g-sr4").power_per_end, "9 W")
    dr8 = _part("smf-800g-dr8")
    assert _close(dr8.reach, "100 m") and _close(dr8.power_per_end, "17 W")
    assert _close(_part("smf-800g-fr4").reach, "2 km")


def test_gb200_power_shelf() -> None:
    """GB200 power shelf matches the Mission Control manual."""
    # NVIDIA Mission Control manual, power shelf: 6 PSUs of up to 5.5 kW, shelf up to 33 kW, 1 RU.
    shelf = _part("orv3-power-shelf-33kw")
    assert _close(shelf.capacity, "33 kW")
    assert shelf.psus.count == 6 and _close(shelf.psus.capacity, "5.5 kW")
    assert _close(shelf.psus.capacity * shelf.psus.count, "33 kW")
    assert _close(shelf.mechanical.height, "1 U")


# Beyond one vendor (issue 15 part 1): the parts added for AMD, Intel, Broadcom/Ethernet, XDR and 1.6T designs.

NEW_PARTS = ("mi325x", "mi355x", "mi350x", "gaudi3", "b300-sxm-288gb", "dgx-b300", "hgx-b300-8gpu", "hgx-b200-8gpu",
             "hgx-h200-8gpu", "hgx-h100-8gpu", "hgx-h800-8gpu", "gb300-compute-tray", "amd-mi300x-platform",
             "amd-mi325x-platform", "amd-mi355x-platform", "arista-7060x6-64pe", "celestica-ds5000", "arista-7060xe7-64ps", "sn5610",
             "arista-7816r4", "bluefield-3-b3220", "host-ethernet-4x10gbase-t", "host-ethernet-2x10gbase-t",
             "pollara-400", "thor2-400g", "smf-1.6t-2xdr4", "smf-800g-dr4-rhs", "lacc-1.6t-xdr", "aec-800g-osfp",
             "lpo-800g-dr8", "pdu-2u-415v-60a-3ph")


def _catalog_specs():
    """The whole shipped catalog (accelerators and facilities included), validated as `archgen` does."""
    from archgen.pipeline import load
    from archgen.validate import validate
    return validate(*load([CATALOG]))


@pytest.mark.parametrize("part_id", NEW_PARTS)
def test_new_part_validates_cites_and_explains(part_id: str) -> None:
    """Each new part validates, cites at least one source with a URL or repository path, and explains its
    unconfirmed figures (every unconfirmed field it names exists on the part)."""
    part = _catalog_specs().get(part_id)
    assert isinstance(part, Part)
    sources = [part.source] if isinstance(part.source, str) else part.source
    assert any("http" in s or "/" in s for s in sources)
    fields = part.unconfirmed_fields()
    assert part.notes.strip() or not fields
    for name in (f for f in fields if f != "*"):
        head = name.split(".")[0]
        assert head == "vendor" or head in type(part).model_fields, f"{part_id}: unknown unconfirmed field {name}"


@pytest.mark.parametrize(("platform", "frontend"), [
    ("amd-mi300x-platform", "host-ethernet-2x10gbase-t"),   # AMD's MLPerf v4.1 MI300X node: a BCM57416 10G
    ("amd-mi325x-platform", "host-ethernet-2x10gbase-t"),   # AMD's v5.0 MI325X nodes: "N/A"; the MI300X node's
    ("amd-mi355x-platform", "host-ethernet-4x10gbase-t"),   # AMD's v6.1 MI355X node: 2 x X710 + 2 x X550T
])
def test_amd_platforms_front_end_is_what_amds_nodes_list(platform: str, frontend: str) -> None:
    """r39fix (left28): the AMD platforms named NVIDIA's BlueField-3 B3220 as their front end, which no AMD node
    description lists; each now names the host Ethernet of AMD's own MLPerf node (inference_results_v4.1/v6.1)."""
    system = KINDS["System"].model_validate(_raw(platform))
    assert [n.part for n in system.nics if n.role == "frontend"] == [frontend]
    assert not any("bluefield" in n.part for n in system.nics)


@pytest.mark.parametrize(("part_id", "cus"), [("mi300x", 304), ("mi325x", 304), ("mi350x", 256), ("mi355x", 256)])
def test_amd_accelerators_state_their_compute_units(part_id: str, cus: int) -> None:
    """ROCm's gpu-specs table: MI300X and MI325X 304 CUs (38 per XCD), MI350X and MI355X 256 (32 per XCD)."""
    assert KINDS["Accelerator"].model_validate(_raw(part_id)).multiprocessors == cus


def test_mi355x_peaks_follow_amds_clock_formula() -> None:
    """MI355X dense BF16 = 2,400 MHz x 512 FMA x 2 x 1,024 Matrix Cores; FP8 doubles it, FP4 doubles again."""
    # stas00/ml-engineering compute/accelerator/README.md, "For AMD @ BF16" table (AMD publishes 2.5 / 5 / 10.1 PF).
    mi = KINDS["Accelerator"].model_validate(_raw("mi355x"))
    bf16 = 2400e6 * 512 * 2 * 1024 / 1e12
    assert mi.peak["bf16"].to("TFLOPS").magnitude == pytest.approx(bf16, abs=0.1)
    assert mi.peak["fp8"].to("TFLOPS").magnitude == pytest.approx(2 * bf16, abs=0.1)
    assert mi.peak["fp4"].to("TFLOPS").magnitude == pytest.approx(4 * bf16, abs=0.1)
    assert _close(mi.memory, "288 GiB") and _close(mi.tdp, "1400 W")


def test_mi350x_is_the_mi355x_at_2200_mhz_and_1000_w() -> None:
    """MI350X: the MI355X's silicon at a 2,200 MHz peak engine clock (Hot Chips 2025; ml-engineering note 22), so
    BF16 = 2,200 MHz x 512 FMA x 2 x 1,024 = 2,306.9 TFLOP/s, FP8 and FP4 twice and four times that; the same 288 GiB
    and 8 TB/s; 1,000 W. Its peaks stay unconfirmed until read from AMD's own page."""
    mi = KINDS["Accelerator"].model_validate(_raw("mi350x"))
    bf16 = 2200e6 * 512 * 2 * 1024 / 1e12
    assert mi.peak["bf16"].to("TFLOPS").magnitude == pytest.approx(bf16, abs=0.1)
    assert mi.peak["fp8"].to("TFLOPS").magnitude == pytest.approx(2 * bf16, abs=0.1)
    assert mi.peak["fp4"].to("TFLOPS").magnitude == pytest.approx(4 * bf16, abs=0.1)
    sibling = KINDS["Accelerator"].model_validate(_raw("mi355x"))
    assert mi.peak["fp64"].to("TFLOPS").magnitude == pytest.approx(
        sibling.peak["fp64"].to("TFLOPS").magnitude * 2200 / 2400, abs=0.1)
    assert _close(mi.memory, "288 GiB") and _close(mi.memory_bandwidth, "8 TB/s")
    assert _close(mi.tdp, "1000 W") and {f"peak.{k}" for k in mi.peak} <= set(mi.unconfirmed_fields())


def test_amd_efficiencies_are_mamf_over_peak() -> None:
    """GEMM efficiency = measured MAMF / dense peak (ml-engineering MAMF table: MI325X 784.9, MI355X 1565.0)."""
    for part_id, mamf in (("mi325x", 784.9), ("mi355x", 1565.0)):
        acc = KINDS["Accelerator"].model_validate(_raw(part_id))
        assert acc.efficiency.gemm["bf16"] == pytest.approx(mamf / acc.peak["bf16"].to("TFLOPS").magnitude, abs=1e-3)


def test_gaudi3_scale_up_is_21_links_of_200g() -> None:
    """Intel: 21 scale-up ports of 200 Gb/s = 525 GB/s per direction per Gaudi 3 (docs.habana.ai network page)."""
    g3 = KINDS["Accelerator"].model_validate(_raw("gaudi3"))
    assert g3.scale_up.links == 21
    assert _close(g3.scale_up.bandwidth, "525 GB/s")
    assert _close(Q_("200 Gbit/s") * g3.scale_up.links, "525 GB/s")


def test_tomahawk5_and_spectrum_switch_figures() -> None:
    """NetBox device-type library: DCS-7060X6-64PE-F 2RU 21 kg 64 x 800G; SN5610 2U 26.9 kg 64 x 800G;
    OCP OPG-256 topology map: Celestica DS5000 64 x 800G OSFP."""
    arista, sn5610, ds5000 = (_part(i) for i in ("arista-7060x6-64pe", "sn5610", "celestica-ds5000"))
    for sw in (arista, sn5610, ds5000):
        assert sw.ports.count == 64 and _close(sw.ports.speed, "800 Gbit/s") and sw.technology == "ethernet"
        assert _close(sw.ports.speed * sw.ports.count, "51.2 Tbit/s")
    assert _close(arista.mechanical.weight, "21 kg") and _close(arista.mechanical.height, "2 U")
    assert _close(sn5610.mechanical.weight, "26.9 kg")
    assert _close(_part("arista-7060xe7-64ps").ports.speed * 64, "102.4 Tbit/s")



def test_arista_7060x6_power_is_the_data_sheets_not_the_psu_rating() -> None:
    """Arista 7060X6 data sheet, page 5, Model Comparison (through a third-party transcription): 7060X6-64PE
    Typical/Max Power Draw 640 W / 2,218 W, below one 2,400 W PSU (NetBox), which stood in before."""
    arista = _part("arista-7060x6-64pe")
    assert _close(arista.power.max, "2218 W") and _close(arista.power.typical, "640 W")
    assert arista.power.max_basis == "stated" and arista.power.max < Q_(2400, "W")
    assert set(arista.unconfirmed_fields()) == {"power.max", "power.typical", "power_includes_optics"}  # PDF not read
    assert any("Model Comparison" in s and "page 5" in s for s in _raw("arista-7060x6-64pe")["source"])

def test_dgx_b300_rack_power_matches_the_superpod_ra() -> None:
    """NVIDIA DGX SuperPOD B300 XDR RA: four DGX B300 per rack at ~56 kW per rack."""
    assert _close(_part("dgx-b300").power.max * 4, "56 kW")


def test_gb300_rack_closes_within_nvidias_142_kw() -> None:
    """NVIDIA NVL72 Enterprise RA: 18 compute trays, 9 NVSwitch trays, 2 SN2201, full rack up to 142 kW, read at the
    feeds: the parts' busbar figures sum to 142 kW x the shelves' efficiency (0.97)."""
    total = (_part("gb300-compute-tray").power.max * 18 + _part("nvlink5-switch-tray").power.max * 9
             + _part("sn2201").power.max * 2)
    assert total.to("kW").magnitude == pytest.approx(142 * _part("orv3-power-shelf-33kw").efficiency, abs=0.1)


def test_facilities_ship_in_the_catalog() -> None:
    """hall-air and hall-liquid are catalog entries, so a project's rack may name them without copying them."""
    specs = _catalog_specs()
    assert {d.id for d in specs.of(KINDS["Facility"])} >= {"hall-air", "hall-liquid"}


def test_a_rack_may_reference_a_shipped_facility(spec_tree) -> None:
    """A DGX B300 rack outside the repository (four systems and three 2U PDUs, as NVIDIA's B300 XDR RA) names
    `hall-air` without copying it: no REF finding, and the hall's 24 degC inlet air applies."""
    from archgen.pipeline import run
    root = spec_tree({"rack.yaml": (
        "kind: Rack\nid: b300-rack\nfacility: hall-air\n"
        "form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg,"
        " weight: 170 kg}\n"
        "slots:\n  - {at: 1, part: pdu-2u-415v-60a-3ph, count: 3}\n  - {at: 7, part: dgx-b300, count: 4}\n"
        "power:\n  feeds: {count: 3, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+1}\n"
        "  pdus: {redundancy: N+1}\n"
        "cooling:\n  air: {class: A2, delta_t: 20 K}\n")})
    result = run([root])
    assert not [f for f in result.findings if f.id.startswith("REF")]
    assert not result.errors
    assert result.design.specs.get("hall-air").air.supply.to("degC").magnitude == 24
    assert result.metrics["rack/b300-rack"]["it_power"].to("kW").magnitude == pytest.approx(56)


def test_catalog_spans_vendors_and_fabrics() -> None:
    """At least three accelerator vendors, and both InfiniBand and Ethernet switches, ship in the catalog."""
    from archgen.validate import catalog_entries
    specs = _catalog_specs()
    accelerators = catalog_entries(specs, kinds=["Accelerator"])
    assert {a.vendor for a in accelerators} >= {"NVIDIA", "AMD", "Intel"}
    assert {s.technology for s in catalog_entries(specs, kinds=["switch"])} >= {"infiniband", "ethernet"}
    assert {p.id for p in catalog_entries(specs, vendors=["amd"])} >= {"mi355x", "pollara-400", "amd-mi355x-platform"}
    assert all(p.vendor == "Arista" and p.kind == "Switch"
               for p in catalog_entries(specs, vendors=["Arista"], kinds=["Switch"]))


def _raw(part_id: str) -> dict:
    """The YAML data of catalog part `part_id` in any folder."""
    return next(d.data for d in load_paths([CATALOG]) if d.id == part_id)


def test_gb300_nvl72_rack_reproduces_nvidias_composition() -> None:
    """specs/catalog/racks/gb300-nvl72.yaml (NVIDIA NVL72 Enterprise RA: 18 compute trays, 9 NVSwitch
    trays, 2 SN2201, 8 x 33 kW shelves) checks clean on its own: 72 GPUs, input at the feeds within NVIDIA's 142 kW
    (read as the rack's input, to the 0.01 kW the tray's derived figure is written to), weight within the ORv3
    1,400 kg payload."""
    from archgen.pipeline import run
    result = run([CATALOG / "racks" / "gb300-nvl72.yaml"])
    assert not result.errors
    metrics = result.metrics["rack/gb300-nvl72"]
    assert metrics["input_power"].to("kW").magnitude == pytest.approx(142, abs=18 * 0.005 / 0.97)
    assert metrics["weight"].to("kg").magnitude <= 1400
    rack = result.design.specs.get("gb300-nvl72")
    trays = sum(s.count for s in rack.slots if s.part == "gb300-compute-tray")
    assert trays * _catalog_specs().get("gb300-compute-tray").accelerators == 72


def test_gb300_tray_is_its_busbar_share_of_nvidias_142_kw() -> None:
    """newuser25 (open finding 2): the tray's 6 kW was NVIDIA's "up to 142 kW" shared out as if it were the busbar
    load, while its notes said it held the shelves' losses, which the analysis then added again (146.8 kW at the
    feeds). A busbar-fed part's power.max is at the busbar; NVIDIA's 142 kW is read at the feeds (its basis is not
    stated: the notes give both readings), so the tray is (142 kW x the shelf's efficiency - 9 switch trays - 2
    SN2201) / 18, to the 0.01 kW it is written to."""
    tray, switch, mgmt = (_part(i).power.max for i in ("gb300-compute-tray", "nvlink5-switch-tray", "sn2201"))
    efficiency = _part("orv3-power-shelf-33kw").efficiency
    derived = (Q_(142, "kW") * efficiency - 9 * switch - 2 * mgmt) / 18
    assert tray.to("kW").magnitude == pytest.approx(derived.to("kW").magnitude, abs=0.005)
    notes = _raw("gb300-compute-tray")["notes"]
    assert "5.98 kW" in notes and "146.4 kW" in notes   # the other reading, stated
    assert "shelf losses" not in _raw("nvlink5-switch-tray")["notes"].replace("shelves' losses once", "")


#: Wording that refers to our own notes, tools or issues: a partner reads `source` and `notes` in every document.
INTERNAL = re.compile(r"anchors note|research note|model gap|catalog-audit|find_string|\bissue \d+|\bstored\b",
                      re.IGNORECASE)


def test_catalog_text_is_fit_for_partners():
    """Issue 11, item 9: documents showed 'Rack/cluster anchors note section 2.2' as a part's source. Sources and
    notes of the shipped catalog cite public documents and say what is assumed, without internal references."""
    from archgen.load import shipped_catalog

    bad = []
    for path in sorted(shipped_catalog().rglob("*.yaml")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("#") and INTERNAL.search(line):
                bad.append(f"{path.relative_to(shipped_catalog())}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_switch_power_bound_counts_active_psus_only() -> None:
    """Issue 21 item 10: the Q3400's 7 kW was 8 x 875 W, the ratings of every PSU, the redundant ones included.

    With no published maximum draw, the bound is the active PSUs' output: 4 of 8 (N+N) x 875 W = 3.5 kW, marked
    `psu-active`; a `psu-rating` maximum above that output is refused at the key.
    """
    from pydantic import ValidationError

    from archgen.model.base import Electrical

    power = _part("q3400").power
    assert (power.max_basis, power.max.m_as("W")) == ("psu-active", 3500)
    psus = {"count": 8, "capacity": "875 W", "redundancy": "N+N"}
    with pytest.raises(ValidationError, match=r"4 of 8 x 875 W \(N\+N\) = 3\.5 kW"):
        Electrical.model_validate({"max": "7 kW", "max_basis": "psu-rating", "psus": psus})
    assert Electrical.model_validate({"max": "3.5 kW", "max_basis": "psu-rating", "psus": psus}).max_basis == \
        "psu-rating"
    assert Electrical.model_validate({"max": "7 kW", "psus": psus}).max.m_as("kW") == 7  # a stated maximum stands
    # N+1 of 6 x 3.3 kW (DGX B200's PSUs): 5 active, 16.5 kW
    assert Electrical.model_validate({"psus": {"count": 6, "capacity": "3.3 kW", "redundancy": "N+1"}}).max \
        .m_as("kW") == pytest.approx(16.5)
