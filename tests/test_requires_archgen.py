"""A spec's `requires_archgen: '>=X.Y.Z'` (nu65fix; newuser65 found no version key): an older archgen refuses it.

A spec written for a newer archgen, read by an older one, would take the older one's defaults silently (the training
stack moved twice in 0.1.0 alone, docs/upgrading.md). The key is taken off before validation (`migrate.required`);
where the running archgen is older the document is refused at the key's line with both versions, exit 1 as any spec
error. A spec stating an older archgen than the running one gets SPC005 (pr27), an info naming the defaults moved
since (`model.moved.MOVED`) that it leaves unstated; every move so far is inside 0.1.0, so the tests state 0.0.1 or
register a move of a later release.
"""

from __future__ import annotations

import json
from functools import partial

import jsonschema
import pytest

from archgen import __version__
from archgen.schema import schemas
from tests.conftest import SPECS, run_cli

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
    """Each kind's schema is checked against its metaschema once, then both instances validated by one validator
    (what `jsonschema.validate` does for each call: its metaschema check was most of this test's 3 CPU-s)."""
    for kind, schema in schemas().items():
        loose = {**schema, "required": []}
        cls = jsonschema.validators.validator_for(loose)
        cls.check_schema(loose)
        validator = cls(loose)
        validator.validate({"requires_archgen": ">=0.1.0"})
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({"requires_archgen": "0.1.0"}), kind


def test_the_spec_reference_states_the_key():
    """docs/spec-reference.md is generated from the models, which do not declare the key (review32: it was absent)."""
    from archgen.docs import spec_page
    page = spec_page()
    assert '`requires_archgen: ">=X.Y.Z"`' in page and "docs/upgrading.md" in page


# --- SPC005: the defaults moved since the version a spec states (pr27) --------------------------------------------

#: The shipped Llama 3.1 70B pre-training job on DGX B200 (an NVIDIA part), which states no `training.stack`.
PRETRAIN = (SPECS / "workloads" / "llama3-70b.yaml").read_text(encoding="utf-8").split("\n---\n")[0]
MEGATRON_TO_NEMO = ("`training.stack` (every training job): megatron-core-2024 → nemo-2025 in 0.1.0 (ad7ab32d, "
                    "2026-12-02)")


def _workload(tmp_path, first_line: str, text: str = PRETRAIN):
    path = tmp_path / "w.yaml"
    path.write_text(first_line + "\n" + text + "\n", encoding="utf-8")
    cluster = SPECS / "clusters" / "dgx-b200-superpod.yaml"     # the job's cluster: its estimate names the maker
    r = run_cli("check", str(path), str(cluster), "--select", "SPC005", "--format", "json")
    return r, [f for f in json.loads(r.out)["findings"] if f["id"] == "SPC005"]


def test_a_spec_for_an_older_archgen_names_the_defaults_moved_since_that_it_leaves_out(tmp_path):
    r, [found] = _workload(tmp_path, 'requires_archgen: ">=0.0.1"')
    assert r.code == 0 and (found["severity"], found["line"], found["column"]) == ("info", 1, 19)
    assert found["object"] == "workload/llama3-70b-pretrain-b200"
    assert found["message"] == (f"written for archgen 0.0.1 (requires_archgen), read by {__version__}: 1 default(s) "
                                "moved since that this document leaves unstated, so they now mean something else: "
                                + MEGATRON_TO_NEMO)                  # AMD's primus-2025 move is not for a B200 job
    assert "raise requires_archgen to" in found["hint"]


@pytest.mark.parametrize("first_line, text", [
    ('requires_archgen: ">=0.0.1"', PRETRAIN.replace("  precision: bf16\n", "  precision: bf16\n  stack: nemo-2025\n")),
    (f'requires_archgen: ">={__version__}"', PRETRAIN),      # every move so far is in 0.1.0 itself
    ("# no requires_archgen", PRETRAIN),
], ids=["stack stated", "this version", "no key"])
def test_no_spc005_where_the_default_is_stated_or_no_older_version_is(tmp_path, first_line, text):
    assert "stack: nemo-2025" in text or text == PRETRAIN
    r, found = _workload(tmp_path, first_line, text)
    assert r.code == 0 and found == []


def _run_spc005(tmp_path, monkeypatch, first_line: str, vendor: str, version: str) -> list:
    """SPC005 of the job stating `first_line`, estimated on a part of `vendor`, read by archgen `version`."""
    from archgen.checks.registry import _moved_defaults
    from archgen.load import load_paths
    from archgen.validate import validate
    path = tmp_path / "w.yaml"
    path.write_text(first_line + "\n" + PRETRAIN + "\n", encoding="utf-8")
    from archgen import migrate
    monkeypatch.setattr("archgen.validate.required", partial(migrate.required, version=version))   # archgen `version`
    specs = validate(load_paths([path]))
    return list(_moved_defaults(specs, {"workload/llama3-70b-pretrain-b200": vendor}, version))


def test_a_move_for_one_makers_parts_is_named_on_that_makers_job_only(tmp_path, monkeypatch):
    [amd] = _run_spc005(tmp_path, monkeypatch, 'requires_archgen: ">=0.0.1"', "AMD", __version__)
    assert amd.message.endswith(MEGATRON_TO_NEMO + "; `training.stack` (jobs on an AMD part): nemo-2025 → "
                                                   "primus-2025 in 0.1.0 (4aaec912, 2026-12-05)")


def test_a_later_release_lists_only_the_moves_after_the_stated_one(tmp_path, monkeypatch):
    """A move of 0.2.0, read by 0.2.0: a spec for 0.1.0 gets it alone; one for 0.2.0 gets none."""
    from archgen.model import moved
    later = moved.Moved("Workload", "training.stack", "every training job", "nemo-2025", "nemo-2026", "0.2.0",
                        "0000000", "2027-01-01")
    monkeypatch.setattr(moved, "MOVED", (*moved.MOVED, later))
    [found] = _run_spc005(tmp_path, monkeypatch, 'requires_archgen: ">=0.1.0"', "NVIDIA", "0.2.0")
    assert found.message.endswith("1 default(s) moved since that this document leaves unstated, so they now mean "
                                  "something else: " + later.text)
    assert _run_spc005(tmp_path, monkeypatch, 'requires_archgen: ">=0.2.0"', "NVIDIA", "0.2.0") == []
