"""Read validation cases (schema `archgen-validation/1`) and predict them (`scoring.scores` scores them).

Defaults for what a case leaves out (the format's own defaults are in its header):

* training: `micro_batch` 1; `interleave` 1 (or what `pipeline_layout` implies); `cp`, `ep` 1; `recompute` none;
  every training switch a case leaves out takes the value of its `stack`'s profile, the newest of its accelerator's
  vendor (`primus-2025` on AMD, else `nemo-2025`) when it names none (`archgen.model.switches`, the one table of
  switches and their sources). A case from another era states its stack: every case of the shared legacy file
  states `megatron-lm-2021`. For a case that states no stack, `stack_range` gives the prediction over every profile
  that runs on its vendor (information; it enters no score).
* system: NVLink SHARP (NVLS) is off unless a collective case asks for `algorithm: nvls` or `nvls_tree` (it needs the
  fabric manager's multicast support, which a measurement does not state), and then only on an accelerator that has
  it; SHARP on the scale-out switches only where `scale_out.in_network_reduction` says so; scale-out efficiency 0.9.
* inference: the KV cache in the weights' precision (FP8 under FP4 weights, `kv_cache_dtype.serving_kv_dtype`); `batch`
  sequences per replica, or `max` for as many as the KV cache holds (a maximum-throughput benchmark).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import ValidationError

from archgen.cache import Memo
from archgen.errors import AnalyseError, Location, SpecProblem, UnreadableError, ValidateError
from archgen.load import SourceDocument, load_file, shared
from archgen.model.accelerator import Accelerator
from archgen.model.cases import SCHEMA, Case, CaseModel
from archgen.model.stack_features import missing
from archgen.path_links import hidden_through_link, leaving_link, tree_words
from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.perf.comm.placement import job_share
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch, megatron_flops
from archgen.perf.hw.from_spec import DEFAULT_SCALE_OUT_LATENCY, hardware_for
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.host_share import HostShare
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.serve.batcher import replica_rate
from archgen.perf.serve.engine_defaults import batch_size_of, job_of, kv_reserve_of, kv_rule_of
from archgen.perf.serve.inference import ServeJob
from archgen.perf.serve.scheduler import estimate_serving
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.refused import runs_split
from archgen.perf.train.stacks import on_vendor, resolve, stated_knobs, variants
from archgen.perf.train.training import RECOMPUTE_CODES, TrainingEstimate, estimate_training
from archgen.perf.workload.training_setup import pipeline_options
from archgen.scoring.case_checks import check_case, dispatcher_case_problem, training_problems, virtual_stages
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.prediction import Footprint, Prediction
from archgen.spec_files import printable
from archgen.startup import resume_gc
from archgen.topology import torus_degree
from archgen.validation_problems import problems_from


@dataclass(frozen=True)
class Refused:
    """A case that cannot be scored: its id (or `cases[i]` when unreadable) and the located problems."""

    id: str
    problems: tuple[SpecProblem, ...]

    @property
    def location(self):
        """Where the first problem is."""
        return self.problems[0].location


@dataclass(frozen=True)
class CaseFile:
    """A case file read case by case: the cases that validate, and those refused, in file order."""

    doc: SourceDocument
    entries: tuple[tuple[int, Case | Refused], ...]

    @property
    def cases(self) -> list[Case]:
        """The valid cases."""
        return [c for _, c in self.entries if isinstance(c, Case)]

    @property
    def refused(self) -> list[Refused]:
        """The refused cases."""
        return [c for _, c in self.entries if isinstance(c, Refused)]


def read_case_file(path: str | Path) -> CaseFile:
    """Parse a case file; a problem of one case refuses that case only, a problem of the file raises `SpecError`.

    The file must be one YAML document with `schema: archgen-validation/1` and a non-empty `cases` list; each case
    is then validated on its own, so one bad case (an unknown field, a layout that does not divide, a duplicate id)
    leaves the others readable. A file read again unchanged (the same loaded document, `load.shared`) is not
    validated again while the catalog accelerators its cases were checked against are the same (`READ`).
    """
    if (out := leaving_link(Path(path), folder=True)) is not None:   # the file itself a link out, or a folder above
        raise UnreadableError([SpecProblem(Location(printable(str(out[0]))), message="a symbolic link leading out of "
                                           f"{tree_words()}", expected="a case file inside it", hint="archgen reads "
                                           "no file through a link that leaves the repository: name the file it "
                                           "points at, or copy it into the tree")])
    if hidden_through_link(Path(path)):
        raise UnreadableError([SpecProblem(Location(printable(str(path))), message="a symbolic link to a hidden file "
                                           "or folder", expected="a case file that is not hidden", hint="archgen reads "
                                           "no hidden file (.git, .env), not even through a link")])
    docs = load_file(Path(path), keys="'schema' and 'cases'")
    known = READ.get(tuple(map(id, docs)))
    if known is not None and all(a is b for a, b in zip(known[0], docs, strict=True)) and _same(known[1]):
        resume_gc()
        return known[2]
    doc = docs[0]
    problems: list[SpecProblem] = []
    if len(docs) != 1:
        problems.append(SpecProblem(doc.locate(()), message="a case file holds one YAML document",
                                    expected="one mapping with 'schema' and 'cases'"))
    data = doc.data
    if data.get("schema") != SCHEMA:
        problems.append(SpecProblem(doc.locate(("schema",)), path="schema", value=data.get("schema"),
                                    expected=f"'{SCHEMA}'"))
    raw = data.get("cases")
    if not isinstance(raw, list) or not raw:
        problems.append(SpecProblem(doc.locate(("cases",)), path="cases", value=None if raw is None else raw,
                                    expected="a list of at least one case"))
        raise ValidateError(problems)
    for k in sorted(set(data) - {"schema", "cases"}):
        problems.append(SpecProblem(doc.locate((k,)), path=k, message="unknown key", expected="schema, cases"))
    if problems:
        raise ValidateError(problems)
    entries: list[tuple[int, Case | Refused]] = []
    seen: set[str] = set()
    accs: dict[str, Accelerator] | None = None
    for i, item in enumerate(raw):
        name = got if isinstance(item, dict) and isinstance(got := item.get("id"), str) else f"cases[{i}]"
        try:
            case = Case.model_validate(item)
        except ValidationError as err:
            entries.append((i, Refused(name, tuple(problems_from(err, doc, Case, ("cases", i))))))
            continue
        found = check_case(case, doc, i)
        if case.training is not None and case.model is not None:   # the catalog read once, for the first
            accs = accs if accs is not None else load_accelerators()
            if dispatch := _dispatch(case, doc, i, accs):
                found.append(dispatch)
        if case.id in seen:
            found.insert(0, SpecProblem(doc.locate(("cases", i, "id")), path=f"cases.{i}.id",
                                        message=f"duplicate case id '{case.id}'"))
        seen.add(case.id)
        entries.append((i, Refused(case.id, tuple(found)) if found else case))
    resume_gc()  # a command's start-up ends here: the collector back on (`archgen.startup`)
    found_file = CaseFile(doc, tuple(entries))
    if all(shared(d) for d in docs):   # documents `load_file` gave, which no one changes: the objects kept
        READ.put(tuple(map(id, docs)), (tuple(docs), accs, found_file))
    return found_file


#: `read_case_file`'s results by the file's loaded documents, with the catalog accelerators its training cases were
#: checked against (None: none read): the scoring, the accuracy page and the tests read the same 26 files some 130
#: times a test session, each read validating every case again (about 7 ms a file, pipe31).
READ = Memo[tuple[tuple[SourceDocument, ...], dict[str, Accelerator] | None, CaseFile]](64)


def _same(accs: dict[str, Accelerator] | None) -> bool:
    """Whether the catalog's accelerators are still the models `accs` holds (None: none were read: True)."""
    if accs is None:
        return True
    now = load_accelerators()
    return now.keys() == accs.keys() and all(now[k] is v for k, v in accs.items())


