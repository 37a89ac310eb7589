"""Fixtures for the performance model: the shipped accelerators and standard hardware."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.hw.hardware import HostShare, hardware_for
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q_

CASES = Path(__file__).resolve().parent.parent / "data" / "validation-cases.yaml"
#: A DGX H100's host memory per GPU (2 TB / 8, PCIe Gen5 x16).
PCIE5 = HostShare(Q_(250, "GB"), Q_(63, "GB/s"), Q_(76.8, "GB/s"), 0.8)


@pytest.fixture(scope="session")
def accelerators():
    """Every accelerator of the shipped catalog, by id."""
    return load_accelerators()


@pytest.fixture(scope="session")
def h100(accelerators):
    """An HGX H100 node in a 400 Gb/s-per-GPU fabric, NVLS off."""
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"),
                        in_network_reduction=False)


@pytest.fixture(scope="session")
def a100(accelerators):
    """A DGX A100 (Selene) node with 200 Gb/s HDR per GPU."""
    return hardware_for(accelerators["a100-sxm4-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(200, "Gbit/s"))


@pytest.fixture(scope="session")
def h100_host(accelerators):
    """An HGX H100 node with a DGX H100's host memory per GPU (`PCIE5`)."""
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"),
                        in_network_reduction=False, host=PCIE5)
