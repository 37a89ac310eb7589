"""`archgen diff --pair BASE_ID=HEAD_ID`: a vendor's proposal against the reference where the vendor names its own ids.

newuser84 (an ODM answering a GB300 NVL72 RFQ) compared the reference with its proposal: every object of the
proposal, renamed `odm-…`, was added and every reference object removed, and the requirements read "absent" on the
proposal's side, so no figure was ever set beside the reference's. A pair sets the two objects side by side.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.compare.pairs import parse_pairs, renamer
from archgen.errors import UsageError
from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
# specs/racks/dgx-h100-4.yaml: 4 x dgx-h100 (10.2 kW each) + 1 x sn2201 (98 W) = 40.898 kW; five systems 51.098 kW
FIVE = RACK.replace("part: dgx-h100, count: 4", "part: dgx-h100, count: 5").replace("id: dgx-h100-4", "id: odm-h100-5")


def _sides(tmp_path: Path) -> tuple[Path, Path]:
    assert "id: odm-h100-5" in FIVE and "count: 5" in FIVE
    return (write_tree(tmp_path / "base", {"rack.yaml": RACK}), write_tree(tmp_path / "head", {"rack.yaml": FIVE}))


def _json(*args) -> dict:
    r = run_cli("diff", *args, "--format", "json")
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


def test_without_a_pair_the_renamed_rack_is_added_and_removed(tmp_path):
    doc = _json(*_sides(tmp_path))
    assert doc["objects"] == {"added": ["rack/odm-h100-5"], "removed": ["rack/dgx-h100-4"]}
    assert doc["requirements"] and all(None in (r["base"], r["head"]) for r in doc["requirements"])


def test_a_pair_sets_the_vendors_rack_beside_the_reference(tmp_path):
    doc = _json(*_sides(tmp_path), "--pair", "dgx-h100-4=odm-h100-5")
    assert doc["objects"] == {"added": [], "removed": []}
    it = next(m for m in doc["metrics"] if (m["object"], m["metric"]) == ("rack/dgx-h100-4", "it_power"))
    assert (it["base"]["value"], it["head"]["value"]) == (40_898.0, 51_098.0)   # W: one more 10.2 kW system
    assert doc["pairs"] == [{"base": "dgx-h100-4", "head": "odm-h100-5"}]
    assert all(r["base"] and r["head"] for r in doc["requirements"])    # the rack's own, judged on both sides


def test_the_markdown_names_the_pair(tmp_path):
    r = run_cli("diff", *_sides(tmp_path), "--pair", "dgx-h100-4=odm-h100-5")
    assert "Paired (BASE = HEAD): `dgx-h100-4` = `odm-h100-5`" in r.out
    assert "rack/odm-h100-5" not in r.out.split("Paired")[0]


def test_an_unknown_id_names_the_known_ones(tmp_path):
    base, head = _sides(tmp_path)
    r = run_cli("diff", base, head, "--pair", "dgx-h100-4=odm-h100-4")
    assert r.code == 2 and "Traceback" not in r.err
    assert "--pair dgx-h100-4=odm-h100-4: HEAD has no object 'odm-h100-4'" in r.err and "odm-h100-5" in r.err
    r = run_cli("diff", base, head, "--pair", "gb300=odm-h100-5")
    assert r.code == 2 and "BASE has no object 'gb300'" in r.err and "dgx-h100-4" in r.err


def test_a_pair_without_an_equals_sign_is_refused(tmp_path):
    r = run_cli("diff", *_sides(tmp_path), "--pair", "dgx-h100-4")
    assert r.code == 2 and "expected BASE_ID=HEAD_ID" in r.err


def test_an_object_path_given_for_an_id_is_named_so():
    """newuser101: `--pair rack/gb200-nvl72=rack/acme-nvl72`, object paths as the reports print them, met "has no
    object" and a list of every id of the reference (180, its catalog's parts too)."""
    with pytest.raises(UsageError) as got:
        renamer(parse_pairs(["rack/dgx-h100-4=rack/odm-h100-5"]), ["rack/dgx-h100-4"], ["rack/odm-h100-5"])
    assert str(got.value) == ("--pair rack/dgx-h100-4=rack/odm-h100-5: 'rack/dgx-h100-4' is an object path; a pair "
                              "names ids: 'dgx-h100-4'")