def _dispatch(case: Case, doc: SourceDocument, i: int, accs: dict[str, Accelerator]) -> SpecProblem | None:
    """`dispatcher_case_problem` of a training case, located in its file; None where its part is not in the catalog."""
    if case.system.accelerator not in accs:
        return None
    found = dispatcher_case_problem(case, case_hardware(case, accs))
    if found is None:
        return None
    key, message = found
    return SpecProblem(doc.locate(("cases", i, "training") + ((key,) if key else ())),
                       path=".".join((case.id, "training", key)).rstrip("."), message=message)


def read_cases(path: str | Path) -> tuple[list[Case], SourceDocument]:
    """Parse and validate a case file, strictly: every problem of every case is raised at once, located."""
    cf = read_case_file(path)
    if cf.refused:
        raise ValidateError([p for r in cf.refused for p in r.problems])
    return cf.cases, cf.doc


def case_hardware(case: Case, accelerators: dict[str, Accelerator], *, nvls: bool = False) -> Hardware:
    """The `Hardware` of a case's system; `nvls` turns NVLink SHARP on where the accelerator has it."""
    s = case.system
    so = s.scale_out
    su = accelerators[s.accelerator].scale_up
    nvls = nvls and bool(su and su.in_network_reduction)
    hw = hardware_for(accelerators[s.accelerator], scale_up_size=s.scale_up.domain,
                        scale_up_bandwidth=s.scale_up.bandwidth, scale_out_bandwidth=so.bandwidth if so else None,
                        oversubscription=so.oversubscription if so else 1.0, pod=so.pod if so else 0,
                        in_network_reduction=nvls, scale_out_reduction=bool(so and so.in_network_reduction),
                        scale_out_latency=so.latency if so else DEFAULT_SCALE_OUT_LATENCY,
                        host=HostShare(h.capacity, h.link, h.bandwidth, h.efficiency) if (h := s.host_memory) else None)
    if s.scale_up.torus:   # a torus domain (a TPU slice): its groups on its rings, as `perf.workload.cluster` does
        hw = replace(hw, torus=tuple(s.scale_up.torus),
                     torus_link_bandwidth=hw.scale_up_bandwidth / max(torus_degree(s.scale_up.torus), 1))
    return job_share(hw, s.count, s.scale_up.job_domain or 0)  # as a workload's `placement` (comm.placement)


