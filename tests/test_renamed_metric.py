"""A renamed metric keeps its old name working: `tflops_per_gpu` is `model_flops_per_gpu` (lo23cli).

The metric held FLOP/s (SI, as every JSON quantity: its value for llama3-70b on B200 is about 1.3e15) while its name
said TFLOP/s. Renamed as a check keeps its old ID (STYLE.md) and a spec key its old name (SPC003): a requirement or
objective that names the old one is read as the new one with a located SPC003 warning, the JSON outputs give the
value under both names, `Estimate.metrics["tflops_per_gpu"]` reads it with a DeprecationWarning, and a validation
case still measures `tflops_per_gpu` (the case format's name).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from archgen.load import load_paths
from archgen.metric import RENAMED
from archgen.metrics import find
from archgen.output.envelope import with_old_names
from archgen.perf.workload.estimate_result import Estimate
from archgen.units import Q_
from archgen.validate import validate
from tests.conftest import SPECS, run_cli

WORKLOAD = """\
kind: Workload
id: w
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training:
  seq_len: 8192
  global_batch: 512
  precision: bf16
requirements:
  - {{id: REQ-A, statement: Model FLOP/s, metric: {metric}, target: ">= 1 TFLOP/s"}}
"""


def _write(tmp_path: Path, metric: str) -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD.format(metric=metric), encoding="utf-8")
    return path


def test_the_registry_has_the_new_name_only():
    assert RENAMED["tflops_per_gpu"] == ("model_flops_per_gpu", "0.1.0")
    for old, (new, _) in RENAMED.items():   # each old name gone from the registry, its new one there
        assert find("workload", old) is None and find("workload", new) is not None, old
    assert find("workload", "model_flops_per_gpu").dimension == "FLOPS"


def test_a_requirement_on_the_old_name_is_read_as_the_new_with_a_located_warning(tmp_path):
    path = _write(tmp_path, "tflops_per_gpu")
    specs = validate(load_paths([path]))
    assert specs.get("w").requirements[0].metric == "model_flops_per_gpu"
    [notice] = specs.renamed
    assert (str(notice.location), notice.old, notice.new) == (f"{path}:11:50", "tflops_per_gpu", "model_flops_per_gpu")
    assert notice.text == ("metric 'tflops_per_gpu' was renamed 'model_flops_per_gpu' in 0.1.0; the old name still "
                           "works, for now")
    assert validate(load_paths([_write(tmp_path, "model_flops_per_gpu")])).renamed == ()


def test_json_gives_the_value_under_both_names_and_judges_the_old_name_as_the_new(tmp_path):
    r = run_cli("estimate", SPECS, _write(tmp_path, "tflops_per_gpu"), "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    new, old = out["metrics"]["model_flops_per_gpu"], out["metrics"]["tflops_per_gpu"]
    assert new == old and new["unit"] == "FLOP/s" and 1e14 < new["value"] < 1e16   # FLOP/s, not TFLOP/s
    assert list(out["metrics"]).index("tflops_per_gpu") == list(out["metrics"]).index("model_flops_per_gpu") + 1
    assert [(q["id"], q["metric"], q["met"]) for q in out["requirements"]] == [("REQ-A", "model_flops_per_gpu", True)]


def test_with_old_names_adds_the_old_key_next_to_the_new():
    assert list(with_old_names({"mfu": 1, "model_flops_per_gpu": 2, "step_time": 3})) == [
        "mfu", "model_flops_per_gpu", "tflops_per_gpu", "step_time"]
    assert with_old_names({"mfu": 1}) == {"mfu": 1}


def test_the_python_api_reads_the_old_name_with_a_deprecation_warning():
    est = Estimate("w", "training", "b200", 8, {}, {"model_flops_per_gpu": Q_(1.3e15, "FLOPS")}, {}, {}, True)
    with pytest.warns(DeprecationWarning, match="'tflops_per_gpu' was renamed 'model_flops_per_gpu'"):
        assert math.isclose(est.metrics["tflops_per_gpu"].m_as("TFLOPS"), 1300)
    with pytest.raises(KeyError):
        est.metrics["tflops"]


def test_get_reads_the_old_name_as_indexing_does():
    # review23: `est.metrics.get("tflops_per_gpu")` answered None while `["tflops_per_gpu"]` gave the value
    est = Estimate("w", "training", "b200", 8, {}, {"model_flops_per_gpu": Q_(1.3e15, "FLOPS")}, {}, {}, True)
    with pytest.warns(DeprecationWarning, match="'tflops_per_gpu' was renamed") as caught:
        assert math.isclose(est.metrics.get("tflops_per_gpu").m_as("TFLOPS"), 1300)
    assert caught[0].filename == __file__   # the warning points at the caller
    assert est.metrics.get("tflops") is None and est.metrics.get("tflops", 0) == 0


def test_a_loaded_document_with_nothing_to_migrate_is_searched_once_while_the_renamed_metrics_hold(tmp_path,
                                                                                                   monkeypatch):
    """`migrate.UNMOVED`: a loaded document with no old metric name is walked once a process, the same document
    given back after; once the renamed metrics change it is searched again, and the old name found; a changed file
    is a new document, migrated afresh."""
    from archgen import migrate as m

    walked: list[object] = []   # the documents' data walked (not the walk's own recursion)
    walk = m._metric_values

    def counted(node, at=()):  # type: ignore[no-untyped-def]
        if not at:
            walked.append(node)
        return walk(node, at)
    monkeypatch.setattr(m, "_metric_values", counted)
    path = _write(tmp_path, "model_flops_per_gpu")
    (doc,) = load_paths([path])
    assert m.migrate(doc) == (doc, [], []) and len(walked) == 1
    (again,) = load_paths([path])
    assert again is doc and m.migrate(again) == (doc, [], []) and len(walked) == 1   # not walked again
    monkeypatch.setitem(RENAMED, "model_flops_per_gpu", ("tflops_per_gpu_2", "0.2.0"))
    moved, notices, _ = m.migrate(doc)
    assert len(walked) > 1 and [n.old for n in notices] == ["model_flops_per_gpu"]
    assert moved.data["requirements"][0]["metric"] == "tflops_per_gpu_2"
    monkeypatch.delitem(RENAMED, "model_flops_per_gpu")
    (changed,) = load_paths([_write(tmp_path, "tflops_per_gpu")])
    assert changed is not doc and [n.old for n in m.migrate(changed)[1]] == ["tflops_per_gpu"]
