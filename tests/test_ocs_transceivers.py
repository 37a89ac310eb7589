"""The OCS end of a chip-to-OCS fibre is a passive port, not a transceiver (newuser11 finding 3).

A TPU v4 pod fibres every cube face to an optical circuit switch: 6,144 fibres for 48 OCSes of 128 used ports
(Jouppi et al., ISCA 2023). The OCS steers light mirror to mirror, so the module sits at the chip end only
(bidirectional WDM transceivers with circulators: Mission Apollo, arXiv 2208.10041), as the catalog's
`ocs-fibre-port` says ("this end is a connector, not a transceiver"). Before, every fibre counted a transceiver at
both ends: 12,288 in `transceivers.ocs`, the growth table and the failure model, whose 6,144 phantom modules
added 30.7 failures a year to the pod (709.8 -> 679.1) and shortened its MTTI (12.36 -> 12.92 h).
"""

from __future__ import annotations

import pytest

from archgen.model.network import Link


def _link(media: str, power: str) -> Link:
    return Link(id="x", name="x", source=["s"], media=media, rate="400 Gb/s", reach="10 m",
                power_per_end=power, lanes=4)


def test_only_a_powered_optical_end_is_a_module() -> None:
    assert _link("singlemode", "10 W").is_module
    assert not _link("singlemode", "0 W").is_module      # a fibre end at a passive (OCS) port
    assert not _link("dac", "0.1 W").is_module           # a copper assembly's built-in end


def test_tpu_v4_pod_counts_one_module_per_ocs_fibre(shipped) -> None:
    fabric = shipped.metrics["cluster/tpu-v4-pod/fabric/ici"]
    assert fabric["links.ocs"].m == 6144
    assert fabric["transceivers.ocs"].m == 6144                      # was 12,288
    rel = shipped.operations.reliability["cluster/tpu-v4-pod"]
    (transceivers,) = [c for c in rel.classes if c.name == "transceiver"]
    assert transceivers.units == 6144 and transceivers.parts == ("ici-v4-optical",)
    per_year = shipped.metrics["cluster/tpu-v4-pod"]["failures_per_year"].m_as("1/year")
    (cables,) = [c for c in rel.classes if c.name == "cable"]
    assert cables.units == 5120                                       # 9,216 before the 4,096 tray traces left
    # the pod's rate is its classes' (was 709.8 a year at 12,288 modules and 9,216 cables, at the earlier rates)
    assert per_year == pytest.approx(sum(c.exposure * c.rate.afr for c in rel.classes), rel=1e-9)   # every failure
    (line,) = [b for b in shipped.clusters["cluster/tpu-v4-pod"].cabling.bom if b.part == "ocs-fibre-port"]
    assert line.quantity == 6144 and "no transceiver" in line.note
    (point,) = [p for p in shipped.scaling["cluster/tpu-v4-pod"].points if p.factor == 1]
    assert point.transceivers == 6144                                 # the growth table's column, was 12,288
