"""What a validation case leaves unstated, as a range of predictions rather than a fitted value.

A case is scored at the documented defaults (`scoring/cases.py`); where its source leaves a knob open that moves the
prediction, the accuracy page and `archgen estimate --cases` also give the lowest and highest prediction over the
values that knob takes in practice. None of these predictions enters a score.

* Training: the stack profiles (`cases.stack_range`), for a case that states no stack (it is scored at the newest),
  and the switches its stack leaves unsettled (`unsettled_range`, `switch_allows.UNSETTLED`).
  A training case that leaves `recompute` out is scored without recomputation (the format's default) and ranges
  over none, selective and full, each that fits the memory model (`recompute_span`). And every training case over
  the host's time per eager operation, 13.48 to 20 us (`host_range`, `HOST_OPS`), where that moves it.
* Collectives (`collective_range`):
  * **the network latency** NCCL adds per step across domains (`Hardware.scale_out_latency`, NCCL's
    `latencyInter`), which the network transport declares and a benchmark rarely states: 0 for NCCL's own
    InfiniBand/RoCE and socket transports (NVIDIA/nccl `src/transport/net_ib/init.cc` 558 and
    `src/transport/net_socket.cc` 174, `props->latency = 0`); 35 us for AWS's EFA plugin on P5en, P6-B200 and
    P6-B300, 75 us on P4d, P4de, P5, P5e and on any platform it does not know (aws-ofi-nccl `src/platform-aws.cpp`
    at commit 2daf7d303aa1, `platform_data_map[].latency` and the fall-through default). Open when the group
    crosses scale-up domains and the case states no `scale_out.latency`.
  * **NVLink SHARP (NVLS)**, which a case runs only when it names `nvls`/`nvls_tree` (NCCL needs the fabric
    manager's multicast support, which a measurement does not state). Open for `algorithm: auto` on an accelerator
    that has it: NCCL then takes NVLS inside a domain and NVLSTree across domains where they are faster.
* Training on an accelerator whose GEMM efficiency in the case's precision, or whose HBM or flash-attention
  efficiency, or whose GEMM tile's fixed K-loop steps, is a stated range, not a measurement (`efficiency.gemm_range`,
  `hbm_range`, `flash_range`, `gemm_k_fixed_steps_range`; `training_efficiency_range`): the prediction at the ends
  of those ranges. An efficiency the part states neither as a figure nor as a range (a user part) has the catalog's
  measured range (`perf.hw.assumed_gemm`, `perf.hw.assumed_efficiency`); every shipped part states each.
* Serving (`serving_range`): **the KV-cache precision** of a case served in FP8 or FP4 that states no
  `kv_precision`. It is scored with the KV cache in FP8 (`kv_cache_dtype.serving_kv_dtype`), but TensorRT-LLM's
  `KvCacheConfig(dtype="auto")` takes it from the checkpoint's `kv_cache_quant_algo` and falls back to the model's
  16-bit dtype, and a benchmark table rarely states it; so the range runs from the FP8 cache to a BF16 one. And,
  as for training, the ends of the accelerator's stated HBM and flash-attention efficiency ranges, and of its
  scale-up link efficiency range where the replica spans more than one accelerator (a tp-1 replica sends nothing
  over the links: its point stands for both ends); not its GEMM efficiency or K-loop fixed-step ranges, which a
  serving estimate's own notes span (`perf.workload.efficiency_range`). And **the KV cache fraction** of a case
  that states none where its engine's own documentation gives a range (`model.kv_memory.KvRule.documented`;
  `open_fraction`): TensorRT-LLM's performance overview runs 0.95 "in many cases" and falls back to "0.90 or lower"
  (perf-overview.md at 00f37686aa), so the range runs over 0.90 and 0.95 beside the point, scored at the engine's
  default 0.9 (`kv_rule_of`); the source allows lower, which is said, not spanned. vLLM's 0.9 is a default, not a
  range: none is taken. And **a
  TensorRT engine's launch** (`kernel_launch: tensorrt`, a run without CUDA graphs): the host time of one kernel's
  launch is cited as a range, 5-20 us (`perf.hw.launch.TENSORRT_LAUNCH`); the case is scored at the low end and
  ranges to the high end, where a short iteration waits for its host's launches.

Each range takes the case's scored prediction where given (`unstated_span(scored=)`) and reads it at the end whose
inputs are the case's own (the case itself on equal hardware, `Prediction.made_on`) rather than predicting the case
again; the other ends are predicted without a serving replica's capacity run (`predicted(load=False)`), which only
the load bin of a scored case reads.
"""