def footprint(case: Case, hw: Hardware, job: ServeJob | None = None) -> Footprint:
    """The `Footprint` of a training or serving case on `hw` (its `serve_job`, `job` where given)."""
    if case.training is not None:
        return Footprint(hw, training=training_estimate(case, hw))
    assert case.inference is not None, "called for a training or serving case (a collective holds no memory)"
    return Footprint(hw, job=job or serve_job(case, hw), tp=case.inference.tp)


def predict(case: Case, accelerators: dict[str, Accelerator]) -> dict[str, float]:
    """The model's value (SI) for every metric the case measured (`predicted`'s values)."""
    return predicted(case, accelerators).values


def predicted(case: Case, accelerators: dict[str, Accelerator], *, load: bool = True,
              launch_host: float | None = None) -> Prediction:
    """The model's value (SI) for every metric the case measured; a simulated serving run's also has its `load`.

    A training case the stack refuses (`training_problems`) is an `AnalyseError`, whoever built it.

    `load` (`perf.serve.run.ServingRun.load`) is no metric: it picks the load bin of the case's latency errors in the
    band table (`perf.workload.band_source.compute_table`, docs/gen_bands.py). `load=False` leaves it NaN and the
    replica's capacity run out (`scheduler.estimate_serving`), for a caller that reads only the measured metrics
    (`scoring.unstated`'s ranges). `launch_host`: a serving case's host seconds per kernel launch in place of its
    `kernel_launch`'s (`perf.hw.launch`; `scoring.unstated`'s TensorRT launch range).
    """
    if case.collective is not None:
        c = case.collective
        hw = case_hardware(case, accelerators, nvls=c.algorithm in ("nvls", "nvls_tree"))
        size = float(c.size.to("B").magnitude)
        n = case.system.count
        t = float(collective_time(hw, c.op, size, n, algorithm=c.algorithm))
        return Prediction({"time": t, "busbw": float(bus_bandwidth(c.op, size, t, n))})
    hw = case_hardware(case, accelerators)
    if case.training is not None:
        return trained(case, hw)
    inf = case.inference
    assert inf is not None, "a case is a collective, a training or an inference job (model.workload.job_kind)"
    job = serve_job(case, hw)
    job = job if launch_host is None else replace(job, launch_host=launch_host)
    rate = replica_rate(inf.arrival_rate, inf.replicas)
    est, run = estimate_serving(hw, job, inf.tp, None if isinstance(inf.batch, str) else inf.batch, rate,
                                replicas=inf.replicas, load=load)
    pct = {} if run is None else {"ttft_p50": run.ttft.p50, "ttft_p99": run.ttft.p99, "tpot_p50": run.tpot.p50,
                                  "tpot_p99": run.tpot.p99, "load": run.load}
    return Prediction({"tokens_per_second": float(est.tokens_per_second_replica) * inf.replicas,
                       "time": float(est.ttft), "ttft": float(est.ttft), "tpot": float(est.tpot), **pct},
                      footprint(case, hw, job), run)


