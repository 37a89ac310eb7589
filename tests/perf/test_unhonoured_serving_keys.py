"""Serving settings that change nothing in the estimate are refused at their line, saying why (nu52fix).

newuser52: `prefill: separate` under the offline scenario and `quantised_attention: output` at `precision: bf16`
were accepted and changed nothing, with no word in the output (only the spec reference said the offline form runs
prompts as passes of their own). A key that is not honoured must not read as one that is: each is now refused at its
line. A validation case keeps them, as it records the engine's settings of a published run (AMD's offline vLLM 0.x
rows state `prefill: separate`), and a server job without an arrival_rate, whose points a sweep's `arrival_rate`
axis may simulate, has its `prefill: separate` noted in the estimate instead.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.model.cases import CaseInference
from archgen.model.engine import OFFLINE_PREFILL
from archgen.model.inference import Inference
from archgen.perf.serve.attention_quant import UNQUANTISED_DTYPE, attention_dtypes
from archgen.perf.serve.inference import weights_per_gpu
from archgen.pipeline import run
from tests.conftest import SPECS
from tests.perf.test_colocation import _arch


def _job(inference: str) -> str:
    return ("kind: Workload\nid: w\nname: w\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 8\n"
            f"inference: {{tp: 8, input_len: 1024, output_len: 128, {inference}}}\n")


@pytest.mark.parametrize(("inference", "key", "why"), [
    ("precision: fp8, prefill: separate", "prefill", OFFLINE_PREFILL),
    ("precision: fp8, scenario: offline, prefill: separate", "prefill", OFFLINE_PREFILL),
    ("precision: bf16, quantised_attention: output", "quantised_attention",
     "quantised_attention 'output' changes nothing at precision bf16"),
    ("precision: bf16, quantised_attention: none", "quantised_attention",
     "quantised_attention 'none' changes nothing at precision bf16"),
])
def test_a_setting_that_changes_nothing_is_refused_at_its_line(spec_tree, inference, key, why):
    root = spec_tree({"w.yaml": _job(inference)})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    column = len("inference: {tp: 8, input_len: 1024, output_len: 128, ") + inference.index(f"{key}:") + len(key) + 3
    assert f"w.yaml:7:{column}: error: inference.{key}: {why}" in str(err.value)


def test_what_is_refused_changes_nothing_in_the_model():
    """At bf16 every attention projection is BF16 whatever `quantised_attention` says: the same dtypes and weights."""
    arch = _arch("llama3-70b")
    assert UNQUANTISED_DTYPE == "bf16"
    assert {q: attention_dtypes(arch, "bf16", q) for q in ("all", "output", "none")} == \
        dict.fromkeys(("all", "output", "none"), ["bf16"] * len(arch.attn_gemms(1)))
    assert len({float(weights_per_gpu(arch, "bf16", 8, quantised_attention=q)) for q in ("all", "output", "none")}) == 1
    assert len({float(weights_per_gpu(arch, "fp8", 8, quantised_attention=q)) for q in ("all", "none")}) == 2


@pytest.mark.parametrize("inference", [
    {"scenario": "concurrency", "batch": 8, "prefill": "separate"},            # a simulated run reads it
    {"scenario": "server", "arrival_rate": "2 1/s", "prefill": "separate"},
    {"scenario": "server", "prefill": "separate"},                            # noted: a sweep may give a rate
    {"precision": "fp8", "quantised_attention": "output"},
    {"precision": "fp4", "quantised_attention": "none"},
])
def test_where_it_is_read_it_stays_accepted(inference):
    Inference.model_validate({"input_len": 1024, "output_len": 128, **inference})


def test_a_validation_case_records_the_engine_as_its_run_stated_it():
    CaseInference.model_validate({"precision": "fp8", "tp": 1, "batch": "max", "input_len": 222, "output_len": 301,
                                  "prefill": "separate", "scenario": "offline"})


def test_a_server_job_without_a_rate_notes_that_separate_changes_nothing(cli, tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(_job("precision: fp8, scenario: server, prefill: separate").replace("id: w\n", "id: w-srv\n"),
                    encoding="utf-8")
    r = cli("estimate", str(SPECS), str(path), "--workload", "w-srv")
    assert r.code == 0, r.err
    assert "prefill 'separate' changes nothing in them" in r.out