from __future__ import annotations

import dataclasses
from itertools import product
from math import isclose

from archgen.model.accelerator import Accelerator
from archgen.model.cases import Case
from archgen.model.kv_memory import KV_RULES, KvRule
from archgen.model.switch_allows import unsettled_words
from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.perf.hw.assumed_efficiency import effective_range, point
from archgen.perf.hw.kv_cache_dtype import serving_kv_dtype
from archgen.perf.hw.launch import HOST_OPS, TENSORRT_LAUNCH
from archgen.perf.serve.engine_defaults import kv_rule_of
from archgen.perf.train.stacks import on_vendor
from archgen.perf.workload.efficiency_range import range_ends
from archgen.scoring.cases import (
    case_hardware,
    case_vendor,
    predicted,
    stack_range,
    trained,
    training_estimate,
    training_metrics,
)
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.prediction import Prediction
from archgen.scoring.unstated_shape import shape_range, unsettled_switches

#: Latencies (s) that NCCL's network transports declare as their per-step `latency` (see the module docstring):
#: NCCL's IB/RoCE and socket transports, aws-ofi-nccl on P5en/P6-B200/P6-B300, and on P4d/P5/P5e (its default).
DECLARED_NET_LATENCIES = (0.0, 35e-6, 75e-6)


#: Serving precisions whose KV cache a source may leave open (quantised weights; a 16-bit model keeps a 16-bit cache).
QUANTISED_SERVING = ("fp8", "fp4")


def open_fraction(case: Case, accelerators: dict[str, Accelerator]) -> KvRule | None:
    """A serving case's engine rule where the case states no KV cache fraction and the engine documents a range.

    The range is `KvRule.documented`; the engine the one the case is predicted with (`engine_defaults.kv_rule_of`).
    None otherwise: a stated fraction, an engine with a default only (vLLM's), a case that does not serve.
    """
    inf = case.inference
    if inf is None:
        return None
    rule, _, refused = kv_rule_of(inf, accelerators[case.system.accelerator].vendor)
    return rule if rule.documented is not None and getattr(inf, rule.key) is None and not refused else None


def open_knobs(case: Case, accelerators: dict[str, Accelerator]) -> tuple[str, ...]:
    """The knobs a case's source leaves open: 'network latency', 'NVLS' (collectives), 'KV cache' (serving) ..."""
    inf = case.inference
    eff = accelerators[case.system.accelerator].efficiency
    link = ("scale-up efficiency",) if effective_range(eff, "scale_up") is not None else ()
    hbm = (("HBM efficiency",) if effective_range(eff, "hbm") is not None else ()) + (
        ("flash efficiency",) if effective_range(eff, "flash") is not None else ()) + link
    if inf is not None:
        rule = open_fraction(case, accelerators)
        return ("KV cache",) * (inf.precision in QUANTISED_SERVING and inf.kv_precision is None) + (
            (_fraction_knob(rule),) if rule is not None else ()) + ("TensorRT launch",) * (
            inf.kernel_launch == "tensorrt") + hbm
    t = case.training
    if t is not None:
        kloop = ("K-loop fixed steps",) * (eff.gemm_k_fixed_steps_range is not None)
        return ("GEMM efficiency",) * (t.precision in eff.gemm_range or t.precision not in eff.gemm) + kloop + hbm
    c = case.collective
    if c is None:
        return ()
    s = case.system
    so = s.scale_out
    out = []
    if so is not None and s.count > s.scale_up.domain and "latency" not in so.model_fields_set:
        out.append("network latency")
    su = accelerators[s.accelerator].scale_up
    if c.algorithm == "auto" and c.op != "all_to_all" and su is not None and su.in_network_reduction:
        out.append("NVLS")
    return (*out, *link)


