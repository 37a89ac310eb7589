"""A minimal user-written document of every kind checks and renders: every default goes through the spec parser.

Regression (issue 11, item 2): an Accelerator whose `scale_up` omitted `latency` passed `check` and crashed `render`,
because pydantic leaves defaults unvalidated and the default "1.9 us" stayed a string.
"""

from __future__ import annotations

from pathlib import Path

import pint
import pytest

from archgen.load import load_paths
from archgen.model import KINDS
from archgen.validate import validate
from tests.conftest import run_cli

MINIMAL = Path(__file__).parent.parent / "data" / "minimal" / "all-kinds.yaml"


def test_the_file_holds_every_kind():
    kinds = {d.data["kind"] for d in load_paths([MINIMAL])}
    assert kinds == set(KINDS)


def test_defaults_are_parsed_quantities():
    specs = validate(load_paths([MINIMAL]))
    latency = specs.get("acc").scale_up.latency
    assert isinstance(latency, pint.Quantity)
    assert latency.m_as("us") == pytest.approx(1.9)


def test_check_and_render_every_kind(tmp_path):
    assert run_cli("check", MINIMAL).code == 0
    out = tmp_path / "out"
    result = run_cli("render", MINIMAL, "--out", out, "--formats", "md,html,csv,svg")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    for target in ("c", "r", "lr"):
        assert (out / target / f"{target}.md").is_file()
        assert (out / target / f"{target}.html").is_file()
        assert list((out / target).glob("*.svg"))
        assert list((out / target).glob("*.csv"))
