"""Fixtures for the performance model: the shipped accelerators and standard hardware."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.hw.hardware import hardware_for
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q_

CASES = Path(__file__).resolve().parent.parent / "data" / "validation-cases.yaml"


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
