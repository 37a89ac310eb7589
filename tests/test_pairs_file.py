"""`--pairs FILE`: several id pairs kept in one file, for `diff` (BASE: HEAD) and `gap --reference` (REFERENCE: PROPOSAL).

nu84fix left pairs to repeated `--pair` flags: an RFQ round with a vendor that renamed every rack and cluster wrote
them out on every run. A file holds one mapping, `pairs:`, read before any `--pair`; its mistakes are usage errors
at file:line:column.
"""

from __future__ import annotations

import json

import pytest

from archgen.compare.pairs import read_pairs
from archgen.errors import UsageError
from tests.conftest import run_cli
from tests.test_diff_pairs import _sides
from tests.test_gap import PROPOSAL, REQUIREMENTS
from tests.test_gap_reference import _renamed


def test_a_pairs_file_pairs_as_the_flags_do(tmp_path):
    pairs = tmp_path / "pairs.yaml"
    pairs.write_text("# ours: the vendor's\npairs:\n  dgx-h100-4: odm-h100-5\n", encoding="utf-8")
    r = run_cli("diff", *_sides(tmp_path), "--pairs", pairs, "--format", "json")
    assert r.code in (0, 1), r.err
    doc = json.loads(r.out)
    assert doc["pairs"] == [{"base": "dgx-h100-4", "head": "odm-h100-5"}]
    assert doc["objects"] == {"added": [], "removed": []}


def test_gap_reads_one_too(tmp_path):
    pairs = tmp_path / "pairs.yaml"
    pairs.write_text("pairs: {acme-r4: odm-r4}\n", encoding="utf-8")
    r = run_cli("gap", _renamed(tmp_path / "p"), "--against", REQUIREMENTS, "--reference", PROPOSAL,
                "--pairs", pairs)
    assert "| 31.5 kW | 42 kW | -10.5 kW (-25.0 %), better |" in r.out


def test_several_pairs_in_the_files_order(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("pairs:\n  gb300-nvl72: odm-gb300-nvl72\n  gb300-nvl72-su: odm-su\n", encoding="utf-8")
    assert read_pairs(f) == ["gb300-nvl72=odm-gb300-nvl72", "gb300-nvl72-su=odm-su"]


@pytest.mark.parametrize(("text", "where", "said"), [
    ("pair:\n  a: b\n", ":1:1", "got key(s) pair"),
    ("pairs: [a, b]\n", ":1:8", "expected a mapping 'pairs:' of BASE_ID to HEAD_ID"),
    ("pairs:\n  a: b\n  c: [d]\n", ":3:6", "an id on each side"),
    ("pairs:\n  a: b\n  a: c\n", ":3:3", "BASE_ID 'a' is paired twice"),
    ("pairs: {a: b\n", ":2:1", "not YAML"),
])
def test_a_wrong_file_is_a_located_usage_error(tmp_path, text, where, said):
    f = tmp_path / "p.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as e:
        read_pairs(f)
    assert e.value.report().startswith(f"{f}{where}: error: --pairs") and said in str(e.value)


def test_the_cli_reports_it_without_a_traceback(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("pairs:\n  a: b\n  a: c\n", encoding="utf-8")
    r = run_cli("diff", *_sides(tmp_path), "--pairs", f)
    assert r.code == 2 and "Traceback" not in r.err and "p.yaml:3:3: error: --pairs: BASE_ID 'a'" in r.err
