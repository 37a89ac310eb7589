"""Redundant expert copies (`inference.redundant_experts`) let a wide-EP job state an ep the experts do not divide.

Before (newuser79), the layouts SGLang and NVL72 deployments publish for DeepSeek-R1 were refused: SGLang's GB200
decode instance is 48 GPUs (sgl-project/sglang issue 10903: "each decoder instance requires 48 GPUs") and its
large-scale EP runs pass --ep-num-redundant-experts 32 (issue 6017's commands), so 288 slots, 6 a rank; EP 72 over an
NVL72 is 288 / 72 = 4. `ep (48) does not divide the 256 experts ... not modelled` stopped the estimate. Now the
copies are slots: each rank holds (E + R) / ep of them, their weights count, and routing spreads over E + R.
"""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from archgen.model.inference import Inference
from archgen.model.workload import Model
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.serve.inference import weights_per_gpu
from archgen.perf.serve.parallel_problems import expert_problem
from archgen.perf.serve.routing import serving_arch
from tests.conftest import SPECS


def _deepseek() -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


@pytest.mark.parametrize(("ep", "redundant"), [(48, 32), (72, 32), (32, 32), (36, 32)])
def test_copies_that_fill_the_ranks_are_accepted(ep, redundant) -> None:
    # (256 + 32) = 288 = 48 x 6 = 72 x 4 = 32 x 9 = 36 x 8 (TensorRT-LLM blog4 Table 1's 9 and 8 slots a rank)
    assert expert_problem(_deepseek(), ep, redundant) is None


def test_an_unfilled_rank_count_names_the_copies_that_fill_it() -> None:
    why = expert_problem(_deepseek(), 48, 0)
    assert why is not None and "does not divide the 256 experts" in why
    assert "e.g. 32 or 80 at ep 48" in why and "such as 32" in why
    why = expert_problem(_deepseek(), 48, 16)
    assert why is not None and "the 256 experts and 16 redundant copies (272)" in why
    why = expert_problem(_deepseek(), 32, 8)   # review40: read "e.g. 32 or 64", though no copies divide 256 too
    assert why is not None and "e.g. 0 or 32 at ep 32" in why


def test_each_copy_adds_one_experts_weights_to_its_rank() -> None:
    a = _deepseek()
    more = weights_per_gpu(serving_arch(a, 32), "fp4", 48, True) - weights_per_gpu(a, "fp4", 48, True)
    # 32 copies of an expert (58 MoE layers x 3 x 7,168 x 2,048 parameters) over 48 ranks at NVFP4's bytes, plus
    # the router gate's 32 more columns (58 x 7,168 x 32, whole on every attention-DP rank): 7.5 MB of the 965 MB,
    # an overcount (`serving_arch`: the gate still scores 256 experts) left in as negligible beside 20.9 GB
    per = K.element_bytes("fp4", "nvfp4")
    expert = a.moe_layers * a.expert_params * per
    gate = a.moe_layers * a.hidden * 32 * per
    assert more == pytest.approx(32 * expert / 48 + gate, rel=1e-9)
    assert gate / more < 0.008


def test_copies_need_expert_parallelism() -> None:
    with pytest.raises(ValidationError, match="they need ep above 1"):
        Inference.model_validate({"tp": 8, "input_len": 1024, "output_len": 128, "redundant_experts": 32})


def test_the_wide_ep_decode_instance_is_estimated(cli, tmp_path) -> None:
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: w\nname: w\nmodel: deepseek-v3\ncluster: gb200-nvl72-su\naccelerators: 48\n"
        "inference: {precision: fp4, tp: 48, ep: 48, redundant_experts: 32, attention_dp: true, input_len: 2000, "
        "output_len: 100, scenario: concurrency, batch: 1536}\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    assert r.code == 0, r.out + r.err
    assert "over 288 slots (256 experts and 32 redundant copies" in r.out
