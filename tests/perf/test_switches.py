"""The training switches are declared once (`archgen.model.switches`): the Workload schema, the case format, the
profiles and the internal job all take their names, types and defaults from that table."""

from __future__ import annotations

import dataclasses
import typing

from archgen.model.cases import CaseTraining
from archgen.model.switches import STACKS, SWITCHES, ByStack
from archgen.model.workload import Parallelism, Training
from archgen.perf.stacks import JOB_DEFAULTS, KNOBS, PROFILES, Knobs
from archgen.perf.training import Job, Layout


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
            assert s.default(stack) in s.values, (s.name, stack)
            assert len(s.source(stack)) > 10, (s.name, stack)
    assert SWITCHES["attention"].values == ("flash", "materialized")
    assert SWITCHES["dropout"].values == (False, True)
    assert typing.get_args(Training.model_fields["stack"].annotation) == STACKS


def test_a_job_that_states_no_stack_takes_the_newest_profile():
    """One default (issue 20 part 6): a Workload's training and a validation case that name no stack read as
    nemo-2025, the newest profile, with every stated switch kept."""
    from archgen.model.switches import DEFAULT_STACK
    from archgen.perf.stacks import resolve, training_knobs

    assert DEFAULT_STACK == STACKS[-1] == "nemo-2025"
    t = Training(seq_len=2048, global_batch=64, precision="fp8", dropout=True)
    assert t.stack == "nemo-2025" and "stack" not in t.model_fields_set
    knobs = training_knobs(t)
    assert knobs == dataclasses.replace(PROFILES["nemo-2025"], dropout=True)  # fp8: the FP8 parameter gather too
    case = CaseTraining(seq_len=2048, global_batch=64, precision="bf16", tp=1, pp=1, dp=8)
    assert case.stack == "nemo-2025"
    assert resolve(case.stack, {}, "bf16").param_gather_dtype == "bf16"  # the FP8 gather applies to FP8 runs only
