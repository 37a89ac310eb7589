"""A search says what it held without searching (newuser38).

A 600B-A40B MoE on 16,128 GB300 that leaves `ep` out was estimated at ep 1 (every expert on every rank: 4.96 s a
step, MFU 2.2 %) while `--search-plan` found 0.70 s at ep 16, cp 4, and the estimate's note said only "layout
searched". The plan search in turn listed the switches it searched and those stated, and left the rest (the MoE
dispatcher, CUDA graphs, the FP8 recipe, ...) unsaid, though the docs say it varies every switch the stack can run.
Each now names what it held: the estimate's layout search an MoE model's ep, etp and cp; the plan search every switch
it took from the stack profile (text, and JSON `plan.not_searched`).
"""

from __future__ import annotations

import json

import pytest

from archgen.model.switches import SWITCHES
from tests.conftest import SPECS
from tests.data.workloads import training_workload

HELD = "ep 1, etp = tp, cp 1 held, not searched"


def _write(tmp_path, parallelism: str = "{}", model: str = "qwen3-30b-a3b") -> None:
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", model, 64, parallelism, seq_len=4096, global_batch=256, precision="bf16", stack="nemo-2025"),
        encoding="utf-8")


@pytest.mark.parametrize(("model", "parallelism", "held"), [
    ("qwen3-30b-a3b", "{}", True),               # MoE, ep left out: held at 1, and said
    ("qwen3-30b-a3b", "{ep: 8}", False),         # stated: nothing held
    ("llama3-8b", "{}", False)])                 # dense: no experts to place
def test_the_estimate_names_the_moe_layout_fields_it_did_not_search(cli, tmp_path, model, parallelism, held):
    _write(tmp_path, parallelism, model)
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    note = next(n for n in doc["notes"] if n.startswith("layout searched: "))
    assert (HELD in note) is held, note
    if held:
        assert doc["layout"]["ep"] == 1 and "`--search-plan` searches ep and cp too" in note


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
    assert held["cuda_graphs"]["value"] == "none" and held["etp"]["value"] == "tp"   # MoE, etp not stated
    text = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan").out
    line = next(ln for ln in text.splitlines() if ln.startswith("  not searched (the stack profile's value): "))
    assert "moe_dispatcher=hybridep" in line and "cuda_graphs=none" in line and "etp=tp" in line
