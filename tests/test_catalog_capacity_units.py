"""Every memory and cache capacity in the catalog is stated in the unit its cited source uses (MB vs MiB, GB vs GiB).

`AUDIT` records, next to each figure, the source's own wording, which the part's `source:` list (or, for a vendor's
printed capacity, its `notes:`) must quote. A decimal figure must carry a decimal unit and a binary one a binary unit.
The one stated exception is HBM that a vendor prints as "GB" with no published figure of what software sees: the
catalog reads it as GiB (the stacks are binary; where the driver's figure is published it is within 0.5 % of the
printed number read as GiB, 7 % above it read as 10^9 B), and such a part's notes must say it is "read as" GiB.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

CATALOG = Path(__file__).resolve().parents[1] / "specs" / "catalog"

#: The vendor prints "GB"; the catalog reads it as GiB (module docstring), and the part's notes say so.
READ_AS_GIB = "read as GiB"

#: (folder, part id, field path) -> (the catalog's figure, the source's wording as the part quotes it, exception).
AUDIT: dict[tuple[str, str, str], tuple[str, str, str]] = {
    # NVIDIA's MLPerf system descriptions record the memory software sees, in MiB.
    ("accelerators", "h100-sxm5-80gb", "memory"): ("81559 MiB", 'accelerator_memory_capacity "81559 MiB"', ""),
    ("accelerators", "h800-sxm5-80gb", "memory"): ("81559 MiB", 'accelerator_memory_capacity "81559 MiB"', ""),
    ("accelerators", "h200-sxm-141gb", "memory"): ("143771 MiB", 'accelerator_memory_capacity "143771 MiB"', ""),
    ("accelerators", "gb200", "memory"): ("189471 MiB", 'accelerator_memory_capacity "189471 MiB"', ""),
    ("accelerators", "gb300", "memory"): ("284208 MiB", 'accelerator_memory_capacity "284208 MiB"', ""),
    ("accelerators", "a100-sxm4-80gb", "memory"): ("80 GiB", '"80GB"', READ_AS_GIB),
    ("accelerators", "b200-sxm-180gb", "memory"): ("180 GiB", '"180GB"', READ_AS_GIB),
    ("accelerators", "b300-sxm-288gb", "memory"): ("270 GiB", 'accelerator_memory_capacity "270 GB"', READ_AS_GIB),
    ("accelerators", "gaudi3", "memory"): ("128 GiB", "128 GB HBM2e", READ_AS_GIB),
    # AWS's Trainium2 architecture page prints the device memory in GiB.
    ("accelerators", "trainium2", "memory"): ("96 GiB", "96 GiB of device memory", ""),
    # AMD's ROCm specification table is in GiB and MiB (its Infinity Cache, the L3, is the last-level cache).
    ("accelerators", "mi300x", "memory"): ("192 GiB", "VRAM (GiB) 192", ""),
    ("accelerators", "mi300x", "l2_cache"): ("256 MiB", "L3 Cache (MiB) 256", ""),
    ("accelerators", "mi325x", "memory"): ("256 GiB", "256 GiB VRAM", ""),
    ("accelerators", "mi325x", "l2_cache"): ("256 MiB", "256 MiB L3", ""),
    ("accelerators", "mi350x", "memory"): ("288 GiB", "288 GiB VRAM", ""),
    ("accelerators", "mi350x", "l2_cache"): ("256 MiB", "256 MiB L3", ""),
    ("accelerators", "mi355x", "memory"): ("288 GiB", "288 GiB VRAM", ""),
    ("accelerators", "mi355x", "l2_cache"): ("256 MiB", "256 MiB L3", ""),
    # NVIDIA's L40S datasheet prints GDDR6 in GB (its devices are binary, as HBM's are).
    ("accelerators", "l40s", "memory"): ("48 GiB", "48 GB GDDR6 with ECC", READ_AS_GIB),
    ("accelerators", "tpu-v4", "memory"): ("32 GiB", "HBM2 32 GiB", ""),
    # Google's later v5p page states the capacity in GiB itself (nu71fix): no reading needed.
    ("accelerators", "tpu-v5p", "memory"): ("95 GiB", "HBM capacity per chip (GiB) 95", ""),
    ("accelerators", "gaudi3", "l2_cache"): ("96 MiB", "96 MiB configurable cache", ""),
    # NVIDIA prints its L2 sizes in MB (Hopper Architecture In-Depth blog); H200 and H800 are the H100's die.
    ("accelerators", "h100-sxm5-80gb", "l2_cache"): ("50 MB", "A 50 MB L2 cache in H100", ""),
    ("accelerators", "h800-sxm5-80gb", "l2_cache"): ("50 MB", "A 50 MB L2 cache in H100", ""),
    ("accelerators", "h200-sxm-141gb", "l2_cache"): ("50 MB", "A 50 MB L2 cache in H100", ""),
    ("accelerators", "a100-sxm4-80gb", "l2_cache"): ("40 MB", "the A100 40 MB L2", ""),
    # Host memory as NVIDIA's system descriptions print it.
    ("systems", "dgx-h100", "host_memory.capacity"): ("2 TB", "2 TB host memory", ""),
    ("systems", "dgx-b200", "host_memory.capacity"): ("2 TB", 'host_memory_capacity \\"2 TB\\"', ""),
    ("systems", "gb200-compute-tray", "host_memory.capacity"): ("960 GB", "up to 480 GB LPDDR5X", ""),
}

#: The capacity fields audited, per catalog folder.
FIELDS = {"accelerators": ("memory", "l2_cache"), "systems": ("host_memory.capacity",)}


def _field(data: dict, path: str) -> object:
    """The value at dotted `path` in a part's data, or None."""
    for key in path.split("."):
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _parts() -> dict[tuple[str, str], dict]:
    """Every part of the audited folders, by (folder, id)."""
    out = {}
    for folder in FIELDS:
        for f in sorted((CATALOG / folder).glob("*.yaml")):
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
            out[(folder, data["id"])] = data
    return out


