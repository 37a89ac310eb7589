"""Figures newuser42's catalog audit left open, each against the words of its source.

* h100-sxm5-80gb `all_to_all` 0.744: https://github.com/NVIDIA/nccl/issues/2169, erfiboy's turn 2, nccl-tests
  2.17.8 alltoall_perf, NCCL 2.30.4, 4 x "NVIDIA H100 80GB HBM3", command line with `-x NCCL_ALGO=Ring` and
  `-x NCCL_PROTO=Simple`: "524288000 32768000 float none -1 1174.14 446.53 334.90" (busbw 334.90 GB/s out of place).
* mmf-800g-sr8 power: NVIDIA's MMA4Z00-NS-T overview (docs.nvidia.com/networking/display/800gmma4z00nst/overview):
  "Twin-port multimode OSFP transceivers remain at 15 Watts for all configurations"; NVIDIA's LinkX 100G-PAM4
  product-line overview: multimode twin-port 17 W; NVIDIA's connectors-and-cages page: fins "to support 17-Watt
  transceivers".
* tpu-v4 ICI: jax-ml/scaling-book tpus.md at 04d8de58 (Google DeepMind), "TPU v4p | 4.5e10 | 9e10" under "ICI
  BW/link (one-way, bytes/s)" and "ICI BW/link (bidi, bytes/s)"; six links per chip (the Cloud TPU v4 page and the
  ISCA 2023 paper's 3D torus); the catalog's 400 Gb/s per link and direction from glennklockwood.com (citing the
  paper).
* `l2_cache`: ROCm "AMD GPU specifications" (rocm.docs.amd.com/en/latest/reference/gpu-specs.html), MI325X "L3
  Cache (MiB) 256", "L2 Cache (MiB) 32 (4 per XCD)": the key holds the last-level cache, AMD's L3.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.model.accelerator import Accelerator
from archgen.model.network import Link
from archgen.units import Q_

ROOT = Path(__file__).resolve().parents[2]
NCCL_2169_BUSBW = Q_(334.90, "GB/s")  # out of place, NCCL_ALGO=Ring NCCL_PROTO=Simple forced (module docstring)
TPU_V4_ICI_ONE_WAY_PER_LINK = Q_(4.5e10, "B/s")  # scaling book, TPU v4p row
TPU_V4_ICI_LINKS = 6
TPU_V4_ICI_LINE_RATE = Q_(400, "Gb/s")  # per direction, specs/clusters/tpu-v4-pod.yaml fabric speed


def test_h100_all_to_all_is_the_forced_ring_run_and_says_so(accelerators):
    """0.744 is 334.90 over the 450 GB/s per direction, from a run that forced NCCL_ALGO=Ring: the source says so."""
    h100 = accelerators["h100-sxm5-80gb"]
    assert h100.efficiency.all_to_all == pytest.approx(
        float(NCCL_2169_BUSBW / h100.scale_up.bandwidth), abs=5e-4)
    (cite,) = [s for s in h100.efficiency.source if s.startswith("all_to_all:")]
    assert "NCCL_ALGO=Ring" in cite and "NCCL_PROTO=Simple" in cite and "NCCL 2.30.4" in cite


def test_800g_multimode_power_is_the_upper_of_nvidias_two_figures_and_unconfirmed():
    """NVIDIA gives 15 W and 17 W for the twin-port multimode module: 17 W kept, the figure marked unconfirmed."""
    doc = yaml.safe_load((ROOT / "specs" / "catalog" / "links" / "mmf-800g-sr8.yaml").read_text(encoding="utf-8"))
    link = Link.model_validate(doc)
    assert link.power_per_end == Q_(17, "W") and link.is_unconfirmed("power_per_end")
    assert "15 Watts" in link.notes and "17-Watt" in link.notes


def test_tpu_v4_ici_is_per_direction_and_googles_one_way_figure_is_stated(accelerators):
    """scale_up.bandwidth is per direction (H100 450 = 900 / 2): six links at 400 Gb/s, the pod fabric's speed.
    Google's own figure is one-way too, 4.5e10 B/s per link, 10 % below; the part states it and the range."""
    tpu = accelerators["tpu-v4"]
    assert tpu.scale_up.links == TPU_V4_ICI_LINKS
    assert tpu.scale_up.bandwidth == (TPU_V4_ICI_LINKS * TPU_V4_ICI_LINE_RATE).to("GB/s")
    google = (TPU_V4_ICI_LINKS * TPU_V4_ICI_ONE_WAY_PER_LINK).to("GB/s")
    assert float(google / tpu.scale_up.bandwidth) == pytest.approx(0.9)
    assert "4.5e10 bytes/s one-way" in tpu.notes and "270 to 300 GB/s per direction" in " ".join(tpu.notes.split())
    assert tpu.is_unconfirmed("scale_up.bandwidth")  # the paper itself not read


def test_l2_cache_is_documented_as_the_last_level_cache():
    """The spec reference names the key's meaning, AMD's Infinity Cache (L3), not only its name."""
    description = Accelerator.model_fields["l2_cache"].description or ""
    assert description.startswith("Last-level cache") and "L3" in description
    reference = (ROOT / "docs" / "spec-reference.md").read_text(encoding="utf-8")
    row = f"| `l2_cache` | quantity (an amount of data, e.g. `141 GB`) | no (default `None`) | {description} |"
    assert row in reference
