"""The training switches are declared once (`archgen.model.switches`): the Workload schema, the case format, the
profiles and the internal job all take their names, types and defaults from that table."""

from __future__ import annotations

import dataclasses
import typing

import pytest
from pydantic import ValidationError

from archgen.model.cases import CaseTraining
from archgen.model.stack_profiles import STACKS, ByStack
from archgen.model.switches import SWITCHES
from archgen.model.workload import Parallelism, Training
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.stacks import JOB_DEFAULTS, KNOBS, PROFILES, Knobs


def _switch_fields(model) -> set[str]:
    return {n for n, f in model.model_fields.items() if any(isinstance(m, ByStack) for m in f.metadata)}


def test_every_declaration_of_a_switch_is_the_tables():
    names = set(SWITCHES)
    assert _switch_fields(Training) | _switch_fields(Parallelism) == names
    assert _switch_fields(CaseTraining) == names
    assert {f.name for f in dataclasses.fields(Knobs)} == names == set(KNOBS)
    # the internal job carries every switch but sequence parallelism, which its Layout carries
    job_switches = {f.name for f in dataclasses.fields(Job)} & names
    assert job_switches == names - {"sequence_parallel"}
    # every switch of Training, Parallelism and CaseTraining is the table's field: same type, same description
    for model in (Training, Parallelism, CaseTraining):
        for name in _switch_fields(model):
            f = model.model_fields[name]
            assert (f.annotation, f.description, f.default) == (SWITCHES[name].annotation,
                                                                SWITCHES[name].description, None), (model, name)


def test_profiles_and_job_defaults_are_the_tables():
    for stack in STACKS:
        assert {n: getattr(PROFILES[stack], n) for n in SWITCHES} == {n: s.default(stack) for n, s in SWITCHES.items()}
    job = Job(None, 2048, 8)  # type: ignore[arg-type]
    for name in SWITCHES:
        if name == "grad_reduce_dtype":  # None: the precision rule (fp16 gradients under fp16, else the profile's)
            assert job.grad_reduce_dtype is None and JOB_DEFAULTS.grad_reduce_dtype == "fp32"
        elif name == "sequence_parallel":
            assert Layout(1, 1, 1, 1).sequence_parallel == JOB_DEFAULTS.sequence_parallel
        else:
            assert getattr(job, name) == getattr(JOB_DEFAULTS, name), name
    # the job overlaps the parameter gather, as the profile it takes its defaults from does
    assert job.overlap_param_gather is True


def test_every_default_is_an_allowed_value_with_a_source():
    for s in SWITCHES.values():
        assert s.description
        for stack in STACKS:
            assert s.allows(s.default(stack)), (s.name, stack)  # a named value, or a count (ddp_bucket_size)
            assert len(s.source(stack)) > 10, (s.name, stack)
    assert SWITCHES["attention"].values == ("flash", "materialized")
    assert SWITCHES["dropout"].values == (False, True)
    assert typing.get_args(Training.model_fields["stack"].annotation) == STACKS


def test_a_job_that_states_no_stack_takes_the_newest_profile():
    """One default (issue 20 part 6): a Workload's training and a validation case that name no stack read as
    nemo-2025, the newest profile, with every stated switch kept."""
    from archgen.model.stack_profiles import DEFAULT_STACK
    from archgen.perf.train.stacks import resolve, training_knobs

    assert DEFAULT_STACK == "nemo-2025" and STACKS[-1] == "primus-2025"  # the newest NVIDIA profile; AMD: primus
    t = Training(seq_len=2048, global_batch=64, precision="fp8", dropout=True)
    assert t.stack == "nemo-2025" and "stack" not in t.model_fields_set
    knobs = training_knobs(t)
    assert knobs == dataclasses.replace(PROFILES["nemo-2025"], dropout=True)  # fp8: the FP8 parameter gather too
    case = CaseTraining(seq_len=2048, global_batch=64, precision="bf16", tp=1, pp=1, dp=8)
    assert case.stack == "nemo-2025"
    assert resolve(case.stack, {}, "bf16").param_gather_dtype == "bf16"  # the FP8 gather applies to FP8 runs only