def trained(case: Case, hw: Hardware, step: TrainingEstimate | None = None) -> Prediction:
    """A training case's `Prediction` on `hw`; `step` its `training_estimate` where a caller already made it.

    A training case the stack refuses (`training_problems`, a flipped switch's as well) is an `AnalyseError`.
    """
    dispatch = dispatcher_case_problem(case, hw)
    if problems := training_problems(case) + ([dispatch] if dispatch else []):
        raise AnalyseError(f"case '{case.id}': the stack refuses its training: "
                           + "; ".join(f"{k or 'layout'}: {m}" for k, m in problems))
    est = step if step is not None else training_estimate(case, hw)
    return Prediction(training_metrics(case, hw, float(est.step_time)), Footprint(hw, training=est))


def training_estimate(case: Case, hw: Hardware, micro_batch: int | None = None, stack: str | None = None,
                      host_op: float | None = None) -> TrainingEstimate:
    """The model's estimate for a training case, at its own micro-batch and stack unless others are given.

    `host_op`: the host's seconds per eager operation in place of the measured one (`Job.host_op`).
    """
    t = case.training
    assert t is not None, "called for training cases"
    name = stack or on_vendor(t, hw.vendor).stack
    knobs = resolve(name, stated_knobs(t), t.precision)
    job = Job.from_knobs(Arch.from_model(_model(case), t.mtp_layers), t.seq_len, t.global_batch, t.precision, knobs,
                         name, vendor=hw.vendor)
    job = job if host_op is None else replace(job, host_op=host_op)
    zero = t.zero if t.zero is not None else (1 if knobs.distributed_optimizer else 0)
    lay = Layout(t.tp, t.pp, t.dp, micro_batch or t.micro_batch, t.cp, t.ep, virtual_stages(t),
                 RECOMPUTE_CODES[t.recompute], knobs.sequence_parallel, zero, pipeline_options(t),
                 OFFLOAD_CODES[t.offload], t.etp)
    return estimate_training(hw, job, lay)


def stack_range(case: Case, accelerators: dict[str, Accelerator] | None = None, scored: Prediction | None = None
                ) -> dict[str, tuple[float, float]]:
    """Each measured metric's lowest and highest prediction over the stack profiles.

    Only for a training case that states no stack (its stated switches kept; the profiles that refuse its layout
    left out: `stacks.variants`, those that cannot place its pipeline split, `refused.runs_split`, and those whose
    code lacks a feature it states, `stack_features.missing`); empty otherwise. At the profile the case is scored at
    the case's `scored` prediction is reused where given (`Prediction.made_on`), not made again.
    """
    t = case.training
    if t is None or "stack" in t.model_fields_set:
        return {}
    accs = accelerators if accelerators is not None else load_accelerators()
    hw = case_hardware(case, accs)
    arch = Arch.from_model(_model(case))
    own = on_vendor(t, hw.vendor).stack if scored is not None and scored.made_on(hw) else None
    preds = [scored.values if scored is not None and name == own else
             training_metrics(case, hw, float(training_estimate(case, hw, stack=name).step_time))
             for name, _ in variants(stated_knobs(t), t.precision, False, t.stack, hw.vendor, arch.experts, t.tp)
             if runs_split(name, arch.layers, t.pp, virtual_stages(t), pipeline_options(t))
             and not missing(name, t, *arch.model_features)]
    return {m.metric: (min(p[m.metric] for p in preds), max(p[m.metric] for p in preds)) for m in case.measured}


def case_vendor(case: Case, accelerators: dict[str, Accelerator]) -> str:
    """The vendor of a case's accelerator ('' where the catalog has none): it picks the stack a case states none of."""
    acc = accelerators.get(case.system.accelerator)
    return acc.vendor if acc is not None else ""


