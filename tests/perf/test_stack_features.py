"""A feature the stated stack's code lacks is refused where the spec states it (`archgen.model.stack_features`).

The releases are read in NVIDIA/Megatron-LM's history (the module's table cites each commit); megatron-core-2024 is
core_v0.9.0 (2024-10-24), which has none of group-limited routing (core_v0.11.0), multi-token prediction
(core_v0.12.0) or HybridEP (core_v0.16.0). A stack left out is a house default: the same finding is a PERF004 warning.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.errors import ValidateError
from archgen.model.stack_features import CODE, FEATURES, missing, release_of
from archgen.model.stack_profiles import STACKS
from archgen.model.switches import SWITCHES
from archgen.model.workload import Model, MoE, Parallelism, Training
from archgen.scoring.cases import read_cases

SPECS = Path(__file__).resolve().parents[2] / "specs"
DATA = Path(__file__).parent / "data"


def _example(feature) -> object:
    """A value of the feature's field that uses it (the first such value its switch allows, or a layout value)."""
    name = feature.path[-1]
    values = SWITCHES[name].values if name in SWITCHES else (1, 2, 3, 8, "optimizer", "both")
    return next(v for v in values if feature.uses(v))


def test_the_table_names_real_fields_each_used_by_a_value_they_allow():
    fields = {**Training.model_fields, **Parallelism.model_fields, **MoE.model_fields, **Model.model_fields}
    for f in FEATURES:
        assert f.path[-1] in fields, f.path
        assert re.fullmatch(r"[0-9a-f]{7}, 20\d\d-\d\d-\d\d, .+", f.commit), f.commit
        if f.path[-1] in SWITCHES:   # every value it names is one the switch takes
            named = [v for v in SWITCHES[f.path[-1]].values if f.uses(v)]
            assert named and not f.uses(None)
    assert [f.first for f in FEATURES] == sorted(f.first for f in FEATURES)
    assert [release_of(s) for s in STACKS[:2]] == [(0, 0, 0), (0, 9, 0)]   # v2.6 predates every core release
    assert all(isinstance(CODE.setting(s)[1], str) for s in STACKS)


def test_megatron_core_2024_lacks_what_core_v0_9_0_lacked_and_nemo_2025_lacks_nothing():
    t = Training(seq_len=4096, global_batch=64, precision="fp8", fp8_recipe="blockwise", mtp_layers=1,
                 moe_dispatcher="hybridep", parallelism=Parallelism(tp=2, etp=1))
    got = {m.path[-1]: m.feature.release for m in missing("megatron-core-2024", t, groups=8)}
    assert got == {"fp8_recipe": "core_v0.13.0", "mtp_layers": "core_v0.12.0", "moe_dispatcher": "core_v0.16.0",
                   "etp": "core_v0.10.0", "router_num_groups": "core_v0.11.0"}
    assert missing("nemo-2025", t, groups=8) == []
    # an expert TP equal to the TP is the run core_v0.9.0 makes; no group-limited routing, nothing to lack
    same = t.model_copy(update={"parallelism": Parallelism(tp=2, etp=2)})
    assert "etp" not in {m.path[-1] for m in missing("megatron-core-2024", same)}
    # Primus's Megatron-LM pin (d3528a2) has HybridEP but not 8c5cf05's fused permute
    assert [m.feature.commit[:7] for m in missing("primus-2025", Training(seq_len=1, global_batch=1,
                                                                          permute_in_dispatch=True))] == ["8c5cf05"]


def _workload(key: str, value: object) -> str:
    precision = "fp8" if key == "fp8_recipe" else "bf16"
    field = f"  parallelism: {{tp: 2, {key}: {value}}}\n" if key in Parallelism.model_fields else f"  {key}: {value}\n"
    if key == "permute_in_dispatch":   # HybridEP's alone (`StackSwitches`): the dispatcher is stated with it
        field = "  moe_dispatcher: hybridep\n" + field
    return ("kind: Workload\nid: w\nmodel: m\ncluster: c\ntraining:\n  seq_len: 4096\n  global_batch: 64\n"
            f"  precision: {precision}\n  stack: STACK\n" + field)


