"""A spec's `requires_archgen: '>=X.Y.Z'` (nu65fix; newuser65 found no version key): an older archgen refuses it.

A spec written for a newer archgen, read by an older one, would take the older one's defaults silently (the training
stack moved twice in 0.1.0 alone, docs/upgrading.md). The key is taken off before validation (`migrate.required`);
where the running archgen is older the document is refused at the key's line with both versions, exit 1 as any spec
error. The info naming the defaults moved since a spec's version is designed in docs/upgrading.md, not built: every
move so far is inside 0.1.0, so no version tells them apart.
"""

from __future__ import annotations

import jsonschema
import pytest

from archgen import __version__
from archgen.schema import schemas
from tests.conftest import run_cli

SWITCH = """kind: Switch
id: sw8
name: Eight-port test switch
source: test fixture (not a real part)
technology: infiniband
ports: {count: 8, speed: 400 Gbit/s}
mechanical: {height: 1 U, weight: 5 kg}
power: {max: 100 W}
"""


def _check(tmp_path, first_line: str):
    (tmp_path / "sw.yaml").write_text(first_line + "\n" + SWITCH, encoding="utf-8")
    return run_cli("check", str(tmp_path))


def test_a_spec_for_a_newer_archgen_is_refused_at_the_key(tmp_path):
    result = _check(tmp_path, 'requires_archgen: ">=99.0.0"')
    assert result.code == 1
    assert "sw.yaml:1:19: error: requires_archgen: this spec requires archgen 99.0.0 or later; this is archgen " \
           f"{__version__}" in result.out + result.err


@pytest.mark.parametrize("value", [f'">={__version__}"', '">= 0.0.1"'])
def test_a_spec_this_archgen_meets_is_read_as_without_the_key(tmp_path, value):
    with_key = _check(tmp_path, f"requires_archgen: {value}")
    without = _check(tmp_path, "# no requires_archgen")
    assert with_key.code == without.code == 0
    assert with_key.out == without.out


@pytest.mark.parametrize("value", ["0.1.0", '"~=0.1"', '"<0.2.0"', "1", '">=0.1"'])
def test_anything_but_at_least_a_release_is_refused_with_the_form(tmp_path, value):
    result = _check(tmp_path, f"requires_archgen: {value}")
    assert result.code == 1
    assert "requires_archgen: not a version requirement: expected '>=X.Y.Z' (quoted)" in result.out + result.err


def test_the_json_schema_lets_every_kind_state_it():
    for kind, schema in schemas().items():
        jsonschema.validate({"requires_archgen": ">=0.1.0"}, {**schema, "required": []})
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"requires_archgen": "0.1.0"}, {**schema, "required": []}), kind


def test_the_spec_reference_states_the_key():
    """docs/spec-reference.md is generated from the models, which do not declare the key (review32: it was absent)."""
    from archgen.docs import spec_page
    page = spec_page()
    assert '`requires_archgen: ">=X.Y.Z"`' in page and "docs/upgrading.md" in page
