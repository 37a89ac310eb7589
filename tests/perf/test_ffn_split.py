"""A tp or etp that does not divide the FFN it splits is refused, as Megatron-core asserts (leftover39).

The grouped expert linears split the expert FFN etp ways (TEGroupedLinear's `divide`, transformer_engine.py at
d98e8a6, lines 2469-2472) and a dense layer's down-projection splits the FFN tp ways (Transformer Engine's Linear,
linear.py at d0067d0, line 1625). etp39 held only a searched etp to the first; a stated one was estimated.
"""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.train.layout_rules import expert_problems, ffn_problem
from tests.conftest import SPECS, run_cli
from tests.data.workloads import training_workload


def _arch(model: str) -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / f"{model}.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def _estimate(tmp_path, model: str, gpus: int, parallelism: str):
    (tmp_path / "w.yaml").write_text(training_workload("w", model, gpus, parallelism, seq_len=4096,
                                                       global_batch=gpus * 2, precision="bf16", stack="nemo-2025"),
                                     encoding="utf-8")
    return run_cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w")


def test_a_stated_etp_that_does_not_divide_the_expert_ffn_is_refused_at_the_workload(tmp_path):
    # 40 ranks fold etp 5 x ep 8, so only the expert FFN (768 = 2^8 x 3) refuses it
    r = _estimate(tmp_path, "qwen3-30b-a3b", 40, "{tp: 4, pp: 1, dp: 10, ep: 8, etp: 5}")
    assert r.code != 0 and "Traceback" not in r.err
    assert r.err.startswith(f"{tmp_path / 'w.yaml'}:6:1: error: workload 'w': etp (5) does not divide the expert "
                            "FFN of 768"), r.err
    assert "d98e8a6, lines 2469-2472" in r.err and "1, 2, 3, 4, 6, 8, 12, 16, 24" in r.err
    assert _estimate(tmp_path, "qwen3-30b-a3b", 40, "{tp: 4, pp: 1, dp: 10, ep: 8, etp: 1}").code == 0


def test_a_tp_the_experts_take_by_default_is_held_to_the_expert_ffn(tmp_path):
    # Mixtral 8x22B: 48 heads, 8 KV heads (tp 24 sub-shards them under nemo-2025), expert FFN 16,384 = 2^14
    r = _estimate(tmp_path, "mixtral-8x22b", 48, "{tp: 24}")
    assert "tp (24), at which the experts run where etp is left out, does not divide the expert FFN of 16384" in r.err
    assert "or state such an etp" in r.err
    assert _estimate(tmp_path, "mixtral-8x22b", 48, "{tp: 24, etp: 8}").code == 0


@pytest.mark.parametrize("tp, refused", [(8, False), (24, True), (48, True)])
def test_the_rules(tp, refused):
    mixtral = _arch("mixtral-8x22b")
    assert bool(expert_problems(mixtral, tp, 1, 1, 1, None)) is refused
    assert not expert_problems(mixtral, tp, 1, 1, 1, 8)  # a stated etp that divides it, whatever tp
    assert ffn_problem(mixtral, tp) is None  # every layer is an MoE layer: no dense FFN


def test_a_dense_ffn_holds_tp():
    arch = _arch("llama3-8b")
    assert ffn_problem(arch, 8) is None
    odd = dataclasses.replace(arch, ffn=14335)  # 5 x 47 x 61: no tp above 1 splits it
    assert "tp (2) does not divide the FFN of 14335" in (ffn_problem(odd, 2) or "")
    assert "linear.py at d0067d0, line 1625" in (ffn_problem(odd, 2) or "")