def _written(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("feature", [f for f in FEATURES if f.path[0] != "model"], ids=lambda f: f.words)
def test_each_feature_under_a_stated_stack_that_predates_it_is_an_error_at_its_line(feature, cli, tmp_path):
    key, value = feature.path[-1], _written(_example(feature))
    lines = _workload(key, 1 if key == "etp" else value).splitlines()
    line = next(i for i, text in enumerate(lines, 1) if re.search(rf"\b{key}:", text))
    old = [s for s in STACKS if release_of(s) < feature.first]
    assert old, feature.words
    for stack in old:
        (tmp_path / "w.yaml").write_text("\n".join(lines).replace("STACK", stack) + "\n", encoding="utf-8")
        r = cli("validate", str(tmp_path / "w.yaml"))
        assert r.code == 1 and "Traceback" not in r.err + r.out
        said = r.err + r.out
        assert re.search(rf"w\.yaml:{line}:\d+: error: training\.(parallelism\.)?{key}: {re.escape(feature.words)} is "
                         rf"not in the code of stack {stack}, .*arrived in {feature.release} with "
                         rf"{feature.commit[:7]} .*got {re.escape(key)} ", said), said
    (tmp_path / "w.yaml").write_text("\n".join(lines).replace("STACK", "nemo-2025") + "\n", encoding="utf-8")
    assert "not in the code of stack" not in (r := cli("validate", str(tmp_path / "w.yaml"))).err + r.out


def test_a_case_stating_group_limited_routing_under_core_2024_is_refused_at_the_models_line(tmp_path):
    """The held-out DeepSeek-V3 row (its stack not stated: scored under nemo-2025) with megatron-core-2024 stated."""
    text = (DATA / "heldout-v5.yaml").read_text(encoding="utf-8")
    head, rest = text.split("- id: ho-deepseek-v3-2048xh800", 1)
    case = "- id: ho-deepseek-v3-2048xh800" + rest.split("\n- id:", 1)[0] + "\n"
    case = case.replace("precision: fp8, fp8_recipe: blockwise,", "precision: bf16, stack: megatron-core-2024,")
    case = case.replace(", mtp_layers: 1}\n  measured", "}\n  measured")
    (tmp_path / "c.yaml").write_text(head.split("cases:")[0] + "cases:\n" + case, encoding="utf-8")
    line = 1 + (head.split("cases:")[0] + "cases:\n" + case).splitlines().index(
        next(x for x in case.splitlines() if "router_num_groups" in x))
    with pytest.raises(ValidateError, match=rf"c\.yaml:{line}:\d+: error: cases\.0\.model\.moe\.router_num_groups: "
                                            r"group-limited "
                                        r"routing is not in the code of stack megatron-core-2024, Megatron-LM "
                                        r"core_v0\.9\.0 .*core_v0\.11\.0 with b1022a3"):
        read_cases(tmp_path / "c.yaml")


def test_a_workload_on_deepseek_v3_under_core_2024_cannot_be_estimated_and_names_the_models_line(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: ds\nname: ds\nmodel: deepseek-v3\ncluster: dgx-b200-superpod\naccelerators: 256\n"
        "training: {seq_len: 4096, global_batch: 1024, stack: megatron-core-2024, parallelism: {tp: 1, pp: 8, "
        "ep: 32}}\n", encoding="utf-8")
    r = cli("check", str(SPECS), str(tmp_path))
    models = (SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8").splitlines()
    line = 1 + next(i for i, x in enumerate(models) if x.startswith("mla:"))
    assert r.code == 1 and "Traceback" not in r.err
    # its MLA (core_v0.10.0) is the first of its two gaps, group-limited routing (core_v0.11.0) the other
    assert re.search(rf"w\.yaml:\d+:\d+: error: PERF003 workload/ds: ds cannot be estimated \(deepseek-v3 at "
                     rf"\S*deepseek-v3\.yaml:{line}:\d+\): multi-head latent attention is not in the code of stack "
                     r"megatron-core-2024.*; group-limited routing is not in the code of stack megatron-core-2024",
                     r.out), r.out


def test_under_the_house_default_a_feature_its_code_lacks_is_a_warning(cli, tmp_path):
    """No stack stated on an AMD part: Primus's profile, whose Megatron-LM pin predates HybridEP's fused permute."""
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: amdw\nname: amdw\nmodel: llama3-8b\ncluster: mi355x-th5\naccelerators: 8\n"
        "training:\n  seq_len: 4096\n  global_batch: 64\n  permute_in_dispatch: true\n"
        "  parallelism: {tp: 1, pp: 1, dp: 8, micro_batch: 1}\n", encoding="utf-8")
    r = cli("check", str(SPECS), str(tmp_path))
    assert re.search(r"w\.yaml:10:\d+: warning: PERF004 workload/amdw: amdw: HybridEP's fused permute is not in "
                     r"the code of stack primus-2025, .*core_v0\.18\.0 with 8c5cf05 .*house default: estimated as "
                     "stated", r.out), r.out
    assert " error(s)" in r.out and "PERF003 workload/amdw" not in r.out
    doc = cli("estimate", str(SPECS), str(tmp_path), "--workload", "amdw")
    assert "stated beyond the code of primus-2025, the house default (PERF004), estimated as stated: HybridEP's " \
           "fused permute (core_v0.18.0)" in doc.out


def test_the_held_out_deepseek_rows_stack_range_keeps_only_the_profile_whose_code_runs_it():
    """Stated group-limited routing, MTP and blockwise FP8: megatron-lm-2021 and -core-2024 lack all three, so the
    range over unstated knobs is nemo-2025's own prediction (before, their readings widened it)."""
    from archgen.scoring.cases import predict, stack_range
    from archgen.scoring.catalog import load_accelerators

    case = next(c for c in read_cases(DATA / "heldout-v5.yaml")[0] if c.id == "ho-deepseek-v3-2048xh800")
    accs = load_accelerators()
    lo, hi = stack_range(case, accs)["tokens_per_second"]
    assert lo == hi == pytest.approx(predict(case, accs)["tokens_per_second"])


def test_what_a_stacks_code_lacks_is_declared_once_and_every_other_table_reads_it():
    """stacktable35: `FEATURES` is the one declaration of a value a stack's code lacks. An `ALLOWS` row under such a
    stack is derived from it (`code_has`, with the release and commit), a recipe row never allows a value its stack's
    code lacks, and no profile takes one as its value."""
    from archgen.model.stack_features import code_has, lacks
    from archgen.model.switch_allows import ALLOWS, allowed
    gapped = 0
    for name, by in ALLOWS.items():
        for stack in STACKS:
            assert not [v for v in allowed(stack, name) if lacks(stack, name, v)], (name, stack)
            if name in SWITCHES and any(lacks(stack, name, v) for v in SWITCHES[name].values):
                assert by.setting(stack) == code_has(stack, name, SWITCHES[name].values), (name, stack)
                gapped += 1
    assert gapped == 2   # overlap_ep_comm under megatron-lm-2021 and megatron-core-2024 (core_v0.14.0)
    assert allowed("megatron-core-2024", "overlap_ep_comm") == (False,)
    assert "core_v0.14.0, ae1c882" in ALLOWS["overlap_ep_comm"].megatron_core_2024[1]
    for name, switch in SWITCHES.items():
        for stack in STACKS:
            assert lacks(stack, name, switch.default(stack)) is None, (name, stack)


def test_core_2024s_values_its_code_sets_cite_that_code_not_a_later_commit():
    """Its value false was cited to transformer_config.py at 2edffad (2026-05-16), code core_v0.9.0 is not: the field
    arrived in core_v0.13.0 with 022bcb5 (NVIDIA/Megatron-LM; `git grep` finds it in no core_v0.12.0 file)."""
    from archgen.model.stack_features import without
    source = SWITCHES["moe_force_balance"].source("megatron-core-2024")
    assert "2edffad" not in source
    assert source == ("Megatron-LM core_v0.9.0 (2024-10-24) lacks the router's forced load balance "
                      "(core_v0.13.0, 022bcb5)")
    # alike: the shared-expert overlap was cited to d98e8a6 (2026-08-22), the FP8 recipe to a --fp8-recipe flag that
    # came with 3db7411 (core_v0.12.0); core_v0.9.0 has neither field (`git grep`), nor HybridEP's permute
    for name in ("overlap_ep_comm", "moe_shared_expert_overlap", "fp8_recipe", "permute_in_dispatch"):
        assert SWITCHES[name].source("megatron-core-2024") == without("megatron-core-2024", name), name
    assert "blockwise FP8 scaling (core_v0.13.0, be8715d)" in SWITCHES["fp8_recipe"].source("megatron-core-2024")


def test_a_value_the_stacks_code_lacks_is_said_by_missing_not_again_by_beyond_stack():
    """A job past its stack's code is `missing`'s (an error under a stated stack, PERF004 under a house default);
    `beyond_stack` names what the recipe does not run among the values the code has, so one finding, not two."""
    from archgen.model.switch_allows import beyond_stack
    t = Training.model_construct(seq_len=2048, global_batch=64, stack="megatron-core-2024", overlap_ep_comm=True,
                                 moe_force_balance=True, parallelism=Parallelism(sequence_parallel=True))
    assert [m.path for m in missing("megatron-core-2024", t)] == [("moe_force_balance",), ("overlap_ep_comm",)]
    assert beyond_stack(t) == []
    old = t.model_copy(update={"stack": "megatron-lm-2021"})
    assert [(n, v) for n, v, _, _ in beyond_stack(old)] == [("sequence_parallel", True)]   # a recipe's limit


def test_multi_head_latent_attention_is_not_in_core_v0_9_0s_code(cli, tmp_path):
    """review54: MLA's code (megatron/core/transformer/multi_latent_attention.py, `multi_latent_attention`) arrived
    with 32eac88 (2024-09-24, !1581 'Add MLA support into MCore'), after core_v0.9.0's branch: `git grep` finds no
    `multi_latent_attention` or `kv_lora_rank` in any core_v0.9.0 file, and both in core_v0.10.0. DeepSeek-V3 without
    its group-limited routing was estimated under megatron-core-2024 as if core_v0.9.0 ran its attention."""
    text = (SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8")
    grouped = ", router_num_groups: 8,\n      router_group_topk: 4}"
    (tmp_path / "m.yaml").write_text(text.replace(grouped, "}").replace("\nid: deepseek-v3\n", "\nid: dsv3-mla\n"),
                                     encoding="utf-8")
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: ds\nname: ds\nmodel: dsv3-mla\ncluster: dgx-b200-superpod\naccelerators: 488\n"
        "training: {seq_len: 4096, global_batch: 1024, stack: megatron-core-2024, parallelism: {tp: 1, pp: 61, "
        "dp: 8, ep: 8, micro_batch: 1}}\n", encoding="utf-8")
    r = cli("check", str(SPECS), str(tmp_path))
    model = (tmp_path / "m.yaml").read_text(encoding="utf-8").splitlines()
    line = 1 + next(i for i, x in enumerate(model) if x.startswith("mla:"))
    assert r.code == 1 and "Traceback" not in r.err
    assert re.search(rf"w\.yaml:\d+:\d+: error: PERF003 workload/ds: ds cannot be estimated \(dsv3-mla at "
                     rf"\S*m\.yaml:{line}:\d+\): multi-head latent attention is not in the code of stack "
                     r"megatron-core-2024, Megatron-LM core_v0\.9\.0 .*arrived in core_v0\.10\.0 with 32eac88 "
                     r"\(2024-09-24.*got mla with a key-value latent of rank 512", r.out), r.out
    # a stack whose code has it estimates the same model
    ok = (tmp_path / "w.yaml").read_text(encoding="utf-8").replace("megatron-core-2024", "nemo-2025")
    (tmp_path / "w.yaml").write_text(ok, encoding="utf-8")
    assert "PERF003 workload/ds" not in cli("check", str(SPECS), str(tmp_path)).out


def test_a_case_stating_mla_under_core_2024_is_refused_at_the_models_mla_line(tmp_path):
    """The held-out DeepSeek-V3 row without its group-limited routing and MTP, stated under megatron-core-2024."""
    text = (DATA / "heldout-v5.yaml").read_text(encoding="utf-8")
    head, rest = text.split("- id: ho-deepseek-v3-2048xh800", 1)
    case = "- id: ho-deepseek-v3-2048xh800" + rest.split("\n- id:", 1)[0] + "\n"
    case = case.replace("precision: fp8, fp8_recipe: blockwise,", "precision: bf16, stack: megatron-core-2024,")
    case = case.replace(", mtp_layers: 1}\n  measured", "}\n  measured").replace(", mtp_layers: 1}", "}")
    case = case.replace(", router_num_groups: 8, router_group_topk: 4}", "}")
    body = head.split("cases:")[0] + "cases:\n" + case
    (tmp_path / "c.yaml").write_text(body, encoding="utf-8")
    line = 1 + body.splitlines().index(next(x for x in case.splitlines() if "kv_lora_rank" in x))
    with pytest.raises(ValidateError, match=rf"c\.yaml:{line}:\d+: error: cases\.0\.model\.mla: multi-head latent "
                                            r"attention is not in the code of stack megatron-core-2024"):
        read_cases(tmp_path / "c.yaml")


def test_zero_2_3_and_the_optimizer_offload_are_not_in_core_v0_9_0s_code():
    """review54: core_v0.9.0 shards the optimizer state only (--use-distributed-optimizer). PyTorch FSDP-2
    (--use-torch-fsdp2, e1993fa, 2024-11-13) is first in core_v0.10.0, Megatron-FSDP's optim_grads and
    optim_grads_params (d165a85, 2025-02-26) and --optimizer-cpu-offload (60007c9, 2025-02-14) in core_v0.12.0 (`git
    grep` finds none of them in a core_v0.9.0 file). They were PERF004's 'does not run', estimated as stated."""
    t = Training(seq_len=4096, global_batch=64, parallelism=Parallelism(tp=2, zero=2, offload="optimizer"))
    got = {m.path[-1]: (m.feature.release, m.feature.commit[:7]) for m in missing("megatron-core-2024", t)}
    assert got == {"zero": ("core_v0.12.0", "d165a85"), "offload": ("core_v0.12.0", "60007c9")}
    three = t.model_copy(update={"parallelism": Parallelism(tp=2, zero=3)})
    assert [(m.feature.release, m.feature.commit[:7]) for m in missing("megatron-core-2024", three)] == [
        ("core_v0.10.0", "e1993fa")]
    # ZeRO-1 is core_v0.9.0's distributed optimizer; a zero equal to the tp is no expert TP (etp's rule is its own)
    assert missing("megatron-core-2024", t.model_copy(update={"parallelism": Parallelism(tp=1, zero=1)})) == []
    assert missing("nemo-2025", t) == [] and missing("primus-2025", three) == []