EXPLAIN_CASES = """\
schema: archgen-validation/1
cases:
- id: unstated
  source: test
  status: confirmed
  system: &s {accelerator: h100-sxm5-80gb, count: 8, scale_up: {domain: 8, bandwidth: "450 GB/s"}}
  model: &m {layers: 24, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000}
  training: {seq_len: 2048, global_batch: 64, precision: fp16, tp: 1, pp: 1, dp: 8, dropout: true}
  measured: [{metric: step_time, value: 1, unit: s}]
- id: stated
  source: test
  status: confirmed
  system: *s
  model: *m
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 1, dp: 8, stack: megatron-lm-2021}
  measured: [{metric: step_time, value: 1, unit: s}]
"""


def test_estimate_cases_explain_gives_every_switch_and_where_it_came_from(cli, tmp_path):
    """Text: one line per training case, every switch grouped by origin; JSON: the same on each of its rows. The
    predictions do not change."""
    import json

    path = tmp_path / "cases.yaml"
    path.write_text(EXPLAIN_CASES, encoding="utf-8")
    text = cli("estimate", "--cases", str(path), "--explain").out
    assert text.startswith(cli("estimate", "--cases", str(path)).out)
    lines = {x.split(":", 1)[0].strip(): x for x in text.splitlines() if x.startswith("  ")}
    assert lines["unstated"] == (  # tp = pp = 1, a dense model, fp16, no RoPE stated: TP, p2p, MoE, FP8, RoPE moot
        "  unstated: default (profile nemo-2025): stack=nemo-2025, attention=flash, distributed_optimizer=true, "
        "grad_reduce_dtype=fp16, overlap_grad_reduce=true, overlap_param_gather=true, "
        "grad_accum_fusion=true, cuda_graphs=none, ddp_bucket_size=134217728, cross_entropy=te; stated: dropout=true; "
        "not used: sequence_parallel=true, param_gather_dtype=bf16, overlap_tp_comm=true, overlap_p2p_comm=true, "
        "ep_dedup=true, moe_dispatcher=hybridep, overlap_ep_comm=false, moe_shared_expert_overlap=false, "
        "moe_force_balance=true, fp8_recipe=tensorwise, permute_in_dispatch=false, cp_comm_type=p2p, rope_fusion=true")
    assert lines["stated"].startswith("  stated: stated: stack=megatron-lm-2021; profile megatron-lm-2021: "
                                      "attention=materialized,")
    rows = json.loads(cli("estimate", "--cases", str(path), "--explain", "--format", "json").out)
    plain = json.loads(cli("estimate", "--cases", str(path), "--format", "json").out)
    assert [{k: v for k, v in r.items() if k != "switches"} for r in rows] == plain
    used = {u["name"]: u for u in rows[0]["switches"]}
    assert set(used) == {"stack", *SWITCHES}
    assert used["dropout"] == {"name": "dropout", "value": True, "origin": "stated", "profile": None, "source": None,
                               "used": True}
    assert used["overlap_p2p_comm"] == {"name": "overlap_p2p_comm", "value": True, "origin": "default",
                                        "profile": "nemo-2025", "source": "not used: pp = 1 has no pipeline sends",
                                        "used": False}
    assert used["grad_reduce_dtype"]["value"] == "fp16" and "fp16 training" in used["grad_reduce_dtype"]["source"]
    assert used["attention"] == {"name": "attention", "value": "flash", "origin": "default", "profile": "nemo-2025",
                                 "source": SWITCHES["attention"].source("nemo-2025"), "used": True}
    assert {u["origin"] for u in rows[1]["switches"]} == {"stated", "profile"}
    assert used["rope_fusion"]["source"] == "not used: the model states no rotary position embedding"


