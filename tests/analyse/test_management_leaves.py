"""Management leaves sized per rack from the ports they serve (`leaf.serves_racks`, NET028).

The GB200 SU placed 2 SN2201 per NVL72 rack (16) while its OOB fabric derived 6 from the BMC and switch ports
pooled over the SU, so 10 stood unused (NET017, waived). Hand count of one GB200 NVL72 rack's management ports, each
from its source: 18 compute-tray BMC ports (DGX GB200 user guide, hardware.html: 18 trays; `node_management: 1`),
9 NVLink switch trays x 3 (BMC, ComE1, ComE2: NVIDIA Mission Control GB200 North-South deployment guide, NVLink
Switch Planning and Design), the 2 SN2201s' own management ports, 8 power shelves x 1 (unconfirmed: one each) =
55 ports on 48 x 1G SN2201 down ports: ⌈55 / 48⌉ = 2 per rack, the "2x TOR Switches for management" of the user
guide, 16 in the SU.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from archgen.errors import SpecError
from tests.conftest import case_files, run_specs

SU = "cluster/gb200-nvl72-su"
PER_RACK = 18 * 1 + 9 * 3 + 2 * 1 + 8 * 1        # BMC + NVLink tray + SN2201 + power shelf management ports
NETWORK_RACKS = 34 + 5 + 2                        # gb200-su-ib: 34 QM9700; gb200-su-eth: 5 SN5600, 2 SN4600C


def _oob(run, cluster=SU):
    return next(fa for fa in run.clusters[cluster].fabrics if fa.fabric.spec.id == "oob")


def test_gb200_su_oob_leaves_follow_the_ports_of_each_rack(shipped):
    fa = _oob(shipped)
    leaf = fa.tier_at("leaf")
    assert PER_RACK == 55 and leaf.down == 48
    assert fa.endpoint_ports == 8 * PER_RACK + NETWORK_RACKS == 481
    assert leaf.switches == 8 * math.ceil(PER_RACK / leaf.down) == 16    # the 16 SN2201 placed, 2 per rack
    assert leaf.spare == 0
    ids = {f.id for f in shipped.findings if f.object.startswith(SU)}
    assert not ids & {"NET017", "NET028", "NET009", "NET012"}


def test_gb200_su_each_rack_cabled_to_its_own_two_leaves(shipped):
    cabling = shipped.clusters[SU].cabling
    runs = next(r for r in cabling.runs if r.fabric == "oob" and r.tier == "access")
    names = np.array(cabling.rack_names)
    compute = (runs.a_rack >= 0) & (np.char.find(names[runs.a_rack].astype(str), "/gb200-nvl72-") >= 0)
    assert int(compute.sum()) == 8 * PER_RACK
    assert (runs.b_rack[compute] == runs.a_rack[compute]).all()       # every port to a leaf in its own rack
    leaves = {(int(r), int(u)) for r, u in zip(runs.b_rack[compute], runs.b_u[compute], strict=True)}
    assert len(leaves) == 16


def test_net028_gives_the_leaves_the_ports_need(tmp_path):
    files = case_files("NET028", "fail_one_per_rack_where_its_ports_need_two")
    run = run_specs(tmp_path, files)
    fa = next(fa for fa in run.clusters["cluster/c"].fabrics if fa.fabric.spec.id == "oob")
    per_rack = 4 * 16 + 1     # 4 DGX H100 x 16 management ports, 1 SN2201
    assert fa.tier_at("leaf").switches == 6 * math.ceil(per_rack / 48) == 12
    [f] = [f for f in run.findings if f.id == "NET028"]
    assert f.value.m == 1 and f.limit.m == 2


@pytest.mark.parametrize(("tier", "text"), [("spine: {switch: sn4600c, count: 2, rack: net, serves_racks: 1}",
                                             "only the leaves are sized per rack"),
                                            ("leaf: {uplinks: 2, uplink_speed: 100 Gb/s, serves_racks: 1}",
                                             "give leaf.rack beside leaf.serves_racks")])
def test_serves_racks_only_on_leaves_with_their_rack(tmp_path, tier, text):
    files = case_files("NET028", "pass_one_leaf_per_rack_for_its_ports")
    key = tier.split(":")[0]
    lines = files["clusters/c.yaml"].splitlines()
    files["clusters/c.yaml"] = "\n".join(ln[:len(ln) - len(ln.lstrip())] + tier if ln.strip().startswith(f"{key}:")
                                         else ln for ln in lines) + "\n"
    with pytest.raises(SpecError, match=text):
        run_specs(tmp_path, files)


def test_serves_racks_on_a_rail_only_fabric_is_refused(tmp_path):
    """A rail's leaves are sized by its rails: `leaf.serves_racks` there would be read by nothing."""
    files = case_files("CAB007", "pass_rail_only_laid_out")
    files["clusters/c.yaml"] = files["clusters/c.yaml"].replace(
        "  switch: q3400\n", "  switch: q3400\n  leaf: {rack: gb300-nvl72, serves_racks: 1}\n")
    assert "serves_racks: 1" in files["clusters/c.yaml"]
    with pytest.raises(SpecError, match="leaf.serves_racks given, but a rail-only fabric does not read it"):
        run_specs(tmp_path, files)
