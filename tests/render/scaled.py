"""The shipped GB300 NVL72 example scaled to many racks, for tests and `bench/bench_render.py` (issue 25).

`examples/gb300-nvl72-su` is copied with its layout's SU count set to `sus` (11 racks each, 11 to a row: one row
per SU). Without `fabrics` its fabrics and its `expect:` line (576 accelerators, 11 racks) are left out, so the
design is the racks alone: issue 25's 90,000-rack render is `sus=8182` (90,002 racks).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gb300-nvl72-su"
CLUSTER = "gb300-nvl72-su"
RACKS_PER_SU = 11


def scaled_example(root: Path, sus: int, fabrics: bool = False) -> Path:
    """Write the example with `sus` scalable units under `root` and return its folder."""
    folder = root / f"{CLUSTER}-x{sus}"
    shutil.copytree(EXAMPLE, folder, dirs_exist_ok=True)
    path = folder / "clusters" / f"{CLUSTER}.yaml"
    text = path.read_text(encoding="utf-8")
    assert "- {unit: su, count: 1}" in text, "the example's layout changed: update tests/render/scaled.py"
    text = text.replace("- {unit: su, count: 1}", f"- {{unit: su, count: {sus}}}")
    if not fabrics:
        text = re.sub(r"(?ms)^fabrics:.*?(?=^\S)", "", text)
        text = re.sub(r"(?m)^expect:.*\n", "", text)
    path.write_text(text, encoding="utf-8")
    return folder
