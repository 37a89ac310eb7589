"""Numbers `diff` listed nowhere, and a part swap read as two lines (newuser86's trial, ranks 3 and 4).

Between revisions A and B of a GB300 SU spec, mmf-800g-sr8's BOM line went from 1.2 kW to 0.0 kW with its count
unchanged (the modules' draw now inside the sn5600's maximum): the BOM listed count changes only, so the line showed
nowhere but in the optics power metric. COST002's text lost "sn5610 x5" and was paired silently with BASE's, listed
as neither new nor resolved. And sn5610 x5 → sn5600 x5 read as a -5 and a +5 line.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
SWITCH = (SPECS / "catalog" / "switches" / "sn2201.yaml").read_text(encoding="utf-8")
SLOT = "  - {at: 40, part: sn2201, face: rear}\n"
#: A SHOULD requirement the rack misses (40.9 kW): a warning whose message carries the value.
SHOULD = "  - {id: REQ-PWR-011, statement: Rack IT load goal, metric: it_power, target: '<= 30 kW', level: should}\n"
REQS = "requirements:\n"


def _tree(root: Path, switch_w: int = 98, part: str = "oob-sw") -> Path:
    assert SLOT in RACK and REQS in RACK and "  max: 98 W\n" in SWITCH
    rack = RACK.replace(SLOT, SLOT.replace("sn2201", part)).replace(REQS, REQS + SHOULD, 1)
    own = SWITCH.replace("id: sn2201", "id: oob-sw", 1).replace("  max: 98 W\n", f"  max: {switch_w} W\n", 1)
    return write_tree(root, {"rack.yaml": rack, "oob-sw.yaml": own})


def _diff(base: Path, head: Path) -> tuple[str, dict]:
    md, js = run_cli("diff", base, head), run_cli("diff", base, head, "--format", "json")
    assert md.code in (0, 1) and js.code in (0, 1), md.err
    return md.out, json.loads(js.out)


def test_a_line_whose_power_moves_at_the_same_count_is_listed(tmp_path):
    out, doc = _diff(_tree(tmp_path / "a"), _tree(tmp_path / "b", switch_w=198))   # 98 W -> 198 W, still x1
    [line] = [r for r in doc["bom"] if r["part"] == "oob-sw"]
    assert (line["base"], line["head"], line["change"]) == (1, 1, 0)
    assert line["power_change"] == {"value": 100.0, "unit": "W"}
    assert (doc["summary"]["parts_changed"], doc["summary"]["parts_power_changed"]) == (0, 1)
    assert "| `rack/dgx-h100-4` | `oob-sw` | Switch | 1 | 1 | 0 | +0.1 kW (unconfirmed) | — |" in out
    assert "; 1 BOM line(s) changed power at the same count;" in out.split("\n")[2]


def test_a_finding_whose_text_changed_is_listed_as_changed(tmp_path):
    out, doc = _diff(_tree(tmp_path / "a"), _tree(tmp_path / "b", switch_w=198))
    [changed] = doc["findings"]["changed"]
    assert (changed["base"]["id"], changed["head"]["requirement"]) == ("REQ001", "REQ-PWR-011")
    assert "40.9 kW" in changed["base"]["message"] and "41.0 kW" in changed["head"]["message"]
    assert doc["summary"]["findings_changed"] == 1 and not doc["findings"]["new"] + doc["findings"]["resolved"]
    assert "### Changed findings" in out and "1 changed" in out.split("\n")[2]


def test_a_swap_reads_as_one_part_for_another(tmp_path):
    out, doc = _diff(_tree(tmp_path / "a", part="sn2201"), _tree(tmp_path / "b", part="qm9700"))
    assert doc["swaps"] == [{"object": "rack/dgx-h100-4", "kind": "Switch", "within": None, "from": "sn2201",
                             "to": "qm9700", "count": 1, "power_change": doc["swaps"][0]["power_change"],
                             "cost_change": doc["swaps"][0]["cost_change"]}]
    assert doc["summary"]["parts_swapped"] == 1
    assert "| `rack/dgx-h100-4` | `sn2201` → `qm9700` (1) | Switch | 1 | 1 | swapped |" in out
    assert "| `rack/dgx-h100-4` | `sn2201` | Switch |" not in out