def test_a_switch_the_layout_makes_moot_moves_no_number(cli, tmp_path):
    """What `--explain` calls 'not used' is so: flipping each such switch (tp = pp = 1, a dense model) leaves the
    prediction as it was, and a stated one is marked as well."""
    import json

    from archgen.perf.train.moot import moot

    flips = {"sequence_parallel": "false", "overlap_tp_comm": "false", "overlap_p2p_comm": "false",
             "ep_dedup": "false", "moe_dispatcher": "alltoall", "overlap_ep_comm": "true"}
    assert all(moot(name, {"tp": 1, "pp": 1, "interleave": 1}, False) for name in flips)
    assert not any(moot(name, {"tp": 2, "pp": 2, "interleave": 2}, True) for name in flips)
    assert moot("overlap_p2p_comm", {"tp": 1, "pp": 4, "interleave": 1}, None) == (
        "not used: interleave = 1, and only the interleaved schedule overlaps its sends")
    base = tmp_path / "base.yaml"
    base.write_text(EXPLAIN_CASES, encoding="utf-8")
    flipped = tmp_path / "flipped.yaml"
    flipped.write_text(EXPLAIN_CASES.replace("dp: 8, dropout: true}", "dp: 8, dropout: true, "
                                             + ", ".join(f"{k}: {v}" for k, v in flips.items()) + "}"),
                       encoding="utf-8")
    before = json.loads(cli("estimate", "--cases", str(base), "--format", "json").out)
    after = json.loads(cli("estimate", "--cases", str(flipped), "--explain", "--format", "json").out)
    assert after[0]["predicted"] == before[0]["predicted"]
    stated = {u["name"]: u for u in after[0]["switches"] if u["origin"] == "stated"}
    assert set(stated) == {*flips, "dropout"}
    assert not any(stated[name]["used"] for name in flips) and stated["dropout"]["used"]


def test_estimate_workload_explain(cli):
    """A shipped workload that names no stack: each switch from the default profile, with its source."""
    import json

    from tests.conftest import REPO

    specs = str(REPO / "specs")
    text = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", specs, "--explain").out
    block = text[text.index("switches (value, where it came from):"):].splitlines()
    assert len(block) == 1 + 1 + len(SWITCHES)
    assert block[1].split() == ["stack", "nemo-2025", "default", "(profile", "nemo-2025):", "no", "stack", "stated:",
                                "the", "newest", "profile"]
    assert "  overlap_param_gather       true           default (profile nemo-2025): " \
           + SWITCHES["overlap_param_gather"].source("nemo-2025") in block
    doc = json.loads(cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", specs, "--explain",
                         "--format", "json").out)
    assert [u["name"] for u in doc["switches"]] == ["stack", *SWITCHES]
    assert {u["origin"] for u in doc["switches"]} == {"default"}


def test_accuracy_page_lists_each_training_case_with_its_stack_and_switches(tmp_path):
    from archgen.output.accuracy import switches_table
    from archgen.scoring.cases import read_cases

    path = tmp_path / "cases.yaml"
    path.write_text(EXPLAIN_CASES, encoding="utf-8")
    cases, _ = read_cases(path)
    lines = switches_table(cases)
    assert lines[2:4] == ["| case | stack | stated | from the stack's profile |", "|---|---|---|---|"]
    assert lines[4].startswith("| unstated | `nemo-2025` (default) | dropout=true | sequence_parallel=true, "
                               "attention=flash, distributed_optimizer=true, grad_reduce_dtype=fp16, ")
    assert lines[5].startswith("| stated | `megatron-lm-2021` (stated) | — | sequence_parallel=false, ")
    assert all(f"{name}=" in lines[5] for name in SWITCHES)


BEYOND = """\
kind: Workload
id: beyond-2021
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training:
  seq_len: 8192
  global_batch: 512
  recompute: selective
  stack: megatron-lm-2021
  attention: flash
  parallelism: {tp: 8, pp: 4, dp: 16, micro_batch: 1, interleave: 5, sequence_parallel: true, zero: 1}
"""


