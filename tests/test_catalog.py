"""The shipped parts catalog: every part validates, cites a source, and key figures match their datasheets."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.load import Document, load_paths
from archgen.model import KINDS, Part
from archgen.units import Q_, Quantity

CATALOG = Path(__file__).resolve().parents[1] / "specs" / "catalog"
FOLDERS = ("systems", "switches", "nics", "links", "power", "cooling")


def _docs() -> list[Document]:
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
def test_part_validates_and_cites_a_source(doc: Document) -> None:
    """Each part validates against its kind and cites a non-empty source."""
    part = KINDS[doc.kind].model_validate(doc.data)
    assert isinstance(part, Part)
    sources = [part.source] if isinstance(part.source, str) else part.source
    assert sources and all(s.strip() for s in sources)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.id)
def test_file_is_named_after_its_id(doc: Document) -> None:
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