def serve_job(case: Case, hw: Hardware | None = None) -> ServeJob:
    """The serving job a case's `inference` states on its hardware `hw` (`case_hardware` where not given).

    A `max_batch_size` it leaves out is its engine's default on that hardware (`engine_defaults.batch_size_of`), and
    so is a `kv_reserve` (`engine_defaults.kv_reserve_of`) and the KV cache's share of memory
    (`engine_defaults.kv_rule_of`).
    """
    inf = case.inference
    assert inf is not None, "called for serving cases"
    on = hw if hw is not None else case_hardware(case, load_accelerators())
    most, _ = batch_size_of(inf, on)
    rule, fraction, refused = kv_rule_of(inf, on.vendor)
    if refused:   # another engine's fraction on the part's vendor's engine: not ignored
        raise AnalyseError(f"case '{case.id}': " + "; ".join(why for _, why in refused))
    return job_of(inf, Arch.from_model(_model(case)), most, kv_reserve_of(inf, on.vendor)[0], rule, fraction)


#: The metrics a case's `flop_counting` formula counts.
FLOP_METRICS = frozenset({"tflops_per_gpu", "model_flops_per_gpu", "mfu"})


def flop_note(case: Case) -> str | None:
    """Why a case's FLOP metrics count fewer FLOPs than the model's own count, where it trains MTP layers.

    Its TFLOP/s and MFU are predicted by the formula its source counted by (`megatron_flops`: SC21's eq. 3 or NeMo's
    llama3), over the model's step time, so that predicted and measured count alike; none of those formulas has a
    multi-token prediction term, while the model's own count (`Arch.model_flops`, an estimate's MFU) has Megatron-LM's.
    The MTP layers are in the step time either way. None for a case that trains none or measures no FLOP metric.
    """
    t = case.training
    if t is None or not t.mtp_layers or case.flop_counting is None or not (
            FLOP_METRICS & {m.metric for m in case.measured}):
        return None
    share = Arch.from_model(_model(case), t.mtp_layers).mtp_share(t.seq_len)
    return (f"TFLOP/s and MFU by its flop_counting, {case.flop_counting}, the formula its source counted by, which has "
            f"no multi-token prediction term: the {t.mtp_layers} MTP layer(s) it trains are in the predicted step "
            f"time, not in these FLOPs (the model's own count, Megatron-LM's, adds {100 * share:.3g} % for them)")


def training_metrics(case: Case, hw: Hardware, step: float) -> dict[str, float]:
    """Every training metric a case may measure, from the predicted step time (SI)."""
    t = case.training
    assert t is not None, "called for training cases"
    out = {"step_time": step, "tokens_per_second": t.global_batch * t.seq_len / step}
    if case.flop_counting is not None:
        # the source's formula, without the MTP layers the model's count has (`flop_note`)
        flops = megatron_flops(Arch.from_model(_model(case)), t.global_batch, t.seq_len, case.flop_counting)
        out["model_flops_per_gpu"] = out["tflops_per_gpu"] = flops / step / case.system.count   # one metric, two names
        out["mfu"] = out["model_flops_per_gpu"] / hw.peak_for(t.precision)
    return out


def _model(case: Case) -> CaseModel:
    """The model a training or inference case names (`model.workload.job_kind` refuses such a case without)."""
    assert case.model is not None, "a training or inference case names its model"
    return case.model


def flash_attention_check(path: str | Path) -> list[tuple[dict, float]]:
    """Each row of a flash-attention forward measurement file (no causal mask) with the model's TFLOP/s for it.

    The file names its accelerator and gives batch, heads, seq_len, head_dim and the measured `tflops` per row
    (4 · batch · heads · seq_len² · head_dim FLOP over the kernel time, as FlashAttention's benchmarks count).
    """
    (doc,) = load_file(Path(path))
    hw = hardware_for(load_accelerators()[doc.data["accelerator"]], scale_up_size=1)  # one device
    out = []
    for row in doc.data["rows"]:
        b, h, s, d = row["batch"], row["heads"], row["seq_len"], row["head_dim"]
        t = K.attention_forward(hw, "bf16", batch=b, q_len=s, kv_len=s, heads=h, head_dim=d, kernel="flash",
                                causal=False)
        out.append((row, float(4.0 * b * h * s * s * d / t / 1e12)))
    return out
