"""Serving features a 2025-26 engine turns on are refused at their key as not modelled, not as unknown (newuser60).

Before, `inference.mtp: 3` was "unknown key 'mtp'" with the hint "did you mean 'tp'?" (tensor parallelism, nothing
to do with multi-token prediction), `eplb: true` "did you mean 'ep'?", and `num_speculative_tokens`,
`enable_prefix_caching` or `cuda_graphs` the list of allowed keys with no word of why. Each now says what the
estimate assumes instead (one token a decode step; every prompt prefilled whole; kernels at the in-graph launch cost;
the busiest expert rank under uniform routing) and what to do, at its line; a key naming an existing field under an engine's name
(`kv_cache_dtype`, `wide_ep`) names the field.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.model.inference import Inference
from archgen.model.serving_features import CUDA_GRAPHS, FEATURES, unmodelled_key
from archgen.perf.hw.kernels import KERNEL_OVERHEAD
from archgen.pipeline import run
from tests.conftest import SPECS


def _job(key: str) -> str:
    return ("kind: Workload\nid: w\nname: w\nmodel: deepseek-v3\ncluster: dgx-b200-superpod\naccelerators: 8\n"
            f"inference: {{tp: 8, ep: 8, input_len: 1024, output_len: 128, {key}: 3}}\n")


@pytest.mark.parametrize(("key", "said"), [
    ("mtp", "speculative decoding"), ("num_speculative_tokens", "speculative decoding"),
    ("speculative_config", "speculative decoding"), ("eagle3", "speculative decoding"),
    ("draft_model", "speculative decoding"), ("num_nextn_predict_layers", "speculative decoding"),
    ("enable_prefix_caching", "prefix caching"), ("radix_cache", "prefix caching"),
    ("enable_block_reuse", "prefix caching"), ("cuda_graphs", "CUDA graphs are stated with the field kernel_launch"),
    ("enforce_eager", "CUDA graphs are stated with the field kernel_launch"), ("eplb", "expert load balancing"),
    ("num_redundant_experts", "the field redundant_experts"), ("kv_cache_dtype", "the field kv_precision"),
    ("wide_ep", "ep (expert-parallel ways"), ("input_len_cv", "an input-length spread is not modelled"),
    ("prompt_len_std", "an input-length spread is not modelled")])
def test_an_engine_feature_key_is_refused_at_its_line_with_why(spec_tree, key, said):
    root = spec_tree({"w.yaml": _job(key)})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    text = str(err.value)
    column = len("inference: {tp: 8, ep: 8, input_len: 1024, output_len: 128, ") + len(key) + 3  # at its value
    assert f"w.yaml:7:{column}: error: inference.{key}: " in text
    assert said in text and key in text.split(said, 1)[1]  # names the key to remove or rename
    assert "unknown key" not in text and "did you mean" not in text


def test_an_unrelated_key_stays_unknown_and_fields_are_not_caught():
    assert unmodelled_key("warmup", Inference.model_fields) is None
    assert unmodelled_key("tp", Inference.model_fields) is None


def test_no_field_holds_a_refused_name():
    """A field so named would be exempt itself, but its misspellings would be refused as a feature, not "did you
    mean" it: narrow the rule before adding such a field."""
    names = [n for names, _ in FEATURES for n in names]
    clash = [k for k in Inference.model_fields if any(n in k.casefold() for n in names)]
    assert not clash, f"Inference fields {clash} hold a name serving_features refuses"


def test_every_serving_estimate_says_it_decodes_one_token_a_step(cli):
    """A user comparing the estimate with NVIDIA's DeepSeek-R1 MTP records or an EAGLE-3 run reads, in the estimate
    itself, that a step generates one token: before, nothing in it said speculative decoding was left out."""
    import json
    r = cli("estimate", SPECS, "--workload", "llama3-70b-serve-b200", "--format", "json")
    assert r.code == 0, r.out + r.err
    decoding = json.loads(r.out)["conventions"]["decoding"]
    assert decoding.startswith("one token per sequence a decode step")
    assert "speculative decoding" in decoding and "not modelled" in decoding


def test_a_wide_ep_over_a_rank_count_the_experts_do_not_fill_names_redundant_experts(cli, tmp_path):
    """EP 72 over an NVL72 (as wide-EP deployments run DeepSeek-R1 with EPLB's redundant experts) was refused with
    "ep (72) does not divide the 256 experts" alone; then it said redundant experts are not modelled; now (newuser79)
    it names the redundant_experts that fill the ranks (72 - 256 mod 72 = 32, or 32 + 72) and the largest ep below
    it that divides the experts (64 = 2^6, the largest divisor of 256 under 72)."""
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: w\nname: w\nmodel: deepseek-v3\ncluster: gb200-nvl72-su\naccelerators: 72\n"
        "inference: {precision: fp4, tp: 72, ep: 72, attention_dp: true, input_len: 1024, output_len: 1024}\n",
        encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    text = r.out + r.err
    assert r.code == 2, text
    assert "ep (72) does not divide the 256 experts" in text
    assert "state redundant_experts so that they divide" in text and "e.g. 32 or 104 at ep 72" in text
    assert "such as 64" in text


def test_the_cuda_graphs_refusal_quotes_the_launch_cost_the_model_charges():
    """`model` sits below `perf` (import-linter), so CUDA_GRAPHS writes KERNEL_OVERHEAD's 1.3 us as text: held equal
    here, so a new launch cost cannot leave the refusal quoting the old one."""
    assert f"{KERNEL_OVERHEAD * 1e6:.2g} us (perf/hw/kernels.py KERNEL_OVERHEAD" in CUDA_GRAPHS
