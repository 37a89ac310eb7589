"""Markdown and HTML of the shipped examples match their golden files (`make golden` regenerates them)."""

from __future__ import annotations

import pytest

from tests.render.golden_util import GOLDEN, render_golden_fresh

pytestmark = pytest.mark.slow


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
