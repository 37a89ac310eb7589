"""`archgen estimate --cases --explain` names the serving fields a case left to their defaults (newuser45).

Dell's MLPerf v5.1 H200 rows left `ffn_activation` out, so they were scored with the default `separate` kernel where
the engines their configs build run it in the GEMM epilogue (gemm_swiglu_plugin 'fp8'); nothing in the output said a
default was taken. Training cases had their switches' origins under --explain; serving cases had nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli

HELD = Path(__file__).resolve().parent / "data" / "heldout-v5.yaml"


def _line(text: str, case: str) -> str:
    head = text.split("Serving fields per case left to their defaults")[1]
    return next(ln for ln in head.splitlines() if ln.startswith(f"  {case}:"))


def test_explain_names_each_serving_default_taken():
    text = run_cli("estimate", "--cases", str(HELD), "--explain").out
    lenovo = _line(text, "ho-mlperf51-llama2-70b-offline-8xb200-lenovo")
    assert "ffn_activation=separate" in lenovo and "prefill=chunked" in lenovo and "max_batch_size=2048" in lenovo
    assert "kv_precision" not in lenovo and "output_len_cv" not in lenovo  # both stated
    assert "ffn_activation" not in _line(text, "ho-mlperf51-llama2-70b-offline-8xh200-nebius")  # stated: fused
    assert "ho-t51-llama31-8b-8xb200-uf-n1" not in text.split("Serving fields per case")[1]  # training: switches


def test_explain_json_carries_the_defaults_on_serving_rows(tmp_path):
    source = HELD.read_text(encoding="utf-8").replace(", output_len_cv: 0.79, scenario: offline}",
                                                       ", scenario: offline}", 1)
    (tmp_path / "cases.yaml").write_text(source, encoding="utf-8")
    rows = json.loads(run_cli("estimate", "--cases", str(tmp_path / "cases.yaml"), "--explain", "--format",
                              "json").out)
    lenovo = next(r for r in rows if r["id"] == "ho-mlperf51-llama2-70b-offline-8xb200-lenovo")
    assert lenovo["defaults"]["output_len_cv"] == "none"   # "not stated: all outputs of one length", the workload's
    assert lenovo["defaults"]["ffn_activation"] == "separate"
    server = next(r for r in rows if r["id"] == "ho-mlperf51-llama2-70b-server-8xb200-lenovo")
    assert "output_len_cv" not in server["defaults"]  # a simulated run gives every request one length
    assert all("defaults" not in r for r in rows if r["id"].startswith("ho-t51-"))