#: How each open knob reads beside a range.
KNOB_VALUES = {"network latency": "network latency 0/35/75 us", "NVLS": "NVLS off/on", "KV cache": "KV cache fp8/bf16",
               "GEMM efficiency": "the catalog's stated GEMM efficiency range",
               "K-loop fixed steps": "the catalog's stated range of a GEMM tile's fixed cost in K-loop steps",
               "HBM efficiency": "the catalog's stated HBM efficiency range",
               "flash efficiency": "the catalog's stated flash-attention efficiency range",
               "scale-up efficiency": "the catalog's stated scale-up link efficiency range",
               "TensorRT launch": "a TensorRT engine's host time per kernel launch "
                                  f"{'/'.join(f'{t * 1e6:g}' for t in TENSORRT_LAUNCH)} us (HolisticTraceAnalysis)"}


def _fraction_knob(rule: KvRule) -> str:
    """The open knob of an engine's documented KV cache fractions: 'TensorRT-LLM KV cache fraction'."""
    return f"{rule.engine_name} KV cache fraction"


#: The documented fractions in words; the low end is the lowest the source names, and a lower one is said, not spanned.
KNOB_VALUES |= {_fraction_knob(r): f"{r.engine_name}'s KV cache fraction {'/'.join(f'{f:.2f}' for f in r.documented)} "
                f"(its {r.key}, as its documentation names for its published runs; a lower one is not spanned)"
                for r in KV_RULES.values() if r.documented is not None}


def describe(knobs: tuple[str, ...]) -> str:
    """The open knobs of a range with the values they were taken at ('network latency 0/35/75 us, NVLS off/on')."""
    return ", ".join(KNOB_VALUES[k] for k in knobs)