def test_a_switch_stated_beyond_the_stack_is_said_and_estimated_as_stated(cli, tmp_path):
    """Flash attention, sequence parallelism and ZeRO-1 are not in Megatron-LM of 2021 (`switch_allows.ALLOWS`): the
    estimate notes them (PERF004 in `check`, tests/checks/cases/PERF004.yml) and takes them as stated."""
    import json

    from archgen.model.switch_allows import beyond_stack
    from tests.conftest import REPO

    t = Training(seq_len=2048, global_batch=64, stack="megatron-lm-2021", attention="flash",
                 parallelism=Parallelism(sequence_parallel=True, zero=1, cp=1))
    assert [(n, v) for n, v, _, _ in beyond_stack(t)] == [("sequence_parallel", True), ("attention", "flash"),
                                                         ("zero", 1)]
    assert beyond_stack(t.model_copy(update={"stack": "megatron-core-2024"})) == []  # it runs all three
    # a case: Korthikanti's rows run sequence parallelism on the 2021 stack
    case = CaseTraining(seq_len=2048, global_batch=64, precision="bf16", tp=8, pp=1, dp=1, stack="megatron-lm-2021",
                        sequence_parallel=True)
    assert beyond_stack(case)[0][:3] == ("sequence_parallel", True, (False,))
    (tmp_path / "w.yaml").write_text(BEYOND, encoding="utf-8")
    args = ("estimate", "--workload", "beyond-2021", "--path", str(REPO / "specs"), "--path", str(tmp_path))
    doc = json.loads(cli(*args, "--format", "json").out)
    assert ("stated beyond what stack megatron-lm-2021 runs (PERF004), estimated as stated: sequence_parallel true, "
            "attention flash, zero 1") in doc["notes"]
    # as stated: the same estimate as the newer stack that runs them, with the rest of the 2021 profile stated (but
    # its distributed_optimizer false, which the stated zero 1 contradicts: an error; the stage is the layout's)
    newer = BEYOND.replace("stack: megatron-lm-2021", "stack: megatron-core-2024\n  overlap_grad_reduce: false\n"
                           "  overlap_param_gather: false\n  overlap_tp_comm: false\n  overlap_p2p_comm: false\n"
                           "  dropout: true\n  grad_accum_fusion: false\n  cross_entropy: unfused")
    (tmp_path / "w.yaml").write_text(newer, encoding="utf-8")
    other = json.loads(cli(*args, "--format", "json").out)
    assert other["metrics"]["step_time"] == doc["metrics"]["step_time"]
    assert not any("PERF004" in n for n in other["notes"])


def test_a_forced_router_balance_is_refused_by_the_stacks_that_predate_it_and_unsettled_under_primus():
    """Megatron-LM has moe_router_force_load_balancing from core_v0.13.0 (022bcb5; `stack_features.FEATURES`): a
    stated true under a stated megatron-lm-2021 (v2.6) or megatron-core-2024 (core_v0.9.0) is refused, false is not;
    Primus's configs split on it (switches.py: 89 of the 91 that set it true, the model base false), so it is in
    `switch_allows.UNSETTLED` with the profile's value first."""

    from archgen.model.switch_allows import UNSETTLED, beyond_stack
    from archgen.perf.train.stacks import resolve

    for stack, code in (("megatron-lm-2021", "Megatron-LM v2.6"), ("megatron-core-2024", "Megatron-LM core_v0.9.0")):
        with pytest.raises(ValidationError, match=rf"forced load balance is not in the code of stack {stack}, {code}"
                                                  r" .*arrived in core_v0.13.0 with 022bcb5"):
            Training(seq_len=2048, global_batch=64, stack=stack, moe_force_balance=True)
        assert beyond_stack(Training(seq_len=2048, global_batch=64, stack=stack, moe_force_balance=False)) == []
    assert beyond_stack(Training(seq_len=2048, global_batch=64, stack="nemo-2025", moe_force_balance=True)) == []
    vals = UNSETTLED["primus-2025"]["moe_force_balance"][0]
    assert vals == (True, False) and vals[0] == resolve("primus-2025", {}, "bf16").moe_force_balance


def test_a_profile_is_resolved_from_its_values_as_asdict_gives_them():
    """`resolve` starts from each profile's values made once (speedmodel34; `dataclasses.asdict` per estimate before):
    the same dict, its values strings, booleans and counts that need no copy, and the table's `values` and `allows`
    answer as the switch's type reads (`typing.get_args`)."""
    from archgen.perf.train.stacks import _PROFILE_VALUES
    for stack, knobs in PROFILES.items():
        assert _PROFILE_VALUES[stack] == dataclasses.asdict(knobs)
        assert {type(v) for v in _PROFILE_VALUES[stack].values()} <= {str, bool, int}
    bucket = SWITCHES["ddp_bucket_size"]
    assert int in typing.get_args(bucket.annotation) and bucket.allows(134217728) and not bucket.allows(True)
    assert SWITCHES["moe_dispatcher"].values == ("alltoall", "deepep", "hybridep")
