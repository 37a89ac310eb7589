"""Markdown and HTML of the shipped examples match their golden files (`make golden` regenerates them)."""

from __future__ import annotations

import pytest

from tests.render.golden_util import GOLDEN, render_golden_fresh


@pytest.fixture(scope="module")
def rendered():
    return render_golden_fresh()


def test_golden_set_is_complete(rendered):
    expected = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())
    assert sorted(rendered) == expected, "targets changed: run `make golden` and review the diff"


@pytest.mark.parametrize("rel", sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*")
                                       if p.is_file()) if GOLDEN.exists() else [])
def test_matches_golden(rendered, rel):
    assert rendered.get(rel) == (GOLDEN / rel).read_text(encoding="utf-8"), \
        f"{rel} differs from its golden file: run `make golden` and review the diff"


#: Internal references and wording that must not reach a partner (issue 11, item 9: "anchors note section 2.2").
INTERNAL = ("anchors note", "research note", "stored source", "model gap", "catalog-audit", "../shared", "/work/",
            "/home/", "/tmp/")


def test_documents_carry_no_internal_notes_or_machine_paths(rendered):
    for rel, text in rendered.items():
        lowered = text.lower()
        assert not [w for w in INTERNAL if w in lowered], rel


def test_documents_rendered_from_absolute_paths_show_relative_ones(tmp_path, monkeypatch):
    """A render from elsewhere with absolute spec paths (as CI does) shows the spec files relative to the working
    directory and the shipped catalog as catalog/..., never the machine's absolute paths."""
    from archgen.pipeline import run
    from archgen.render import render_all
    from tests.render.golden_util import REPO

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    render_all(run([REPO / "specs" / "racks"]), out, target="dgx-h100-4",
               formats=("md",), revision="test", progress=False)
    text = (out / "dgx-h100-4" / "dgx-h100-4.md").read_text()
    assert str(REPO) not in text and "/tmp/" not in text
    assert "| catalog/systems/dgx-h100.yaml:" in text                 # the CAT001 waiver's location