def collective_range(case: Case, accelerators: dict[str, Accelerator] | None = None
                     ) -> dict[str, tuple[float, float]]:
    """Each measured metric's lowest and highest prediction over a collective case's open knobs (`open_knobs`).

    Empty for a case that leaves none open (or is not a collective).
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    c = case.collective
    knobs = open_knobs(case, accs) if c is not None else ()
    if not knobs or c is None:
        return {}
    stated_nvls = c.algorithm in ("nvls", "nvls_tree")
    nvls_values = (False, True) if "NVLS" in knobs else (stated_nvls,)
    rng = effective_range(accs[case.system.accelerator].efficiency, "scale_up")
    links = rng if "scale-up efficiency" in knobs and rng else (None,)
    preds = []
    for nvls, latency, link in product(nvls_values, DECLARED_NET_LATENCIES if "network latency" in knobs else (None,),
                                       links):
        hw = case_hardware(case, accs, nvls=nvls)
        if latency is not None:
            hw = dataclasses.replace(hw, scale_out_latency=latency)
        if link is not None:
            hw = dataclasses.replace(hw, scale_up_efficiency=link)
        size = float(c.size.to("B").magnitude)
        n = case.system.count
        t = float(collective_time(hw, c.op, size, n, algorithm=c.algorithm))
        preds.append({"time": t, "busbw": float(bus_bandwidth(c.op, size, t, n))})
    return {m.metric: (min(p[m.metric] for p in preds), max(p[m.metric] for p in preds)) for m in case.measured}


def serving_range(case: Case, accelerators: dict[str, Accelerator] | None = None, scored: Prediction | None = None
                  ) -> dict[str, tuple[float, float]]:
    """Each measured metric's lowest and highest prediction over a serving case's open KV cache and efficiencies.

    The KV cache runs FP8 or BF16, its fraction over the engine's documented ends and its default (`KvRule.spanned`),
    the HBM and flash-attention efficiencies the ends of the accelerator's stated ranges. Empty unless the case
    serves FP8 or FP4 weights and states no `kv_precision`, states no fraction where its engine documents a range
    (`open_fraction`), launches from a TensorRT engine (`TENSORRT_LAUNCH`), or its accelerator's HBM or flash
    efficiency is a stated range (`open_knobs`). The case's
    `scored` prediction is reused where given, at the end whose inputs are the case's own (`_at`).
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    knobs = open_knobs(case, accs)
    inf = case.inference
    if not knobs or inf is None:
        return {}
    own = serving_kv_dtype(inf.precision, inf.kv_precision)   # the KV cache the case is scored with: the case itself
    rule = open_fraction(case, accs)   # its documented fractions, and the default the case is scored at
    kvs = [_variant(case, kv if kv != own else None, rule.key if rule is not None and f != rule.default else "", f)
           for kv, f in product(("fp8", "bf16") if "KV cache" in knobs else (own,),
                                rule.spanned if rule is not None else (None,))]
    acc = accs[case.system.accelerator]
    eff = acc.efficiency
    # a replica of one accelerator (tp 1, so ep 1: it divides tp) sends nothing over the scale-up links, so both ends
    # of their range predict the same: the one at the point stands for them (tests/perf/test_unstated.py holds it)
    ends = product(*((effective_range(eff, n) if k in knobs and (n != "scale_up" or inf.tp > 1) else None)
                     or (point(eff, n),) for n, k in (("hbm", "HBM efficiency"), ("flash", "flash efficiency"),
                                                       ("scale_up", "scale-up efficiency"))))
    parts = [{**accs, acc.id: acc.model_copy(update={"efficiency": eff.model_copy(
        update={"hbm": m, "flash": f, "scale_up": u})})} for m, f, u in ends]
    # a TensorRT engine's launch over its cited range: the low end is the point the case is scored at
    launches = TENSORRT_LAUNCH if "TensorRT launch" in knobs else (TENSORRT_LAUNCH[0],)
    preds = [_at(kv, a, case, scored) if host == TENSORRT_LAUNCH[0] else
             predicted(kv, a, load=False, launch_host=host).values for kv, a, host in product(kvs, parts, launches)]
    return {m.metric: (min(p[m.metric] for p in preds), max(p[m.metric] for p in preds)) for m in case.measured}


def _variant(case: Case, kv: str | None, key: str, fraction: float | None) -> Case:
    """`case` served with the KV cache `kv` and its engine's fraction `key` at `fraction`.

    `kv` None or `key` "": as the case states it. The case itself where both are its own, whose scored prediction
    `_at` reuses.
    """
    inf = case.inference
    update: dict[str, object] = ({"kv_precision": kv} if kv is not None else {}) | ({key: fraction} if key else {})
    return case if not update or inf is None else case.model_copy(update={"inference": inf.model_copy(update=update)})


def _at(variant: Case, accs: dict[str, Accelerator], case: Case, scored: Prediction | None) -> dict[str, float]:
    """A serving range's prediction at one end: `variant` of `case` on the accelerators `accs` (SI).

    Where the variant is the case itself on the hardware the case's `scored` prediction was made on (the end whose
    KV cache and efficiencies are the case's own) the model reads the same inputs: that prediction is reused. Else
    predicted without the replica's capacity run (`predicted`, `load=False`): a range reads no load.
    """
    if scored is not None and variant is case and scored.made_on(case_hardware(case, accs)):
        return scored.values
    return predicted(variant, accs, load=False).values