PARTS = _parts()


def _binary(text: str) -> bool:
    """Whether a figure's unit (or a wording's) is binary (KiB, MiB, GiB, TiB)."""
    return any(u in text for u in ("KiB", "MiB", "GiB", "TiB"))


def test_every_capacity_is_audited() -> None:
    """Each memory and cache capacity in the catalog has an entry in `AUDIT` (a new part gets one)."""
    present = {(folder, pid, path) for (folder, pid), data in PARTS.items() for path in FIELDS[folder]
               if _field(data, path) is not None}
    assert present == set(AUDIT)


@pytest.mark.parametrize("key", sorted(AUDIT), ids=lambda k: f"{k[1]}.{k[2]}")
def test_capacity_is_in_its_source_unit(key: tuple[str, str, str]) -> None:
    """The figure is the audited one, its source's wording is quoted in the part, and the units agree."""
    folder, pid, path = key
    figure, wording, exception = AUDIT[key]
    data = PARTS[(folder, pid)]
    assert str(_field(data, path)) == figure
    sources = data["source"] if isinstance(data["source"], list) else [data["source"]]
    quoted = "\n".join(sources) + "\n" + " ".join(str(data.get("notes", "")).split())
    assert wording.replace("\\", "") in quoted.replace("\\", ""), f"{pid}: the source's wording {wording!r} is not quoted"
    if exception == READ_AS_GIB:
        assert not _binary(wording) and figure.endswith("GiB"), pid
        assert READ_AS_GIB in " ".join(str(data["notes"]).split()), f"{pid}: notes must say the GB is {READ_AS_GIB}"
    else:
        assert _binary(figure) == _binary(wording), f"{pid}.{path}: {figure} against the source's {wording!r}"
