"""A search says what it held without searching (newuser38).

A 600B-A40B MoE on 16,128 GB300 that leaves `ep` out was estimated at ep 1 (every expert on every rank: 4.96 s a
step, MFU 2.2 %) while `--search-plan` found 0.70 s at ep 16, cp 4, and the estimate's note said only "layout
searched". The plan search in turn listed the switches it searched and those stated, and left the rest (the MoE
dispatcher, CUDA graphs, the FP8 recipe, ...) unsaid, though the docs say it varies every switch the stack can run.
Each now names what it held: the estimate's layout search cp; the plan search every switch it took from the stack
profile (text, and JSON `plan.not_searched`). Since layout28 the layout search varies an MoE model's ep itself, and
since etp39 its etp where the stack folds the experts (`layouts.expert_layouts`), so neither is held there.
"""

from __future__ import annotations

import json

import pytest

from archgen.model.switches import SWITCHES
from tests.conftest import SPECS
from tests.data.workloads import training_workload

HELD = "; cp 1 held, not searched"


def _write(tmp_path, parallelism: str = "{}", model: str = "qwen3-30b-a3b") -> None:
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", model, 64, parallelism, seq_len=4096, global_batch=256, precision="bf16", stack="nemo-2025"),
        encoding="utf-8")


@pytest.mark.parametrize(("model", "parallelism", "held"), [
    ("qwen3-30b-a3b", "{}", True),               # MoE, cp left out: held, and said (ep and etp searched)
    ("qwen3-30b-a3b", "{ep: 8, etp: 1, cp: 1}", False),  # stated: nothing held
    ("llama3-8b", "{}", True)])                  # dense: cp held, no experts to place
def test_the_estimate_names_the_moe_layout_fields_it_did_not_search(cli, tmp_path, model, parallelism, held):
    _write(tmp_path, parallelism, model)
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    note = next(n for n in doc["notes"] if n.startswith("layout searched: "))
    assert (HELD in note) is held and "etp = tp" not in note, note
    if held:
        assert "`--search-plan` searches cp too, or state it" in note
        assert doc["layout"]["ep"] > 1 if model == "qwen3-30b-a3b" else doc["layout"]["ep"] == 1


def test_the_plan_search_accounts_for_every_switch(cli, tmp_path):
    _write(tmp_path)
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan", "--format", "json")
    assert r.code == 0, r.err
    plan = json.loads(r.out)["plan"]
    held = plan["not_searched"]
    # every switch of the table is searched, stated or named as the profile's (distributed_optimizer: with zero)
    covered = set(plan["searched"]) | set(plan["kept"]) | set(held) | {"distributed_optimizer"}
    assert set(SWITCHES) <= covered, set(SWITCHES) - covered
    assert not set(held) & set(plan["searched"])
    assert held["moe_dispatcher"] == {"value": "hybridep", "used": True,
                                      "why": "the stack profile's value, not searched"}
    assert held["cuda_graphs"]["value"] == "none" and "etp" not in held and plan["searched"]["etp"]  # searched
    text = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan").out
    line = next(ln for ln in text.splitlines() if ln.startswith("  not searched (the stack profile's value): "))
    assert "moe_dispatcher=hybridep" in line and "cuda_graphs=none" in line and "etp" not in line
    # plan38 held etp at tp, Megatron-core's default, on its own line; nemo-2025 folds the experts: it is searched
    assert "held at its default" not in text and "; etp 1/" in text


def test_a_dense_models_cp_is_named_as_held(cli, tmp_path):
    """newuser53: Llama 3.1 70B at 131,072 tokens on 512 GB200 with cp left out read only "layout searched" (5.411 s
    at tp 32, cp 1) where `--search-plan` found 3.487 s at tp 2, cp 16. Here Llama 3.1 8B at the same context on 64
    GB200: the layout search holds cp at 1 and says so; the plan search, which varies cp, finds a cp > 1 plan that is
    faster than the estimate's layout, and a stated cp silences the note."""
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, "{}", seq_len=131072, global_batch=16, precision="bf16", stack="nemo-2025"),
        encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    note = next(n for n in doc["notes"] if n.startswith("layout searched: "))
    assert "; cp 1 held, not searched" in note and "`--search-plan` searches cp too, or state it" in note, note
    assert "ep 1" not in note  # a dense model has no experts to hold
    assert doc["layout"]["cp"] == 1
    best = doc["plan"]["layout"]
    assert best["cp"] > 1, best
    assert doc["plan"]["step_time_s"] < doc["metrics"]["step_time"]["value"]
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, "{cp: 4}", seq_len=131072, global_batch=16, precision="bf16", stack="nemo-2025"),
        encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    note = next(n for n in json.loads(r.out)["notes"] if n.startswith("layout searched: "))
    assert "held, not searched" not in note, note