def training_efficiency_range(case: Case, accelerators: dict[str, Accelerator] | None = None,
                              scored: Prediction | None = None) -> dict[str, tuple[float, float]]:
    """Each measured metric's prediction at the ends of the case accelerator's stated efficiency ranges.

    Empty unless the case trains in a data type whose GEMM efficiency the catalog states as a range, or on an
    accelerator whose HBM or flash efficiency it states as a range (`open_knobs`). An end that is the case's own
    hardware (each efficiency its point at an end of its range) reuses the case's `scored` prediction where given.
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    if case.training is None or not open_knobs(case, accs):
        return {}
    hw, dt = case_hardware(case, accs), case.training.precision
    preds = [scored.values if scored is not None and scored.made_on(h) else
             training_metrics(case, h, float(training_estimate(case, h).step_time)) for h in range_ends(hw, dt)]
    return {m.metric: (min(p[m.metric] for p in preds), max(p[m.metric] for p in preds)) for m in case.measured}


def host_range(case: Case, accelerators: dict[str, Accelerator] | None = None, scored: Prediction | None = None
               ) -> dict[str, tuple[float, float]]:
    """Each measured metric's range over the host's time per eager operation (`HOST_OPS`), a training case's.

    No source times Megatron-core's and Transformer Engine's operations on the host per MoE forward (docs/
    perf-model.md, Limitations), so the point (an eager `torch.nn.Linear`) is not a ceiling: the range goes to the
    launch call's usual high end. Empty where the host stays hidden at that end too (nothing moves), and for any
    other case. The point reuses the case's `scored` prediction where given.
    """
    t = case.training
    if t is None:
        return {}
    hw = case_hardware(case, accelerators if accelerators is not None else load_accelerators())
    ends = [scored.values if scored is not None and scored.made_on(hw) else
            training_metrics(case, hw, float(training_estimate(case, hw).step_time)),
            training_metrics(case, hw, float(training_estimate(case, hw, host_op=HOST_OPS[1]).step_time))]
    if all(isclose(ends[1][k], ends[0][k], rel_tol=1e-9) for k in ends[0]):
        return {}
    return {m.metric: (min(p[m.metric] for p in ends), max(p[m.metric] for p in ends)) for m in case.measured}


def unsettled_range(case: Case, accelerators: dict[str, Accelerator] | None = None
                    ) -> dict[str, tuple[float, float]]:
    """Each measured metric's range over the switches the case's stack leaves unsettled and the case leaves out.

    `switch_allows.UNSETTLED` (Primus's configurations split on gradient-accumulation fusion and the fused cross
    entropy; megatron-lm-2021 has no RoPE, so a RoPE model's fusion is open); the stack is the stated one, or its
    accelerator vendor's newest (`stacks.on_vendor`). Empty otherwise. Each end is estimated, not refused as a stated
    value the stack's code lacks would be (`trained`): the case does not state it.
    """
    t = case.training
    accs = accelerators if accelerators is not None else load_accelerators()
    open_ = unsettled_switches(case, accs)
    if t is None or not open_:
        return {}
    hw = case_hardware(case, accs)   # each end estimated, not refused: the case does not state it (`UNSETTLED`)
    preds = [training_metrics(case, hw, float(training_estimate(case.model_copy(update={"training": t.model_copy(
        update=dict(zip(open_, combo, strict=True)))}), hw).step_time)) for combo in product(*open_.values())]
    return {m.metric: (min(p[m.metric] for p in preds), max(p[m.metric] for p in preds)) for m in case.measured}


#: The activation recomputation modes a training case that leaves `recompute` out ranges over (`recompute_span`).
RECOMPUTE_MODES = ("none", "selective", "full")


def recompute_span(case: Case, accelerators: dict[str, Accelerator] | None = None, scored: Prediction | None = None
                   ) -> tuple[dict[str, tuple[float, float]], tuple[str, ...]]:
    """Each measured metric's range over the activation recomputation a training case leaves out, and its modes.

    The modes of `RECOMPUTE_MODES` that fit in HBM by the model, each estimated once and its fit read off that
    estimate; the mode the case takes by default (none) is the case itself, whose `scored` prediction is reused where
    given. ({}, ()) where the case states `recompute` (or is not a training case).
    """
    t = case.training
    if t is None or "recompute" in t.model_fields_set:
        return {}, ()
    hw = case_hardware(case, accelerators if accelerators is not None else load_accelerators())
    preds: dict[str, dict[str, float]] = {}
    for mode in RECOMPUTE_MODES:
        if mode == t.recompute and scored is not None and scored.made_on(hw):
            held = scored.footprint.training if scored.footprint is not None else None
            if held is not None and bool(held.fits):
                preds[mode] = scored.values
            continue
        variant = case.model_copy(update={"training": t.model_copy(update={"recompute": mode})})
        if bool((est := training_estimate(variant, hw)).fits):   # the modes that fit, as `case_memory.fits`
            preds[mode] = trained(variant, hw, est).values
    if not preds:
        return {}, ()
    return ({m.metric: (min(p[m.metric] for p in preds.values()), max(p[m.metric] for p in preds.values()))
             for m in case.measured}, tuple(preds))


def unstated_range(case: Case, accelerators: dict[str, Accelerator] | None = None, scored: Prediction | None = None
                   ) -> dict[str, tuple[float, float]]:
    """A case's range over what it leaves unstated: stack profiles, open collective knobs, KV-cache precision ..."""
    return unstated_span(case, accelerators, scored)[0]


def unstated_span(case: Case, accelerators: dict[str, Accelerator] | None = None, scored: Prediction | None = None
                  ) -> tuple[dict[str, tuple[float, float]], str]:
    """`unstated_range` and what it spans, in words: the one reading of the accuracy page and `estimate --cases`.

    A training case's range is the widest over the stack profiles (`cases.stack_range`, a case that states no
    stack), the accelerator's stated efficiency ranges (`training_efficiency_range`), the switches its stack
    leaves unsettled (`unsettled_range`), the recomputation it leaves out (`recompute_span`) and its model's unstated
    position embedding and QK norm (`unstated_shape.shape_range`); the words name
    each that moved it. ({}, "") where none is open. `scored` is the case's own prediction (`cases.predicted`, a
    scored case's `Scored.prediction`), where given: each range reuses it at its end whose inputs are the case's
    own rather than predicting the case again (`Prediction.made_on`).
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    if case.collective is not None or case.inference is not None:
        got = collective_range(case, accs) if case.collective is not None else serving_range(case, accs, scored)
        return got, describe(open_knobs(case, accs)) if got else ""
    assert case.training is not None, "a case is a collective, a training or an inference job"
    switches = unsettled_switches(case, accs)
    recompute, modes = recompute_span(case, accs, scored)
    parts = [(stack_range(case, accs, scored), "the stack profiles (the case states none)"),
             (training_efficiency_range(case, accs, scored), describe(open_knobs(case, accs))),
             (host_range(case, accs, scored), "the host's time per eager operation " + "/".join(
                 f"{h * 1e6:g}" for h in HOST_OPS) + " us (an eager PyTorch operation on an x86 host; the CUDA "
              "launch call's usual high end, HolisticTraceAnalysis)"),
             (unsettled_range(case, accs), "the switches its stack leaves unsettled: " + unsettled_words(
                 on_vendor(case.training, case_vendor(case, accs)).stack, switches)),
             (recompute, "recompute " + "/".join(modes) + " (not stated; the modes that fit in memory)"),
             shape_range(case, accs, scored)]
    spans = [(r, words) for r, words in parts if r]
    if not spans:
        return {}, ""
    return ({k: (min(r[k][0] for r, _ in spans), max(r[k][1] for r, _ in spans)) for k in spans[0][0]},
            "; ".join(words for _, words in spans))
