"""Fixtures for the performance model: the shipped accelerators and standard hardware."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from archgen.model.accelerator import Accelerator
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.host_share import HostShare
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q_

CASES = Path(__file__).resolve().parent.parent / "data" / "validation-cases.yaml"
#: User specs of every kind whose accelerator `acc` states no efficiency (the assumed-efficiency tests' estimate).
MINIMAL = Path(__file__).resolve().parent.parent / "data" / "minimal" / "all-kinds.yaml"
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


def user_accelerator(peak: dict[str, str]) -> dict:
    """A user-written accelerator of `peak` (data type: rate) that states no `efficiency` at all, as a document."""
    return {"kind": "Accelerator", "id": "mine", "source": "test", "memory": "80 GB", "memory_bandwidth": "3 TB/s",
            "peak": peak, "tdp": "700 W", "scale_up": {"technology": "NVLink 4", "bandwidth": "450 GB/s"}}


def measured(figures: Callable[[Accelerator], Iterable[tuple[str, float]]], field: str) -> dict[str, list[float]]:
    """Every shipped part's figures that its file states as measured, per name.

    Args:
        figures: A part's stated figures, as (name, value).
        field: The field path of a figure, with `{}` for its name (e.g. 'efficiency.gemm.{}'): a figure marked
            `unconfirmed` there (or above) is not a measurement.
    """
    out: dict[str, list[float]] = defaultdict(list)
    for acc in load_accelerators().values():
        for name, value in figures(acc):
            if not acc.is_unconfirmed(field.format(name)):
                out[name].append(value)
    return out


@pytest.fixture(scope="session")
def minimal_estimate():
    """`archgen estimate` of `workload/w` on the `MINIMAL` specs, and its span from the efficiency note (s).

    Returns:
        (the estimate, the note that names the GEMM efficiency, (low, high) step time it spans).
    """
    from archgen.pipeline import run
    est = run([MINIMAL]).workloads["workload/w"].estimate
    assert est is not None
    note = next(n for n in est.notes if "GEMM efficiency" in n)
    lo, hi = (float(x) for x in note.split("spans ")[1].replace(" s", "").split(" to "))
    return est, note, (lo, hi)
