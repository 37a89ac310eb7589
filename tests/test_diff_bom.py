"""`archgen diff`'s bill-of-materials delta: a part swap shows even where every total the metrics show is equal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SPECS, run_cli
from tests.test_diff import copy_specs, diff_json

CLUSTER = "clusters/dgx-b200-superpod.yaml"
SUPERPOD = "cluster/dgx-b200-superpod"
# The superpod's compute fabric offers SR8 before DR8 on every tier; without SR8 every optical link takes DR8.
SR8_TO_DR8 = ("mmf-800g-sr8, smf-800g-dr8", "smf-800g-dr8")
# catalog links/mmf-800g-sr8.yaml and smf-800g-dr8.yaml: 17 W per module; the SR8 priced at 1,000 USD (an assumed
# placeholder), the DR8 at 1,400 USD (assumed: the top of luxoptx.com's 1,100-1,400 USD for 800G OSFP DR8, coretier43)
MODULE_W = 17.0
SR8_USD = 1000.0
DR8_USD = 1400.0
# The node-end modules: 127 DGX B200 x 4 twin-port OSFP cages (catalog systems/dgx-b200.yaml). Their power is in
# the DGX's maximum draw (power_includes_optics), so a swap there moves neither IT power nor the line's total power.
NODE_ENDS = 127 * 4


def edited(dest: Path, file: str, old: str, new: str) -> Path:
    """A copy of the shipped specs (not the catalog) with every `old` in `file` replaced by `new`."""
    shutil.copytree(SPECS, dest, ignore=shutil.ignore_patterns("catalog"))
    path = dest / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return dest


def rows(doc: dict, obj: str) -> dict[str, dict]:
    return {r["part"]: r for r in doc["bom"] if r["object"] == obj}


@pytest.fixture(scope="module")
def swap(tmp_path_factory) -> tuple[Path, Path]:
    """(an unchanged copy of the shipped specs, a copy whose SU swaps SR8 for DR8 optics); tests only read them, and
    the module's other diffs take the same BASE, so that its pipeline run is made once (`tests/shared_runs.py`)."""
    root = tmp_path_factory.mktemp("swap")
    return copy_specs(root / "base"), edited(root / "head", CLUSTER, *SR8_TO_DR8)


@pytest.fixture(scope="module")
def swap_doc(swap) -> dict:
    """`diff --format json` of `swap`, for the tests that read it (they do not change it)."""
    return diff_json(*swap)[1]


def test_optics_swap(swap_doc):
    doc = swap_doc
    bom = rows(doc, SUPERPOD)
    sr8, dr8 = bom["mmf-800g-sr8"], bom["smf-800g-dr8"]
    n = sr8["base"]
    assert n > 0 and (sr8["head"], sr8["change"]) == (0, -n)
    assert (dr8["base"], dr8["head"], dr8["change"]) == (0, n, n)   # as many DR8 as there were SR8
    assert sum(r["change"] for r in bom.values() if r["kind"] == "Link") == 0   # the transceiver total is equal
    assert sr8["power_change"] == {"value": pytest.approx(-(n - NODE_ENDS) * MODULE_W), "unit": "W"}
    assert dr8["power_change"] == {"value": pytest.approx((n - NODE_ENDS) * MODULE_W), "unit": "W"}
    assert sr8["cost_change"] == {"value": pytest.approx(-n * SR8_USD), "unit": "USD"}
    assert dr8["cost_change"] == {"value": pytest.approx(n * DR8_USD), "unit": "USD"}
    # the patch cords follow: multimode cords go, single-mode (APC) cords come, bin by bin, as many as before
    cords = [r for r in bom.values() if r["kind"] == "Fibre"]
    assert {r["part"].split("-mpo")[0] for r in cords} == {"fibre-multimode", "fibre-singlemode"}
    assert sum(r["change"] for r in cords) == 0
    assert all(r["change"] < 0 for r in cords if "multimode" in r["part"])
    assert doc["summary"]["parts_changed"] == len(doc["bom"])
    keys = [(r["object"], r["kind"], r["part"], r["within"] or "") for r in doc["bom"]]
    assert keys == sorted(keys)
    assert {"object", "part", "kind", "within", "base", "head", "change", "power_change", "subtotal",
            "power_unconfirmed", "cost_change"} == set(doc["bom"][0])


def test_optics_swap_markdown(swap, swap_doc):
    count = rows(swap_doc, SUPERPOD)["mmf-800g-sr8"]["base"]
    r = run_cli("diff", *swap)
    assert "### Bill of materials" in r.out
    n, kw, usd = f"{count:,}", f"{(count - NODE_ENDS) * MODULE_W / 1000:,.2f}", f"{count * SR8_USD:,.0f}"
    assert kw and usd   # the two lines' changes (JSON `bom`, above), which the swap's row adds up (rel30)
    # as many DR8 came as SR8 went, at one power a module: one swap row, power 0, cost the price difference a module
    more = f"+{count * (DR8_USD - SR8_USD):,.0f} USD"
    assert f"| `{SUPERPOD}` | `mmf-800g-sr8` → `smf-800g-dr8` ({n}) | Link | {n} | {n} | swapped | 0 kW (unconfirmed) | {more} |" in r.out
    # both modules' power_per_end are listed unconfirmed (newuser101)
    assert f"| `{SUPERPOD}` | `mmf-800g-sr8` | Link |" not in r.out
    assert "part count(s) changed in the bill of materials" in r.out.splitlines()[2]
    again = run_cli("diff", *swap)
    assert again.out == r.out   # deterministic


def test_switch_swap(tmp_path, swap):
    base = swap[0]
    head = copy_specs(tmp_path / "head", ("part: sn2201, face: rear", "part: sn4600c, face: rear"))
    _, doc = diff_json(base, head)
    bom = rows(doc, "rack/dgx-h100-4")
    assert (bom["sn2201"]["base"], bom["sn2201"]["head"]) == (1, 0)
    assert (bom["sn4600c"]["base"], bom["sn4600c"]["head"]) == (0, 1)
    # catalog switches/sn2201.yaml power.max 98 W, sn4600c.yaml 466 W; a rack carries no capex, so no cost
    assert bom["sn2201"]["power_change"] == {"value": pytest.approx(-98.0), "unit": "W"}
    assert bom["sn4600c"]["power_change"] == {"value": pytest.approx(466.0), "unit": "W"}
    assert bom["sn4600c"]["cost_change"] is None
    assert "dgx-h100" not in bom and "pdu-415v-60a-3ph" not in bom   # unchanged parts stay out


def test_itself_has_no_bom_section(swap):
    base = swap[0]
    code, doc = diff_json(base, base)
    assert code == 0 and doc["bom"] == [] and doc["summary"]["parts_changed"] == 0
    r = run_cli("diff", base, base)
    assert "Bill of materials" not in r.out and "bill of materials" not in r.out and "No differences." in r.out
