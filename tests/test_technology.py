"""Switches and scale-up domains read one list of link technologies (newuser37's finding).

`Switch.technology` refused 'ualink' with "did you mean 'nvlink'" while a cluster's `scale_up.technology` took it,
so a UALink (or UALink over Ethernet) switch tray had to be typed as Ethernet. Both now read
`model.technology.TECHNOLOGIES`; each refuses, with the reason, what the list says it cannot carry.
"""

from __future__ import annotations

import typing

import pytest

from archgen.model import Switch
from archgen.model.cluster import ScaleUp
from archgen.model.technology import TECHNOLOGIES, ScaleUpName, SwitchName

SWITCH = {"kind": "Switch", "id": "ua-tray", "source": "test fixture",
          "ports": {"count": 72, "speed": "800 Gbit/s", "cage": "OSFP"},
          "mechanical": {"height": "1 U", "weight": "20 kg"}, "power": {"max": "1 kW"}}


def test_the_fields_read_the_one_list():
    assert typing.get_args(SwitchName) == tuple(n for n, k in TECHNOLOGIES.items() if k.switch)
    assert typing.get_args(ScaleUpName) == tuple(n for n, k in TECHNOLOGIES.items() if k.scale_up)


@pytest.mark.parametrize("name", [n for n, k in TECHNOLOGIES.items() if k.switch and k.scale_up])
def test_a_scale_up_technology_with_switches_is_a_switchs_too(name):
    assert Switch.model_validate({**SWITCH, "technology": name}).technology == name
    assert ScaleUp.model_validate({"domain": "rack", "technology": name, "size": 72,
                                   "bandwidth": "1.8 TB/s"}).technology == name


def test_ualink_is_a_switch_technology():
    assert Switch.model_validate({**SWITCH, "technology": "ualink"}).technology == "ualink"


def test_a_mesh_technology_is_refused_on_a_switch_with_the_reason():
    with pytest.raises(ValueError, match=r"a switch's technology, one of nvlink, ualink, ethernet, infiniband, "
                                         r"optical-circuit \('infinity-fabric' is a direct mesh with no switch\)"):
        Switch.model_validate({**SWITCH, "technology": "infinity-fabric"})
    with pytest.raises(ValueError, match=r"a scale-up domain's technology, one of nvlink, ualink, ethernet, "
                                         r"infinity-fabric, neuronlink \('infiniband' is a scale-out network\)"):
        ScaleUp.model_validate({"domain": "rack", "technology": "infiniband", "size": 72, "bandwidth": "1.8 TB/s"})
