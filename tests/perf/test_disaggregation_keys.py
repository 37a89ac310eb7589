"""Keys and sweep axes that state a disaggregated deployment are refused as not modelled, not as unknown (newuser52).

Only `inference.disaggregated` was refused so (newuser28). An architect who wrote the pools out instead got
`inference.prefill_tp: unknown key 'prefill_tp'` with the hint "did you mean 'prefill'?", whose values (`chunked`,
`separate`) still run prompts and decodes on one replica; `kv_transfer` was answered "did you mean 'kv_reserve'?".
A sweep over the P:D ratio (`pd_ratio`, `prefill_replicas`) was an unknown axis with no word of why. Each is now
refused at its line with the reason: the model runs every request's prefill and decode on the same replica.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.model.engine import DISAGGREGATION_PREFIXES, disaggregation_key
from archgen.model.inference import Inference
from archgen.model.sweep_axes import Axes
from archgen.pipeline import run
from tests.conftest import SPECS

NOT_MODELLED = "disaggregated prefill/decode serving"


def _job(key: str) -> str:
    return ("kind: Workload\nid: w\nname: w\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 16\n"
            f"inference: {{tp: 8, input_len: 1024, output_len: 128, {key}: 8}}\n")


@pytest.mark.parametrize("key", ["prefill_tp", "decode_replicas", "kv_transfer", "disaggregation", "pd_ratio"])
def test_a_pool_key_is_refused_as_disaggregation_at_its_line(spec_tree, key):
    root = spec_tree({"w.yaml": _job(key)})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    text = str(err.value)
    column = len("inference: {tp: 8, input_len: 1024, output_len: 128, ") + len(key) + 3  # at its value, 1-based
    assert f"w.yaml:7:{column}: error: inference.{key}: {NOT_MODELLED}" in text
    assert "is not modelled" in text and f"remove {key}" in text
    assert "unknown key" not in text and "did you mean" not in text


def test_the_fields_themselves_are_not_caught():
    # `prefill` (chunked or separate) is a field of its own; an unrelated unknown key stays an unknown key
    assert disaggregation_key("prefill", Inference.model_fields) is None
    assert disaggregation_key("warmup", Inference.model_fields) is None


@pytest.mark.parametrize("model", [Inference, Axes])
def test_no_field_shares_a_refused_prefix(model):
    """A field so named would be exempt itself, but its misspellings would read as disaggregation, not "did you
    mean" it (review25: the test this replaces checked each field against a rule that exempts every field)."""
    clash = [k for k in model.model_fields if k.casefold().startswith(DISAGGREGATION_PREFIXES) or "disagg" in k]
    assert not clash, f"{model.__name__} fields {clash} share a prefix disaggregation_key refuses: narrow the rule"


SWEEP = """kind: Sweep
id: pd
workload: llama3-70b-serve-b200
axes:
  {axis}: [1, 2, 4]
objectives:
  - {{metric: tokens_per_second_per_gpu}}
"""


@pytest.mark.parametrize("axis", ["pd_ratio", "prefill_replicas"])
def test_a_p_to_d_sweep_axis_is_refused_as_disaggregation(cli, tmp_path, axis):
    path = tmp_path / "pd.yaml"
    path.write_text(SWEEP.format(axis=axis), encoding="utf-8")
    r = cli("sweep", path, "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 1, r.out + r.err
    text = r.out + r.err
    assert f"pd.yaml:5:3: error: axes.{axis}: {NOT_MODELLED}" in text
    assert "unknown key" not in text



def test_a_pool_key_and_a_serving_feature_are_refused_in_one_run(spec_tree):
    # newuser79: `disaggregated` beside `mtp` (a wide-EP DeepSeek-R1 deployment states both) read only the first;
    # `mtp` and `num_redundant_experts` were said once `disaggregated` was gone, a second run
    job = _job("disaggregated").replace(": 8}", ": true, mtp: 3, num_redundant_experts: 32}")
    root = spec_tree({"w.yaml": job})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    text = str(err.value)
    assert f"inference.disaggregated: {NOT_MODELLED}" in text
    assert "inference.mtp: speculative decoding" in text
    assert "inference.num_redundant_experts: redundant expert copies are the field redundant_experts" in text
