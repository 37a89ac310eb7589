"""Copper assemblies are ordered only in the lengths their vendor sells (`Link.max_length`).

Input (an installer's trial): the GB200 NVL72 SU ordered 66 twin-port DACs (`dac-800g-osfp`) at 2.5 m, while the
part's source, NVIDIA's MCP4Y10-Nxxx product specification, lists "0.5-2 m lengths"
(https://docs.nvidia.com/networking/display/mcp4y10nxxx2x400pub); the 3 m reach is the LinkX DAC product line's.
CAB001 passed them, as it held runs to the reach only. A run past the longest length sold now takes the tier's next
option, and where the tier lists none, CAB001 names the runs, their length and what is sold.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.conftest import SPECS

#: MCP4Y10-Nxxx product specification: "0.5-2 m lengths" (the catalog entry's second source).
SOLD_MAX_M = 2.0


def _specs(tmp_path: Path, leaf_spine: str | None = None) -> Path:
    root = tmp_path / "specs"
    shutil.copytree(SPECS, root)
    if leaf_spine is not None:
        path = root / "clusters" / "gb200-nvl72-su.yaml"
        text = path.read_text(encoding="utf-8")
        for listed in ("[dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]",
                       "[dac-800g-osfp, mmf-800g-sr8, smf-800g-dr8]"):
            assert listed in text
            text = text.replace(listed, leaf_spine)
        path.write_text(text, encoding="utf-8")
    return root


def _dac_runs(r) -> list[float]:
    """Lengths of every run that takes the twin-port DAC in the GB200 SU."""
    out = []
    for tr in r.clusters["cluster/gb200-nvl72-su"].cabling.runs:
        tier = next(t for t in r.clusters["cluster/gb200-nvl72-su"].cabling.tiers if (t.fabric, t.tier) ==
                    (tr.fabric, tr.tier))
        for i, opt in enumerate(tier.options):
            if opt.a.id == "dac-800g-osfp":
                out += [float(x) for x in tr.length[tr.option == i]]
    return out


def test_no_dac_longer_than_sold(tmp_path: Path) -> None:
    """The shipped SU orders no DAC past 2 m (was 66 at 2.5 m); its longer leaf-spine runs take the next option."""
    r = run([_specs(tmp_path)])
    runs = _dac_runs(r)
    assert runs and max(runs) <= SOLD_MAX_M + 1e-9
    assert not [f for f in r.findings if f.id == "CAB001" and f.severity == "error"]


def test_run_past_sold_lengths_is_cab001(tmp_path: Path) -> None:
    """Leaf-spine links listed as DAC only: the runs past 2 m are CAB001, naming the length and what is sold."""
    r = run([_specs(tmp_path, "[dac-800g-osfp]")])
    bad = [f for f in r.findings if f.id == "CAB001" and "dac-800g-osfp" in f.message]
    assert bad, [f.message for f in r.findings if f.id == "CAB001"]
    msg = bad[0].message
    assert msg.startswith("leaf_spine: ") and "exceed the 2 m longest length sold" in msg
    assert "reach 3 m, sold 0.5-2 m" in msg and "the longest from" in msg


def test_a_longest_length_sold_below_the_shortest_is_refused() -> None:
    """`max_length` under `min_length` leaves no length sold: refused with both, not a part that no run can take."""
    from archgen.errors import SpecError
    from archgen.load import load_paths
    from archgen.model import KINDS, Link

    dac = next(d for d in load_paths([SPECS / "catalog" / "links"]) if d.id == "dac-800g-osfp")
    data = {**KINDS[dac.kind].model_validate(dac.data).model_dump(mode="json", exclude_none=True),
            "max_length": "0.4 m"}
    with pytest.raises((SpecError, ValueError), match=r"max_length 0\.4 m is below min_length 0\.5 m"):
        Link.model_validate(data)
