"""A finding's hint (what to write instead) reaches every `check` format, not JSON alone (newuser57).

An upgrading team's CI runs `archgen check --format sarif` (GitHub code scanning) or `--format github`: before, an
old spec's unknown key there read "unknown key 'schema_version'" without the allowed keys, and a renamed metric's
SPC003 without its "write 'model_flops_per_gpu' instead" in text, SARIF and the annotations, while JSON had both.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli

WORKLOAD = """\
kind: Workload
{extra}id: w
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference:
  precision: fp8
  tp: 8
  input_len: 128
  output_len: 128
requirements:
  - {{id: REQ-A, statement: FLOP/s, metric: {metric}, target: "{target}"}}
"""

ALLOWED = ("hint: allowed keys: accelerators, checkpoint, cluster, collective, dataset, description, id, inference, kind, "
           "model, name, placement, requirements, training, waivers")


def _write(tmp_path: Path, extra: str = "", metric: str = "tpot", target: str = "<= 1 s") -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD.format(extra=extra, metric=metric, target=target), encoding="utf-8")
    return path


def test_sarif_and_github_carry_an_unknown_keys_hint(tmp_path):
    path = _write(tmp_path, extra="schema_version: 1\n")
    sarif = json.loads(run_cli("check", path, "--format", "sarif").out)
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "SPC001"]
    assert result["message"]["text"] == f"schema_version: unknown key 'schema_version'\n{ALLOWED}"
    github = run_cli("check", path, "--format", "github").out
    assert f"::schema_version: unknown key 'schema_version'%0A{ALLOWED}" in github


def test_a_renamed_metrics_hint_in_text_and_sarif(tmp_path):
    path = _write(tmp_path, metric="tflops_per_gpu", target=">= 1 TFLOP/s")
    hint = "hint: write 'model_flops_per_gpu' instead of 'tflops_per_gpu'"
    text = run_cli("check", path, "--select", "SPC003").out
    assert (f"w.yaml:12:44: warning: SPC003 workload/w: metric 'tflops_per_gpu' was renamed 'model_flops_per_gpu' "
            f"in 0.1.0; the old name still works, for now\n  {hint}\n") in text
    sarif = json.loads(run_cli("check", path, "--select", "SPC003", "--format", "sarif").out)
    [result] = sarif["runs"][0]["results"]
    assert result["message"]["text"].endswith(f"the old name still works, for now\n{hint}")
