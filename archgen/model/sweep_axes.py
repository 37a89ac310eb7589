"""A sweep's axes (`Axes`): what a `Sweep` varies, each axis's levels and how they are read, and the axes' groups.

Job axes replace a field of the workload's job; hardware axes change a figure of the hardware the model runs on,
either by a factor (a bare number, like `archgen estimate --what-if`) or to an absolute value (a quantity); facility
axes change the hall's `cost:` (docs/sweeps.md, Axes). A numeric axis may be written as a range
(`model.sweep_ranges`). Split from `model.sweep` for its size.
"""

import math
from typing import Annotated, Any, Self

from pydantic import Field, PlainSerializer, PlainValidator, PrivateAttr, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from archgen.model.engine import refuse_disaggregation
from archgen.model.field_types import Fraction, PositiveFraction, Precision, Pue
from archgen.model.serving_features import unmodelled_key
from archgen.model.spec import FieldError, Ref, Spec, raise_each
from archgen.model.sweep_ranges import RangeError, expand
from archgen.model.tiers import Ratio
from archgen.model.workload import Recompute
from archgen.money import EnergyPrice
from archgen.quantity_json import json_magnitude
from archgen.units import Dim, Q, RequestRate, format_quantity


def _level(dim: Dim | None, what: str) -> tuple[PlainValidator, PlainSerializer, WithJsonSchema]:
    """How a hardware axis value (`Annotated[float | Q, *_level(...)]`) is read, written and described.

    A bare positive number is a factor; a quantity (when `dim`) replaces the figure.
    """

    def validate(value: Any) -> float | Q:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not (math.isfinite(value) and value > 0):
                raise PydanticCustomError("factor", "expected a positive factor such as 1.5{alt}",
                                          {"alt": f" or {what} such as '{dim.example}'" if dim else ""})
            return float(value)
        if dim is None:
            raise PydanticCustomError("factor", "expected a positive factor such as 1.5 (this axis takes factors only)")
        return dim.validate(value)

    schema: dict[str, Any] = {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "string"}]} if dim \
        else {"type": "number", "exclusiveMinimum": 0}

    def serialise(value: float | Q) -> float | str:  # a quantity as the author could write it, as `Dim` does
        return format_quantity(value) if isinstance(value, Q) else value

    return PlainValidator(validate), PlainSerializer(serialise, when_used="json"), WithJsonSchema(schema)


BandwidthLevel = Annotated[float | Q, *_level(Dim("GB/s", gt=0, label="a bandwidth", example="900 GB/s"),
                                             "a bandwidth")]
RateLevel = Annotated[float | Q, *_level(Dim("TFLOPS", gt=0, label="a compute rate", example="2.25 PFLOPS"),
                                        "a compute rate")]
DataLevel = Annotated[float | Q, *_level(Dim("GB", gt=0, label="an amount of data", example="192 GB"),
                                        "an amount of data")]
PowerLevel = Annotated[float | Q, *_level(Dim("W", gt=0, label="a power", example="1200 W"), "a power")]
Factor = Annotated[float | Q, *_level(None, "")]

#: A checkpoint interval of at least 1 s (as `Checkpointing.interval` takes it).
_INTERVAL = Dim("s", ge=1, le=3.2e9, label="a checkpoint interval", example="30 min")


def _interval(value: Any) -> Q | str:
    """A `checkpoint_interval` level: a duration of at least 1 s, or 'optimal' (Daly's optimum, as `check` takes it)."""
    if value == "optimal":
        return value
    if isinstance(value, str) and value.strip()[:1] not in tuple("0123456789.+-"):
        raise PydanticCustomError("interval", "expected a duration such as '30 min', or optimal (Daly's optimum), "
                                              "got '{value}'", {"value": value})
    return _INTERVAL.validate(value)


IntervalLevel = Annotated[Q | str, PlainValidator(_interval),
                          PlainSerializer(lambda v: format_quantity(v) if isinstance(v, Q) else v, when_used="json"),
                          WithJsonSchema({"anyOf": [{"type": "string", "const": "optimal"}, {"type": "string"}]})]


class Axes(Spec):
    """What a sweep varies; the product of the axes given (a numeric one may be a range: `{from:, to:, step:}`)."""

    # where and how big
    cluster: list[Ref] | None = Field(None, min_length=1, description="Clusters to run on (ids).")
    accelerator: list[Ref] | None = Field(
        None, min_length=1, description="Accelerators (catalog ids) to put in the cluster's place: compute, memory and "
                                        "caches change, the fabric stays; power changes by the TDP difference.")
    accelerators: list[Annotated[int, Field(gt=0)]] | None = Field(
        None, min_length=1, description="Accelerators the job uses (default: the workload's, or the whole cluster).")
    # the job (training or inference, as the workload is)
    precision: list[Precision] | None = Field(None, min_length=1, description="GEMM data types.")
    kv_precision: list[Precision] | None = Field(
        None, min_length=1, description="KV-cache data types (inference), e.g. [fp8, fp4]: the workload's "
                                        "`inference.kv_precision` at each level (docs/perf-model.md, KV cache).")
    tp: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Tensor-parallel sizes.")
    pp: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Pipeline stages (training).")
    dp: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Data-parallel sizes "
                                                                                         "(training).")
    cp: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Context-parallel sizes "
                                                                                         "(training).")
    ep: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Expert-parallel sizes "
                                                                                         "(training).")
    micro_batch: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Sequences per "
                                                                                                  "micro-batch.")
    interleave: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Virtual stages "
                                                                                                 "per pipeline rank.")
    recompute: list[Recompute] | None = Field(None, min_length=1, description="Activation recomputation.")
    global_batch: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Sequences per "
                                                                                                   "step (training).")
    seq_len: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Tokens per sequence "
                                                                                              "(training).")
    batch: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Sequences per replica "
                                                                                            "(inference).")
    input_len: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Prompt tokens "
                                                                                                "(inference).")
    output_len: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1, description="Generated tokens "
                                                                                                 "(inference).")
    replicas: list[Annotated[int, Field(gt=0)]] | None = Field(
        None, min_length=1, description="Serving replicas (inference; default all accelerators / tp); tp x replicas "
                                        "beyond the accelerators is an invalid point.")
    arrival_rate: list[RequestRate] | None = Field(
        None, min_length=1, description="Requests per second arriving at the whole workload (inference, server "
                                        "scenario), e.g. ['10 1/s', '20 1/s']: the load at which TTFT and TPOT p99 "
                                        "meet a latency limit.")
    checkpoint_interval: list[IntervalLevel] | None = Field(
        None, min_length=1, description="Time between checkpoints (training), e.g. ['10 min', '1 h', optimal]: "
                                        "'optimal' is Daly's optimum at the point, as `check` takes a job that "
                                        "states none; default: the workload's `checkpoint.interval`.")
    # the hall's cost (the cluster's facility `cost:`, each level in place of its own)
    utilisation: list[PositiveFraction] | None = Field(
        None, min_length=1, description="Shares of hours the cluster runs jobs, e.g. [1, 0.8, 0.5], in place of its "
                                        "facility's `cost.utilisation`: the cost per used accelerator-hour, and so "
                                        "cost per token, at each (docs/reliability.md, Cost).")
    discount_rate: list[Fraction] | None = Field(
        None, min_length=1, description="Yearly costs of capital, e.g. [0, 0.08, 0.12], in place of the facility's "
                                        "`cost.discount_rate`: the capital recovery factor, TCO and cost per token "
                                        "at each.")
    electricity_price: list[EnergyPrice] | None = Field(
        None, min_length=1, description="Prices of electricity, e.g. ['0.05 USD/kWh', '0.12 USD/kWh'], in place of the "
                                        "facility's `cost.energy.price`, in its currency: the energy cost, TCO and "
                                        "cost per token at each (a list: quantities take no range).")
    pue: list[Pue] | None = Field(
        None, min_length=1, description="Power usage effectivenesses (facility energy over IT energy, 1 to 5), e.g. "
                                        "[1.1, 1.3, 1.6], in place of the facility's `cost.energy.pue`: the energy "
                                        "cost, TCO and cost per token at each (a sweep point's `energy_per_token` is "
                                        "IT energy, without the PUE).")
    # the cluster's compute fabric (each level a design of its own, built and checked: `commands.sweep_fabric`)
    leaf_oversubscription: list[Ratio] | None = Field(
        None, min_length=1, description="Down:up ratios of the compute fabric's leaves, e.g. ['1:1', '2:1', '3:1'], "
                                        "each in place of its `leaf.oversubscription`: the fabric is sized again "
                                        "(uplinks, spines, cables, optics), so power, cost, bisection and the "
                                        "collectives' taper follow, and `archgen check` judges the design at each "
                                        "level (docs/sweeps.md, Fabric axes).")
    spine_oversubscription: list[Ratio] | None = Field(
        None, min_length=1, description="Down:up ratios of the compute fabric's spines (a fat tree of 3 tiers), e.g. "
                                        "['1:1', '2:1'], each in place of its `spine.oversubscription`: the spines' "
                                        "uplinks and the cores are sized again, as `leaf_oversubscription` sizes "
                                        "the leaves' (docs/sweeps.md, Fabric axes).")
    # the hardware (a bare number scales the cluster's figure; a quantity replaces it)
    peak: list[RateLevel] | None = Field(
        None, min_length=1, description="Dense tensor peak of the job's data type: factors, or rates such as "
                                        "'2.5 PFLOP/s'.")
    hbm_bandwidth: list[BandwidthLevel] | None = Field(
        None, min_length=1, description="HBM bandwidth: factors, or bandwidths such as '8 TB/s'.")
    hbm_capacity: list[DataLevel] | None = Field(
        None, min_length=1, description="HBM capacity: factors, or sizes such as '288 GB'.")
    scale_up_bandwidth: list[BandwidthLevel] | None = Field(
        None, min_length=1, description="Scale-up bandwidth per accelerator per direction: factors, or bandwidths "
                                        "such as '900 GB/s' (NVLink 5; a cluster spec states both directions).")
    scale_out_bandwidth: list[BandwidthLevel] | None = Field(
        None, min_length=1, description="Scale-out bandwidth per accelerator per direction: factors, or bandwidths "
                                        "such as '800 Gb/s'.")
    scale_up_size: list[Annotated[int, Field(gt=0)]] | None = Field(
        None, min_length=1, description="Accelerators per scale-up domain (e.g. 8, 36, 72).")
    latency: list[Factor] | None = Field(None, min_length=1, description="Factors on the scale-up and "
                                                                                     "scale-out link latencies.")
    vector_peak: list[RateLevel] | None = Field(None, min_length=1, description="Non-tensor peak: factors, or rates.")
    l2_capacity: list[DataLevel] | None = Field(
        None, min_length=1, description="Last-level cache capacity: factors, or sizes.")
    l2_bandwidth: list[BandwidthLevel] | None = Field(
        None, min_length=1, description="Last-level cache bandwidth: factors, or bandwidths.")
    tdp: list[PowerLevel] | None = Field(
        None, min_length=1, description="The accelerator's power (TDP): factors, or powers such as '1200 W'. The "
                                        "cluster's IT power changes by the difference for every accelerator in it, as "
                                        "an `accelerator` axis changes it; it states the power of a point whose chip "
                                        "figures (peak, HBM, L2, vector peak) are scaled, which has none without it; "
                                        "the hall's energy cost follows it, (TDP - the part's) x PUE x price per used "
                                        "accelerator-hour (docs/sweeps.md).")

    _order: tuple[str, ...] = PrivateAttr(default=())
    _features: dict[str, str] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: Any, handler) -> Self:
        # a pool size, KV transfer or P:D ratio axis: refused as not modelled, not unknown
        refuse_disaggregation(data, cls.model_fields, cls.__name__)
        # a serving feature's axis (mtp, enable_prefix_caching, ...) is set aside for `serving_features`: whether it
        # is one depends on the workload's job, which a sweep names but does not hold (cuda_graphs is a training
        # switch); `checks.sweep.mistakes` refuses it knowing the job
        features = {k: why for k in data if (why := unmodelled_key(k, cls.model_fields))} \
            if isinstance(data, dict) else {}
        kept = {k: v for k, v in data.items() if k not in features} if features else data
        axes = handler(_expanded(kept, cls.__name__))
        axes._order = tuple(k for k in data if k in cls.model_fields) if isinstance(data, dict) else ()
        axes._features = features
        return axes

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        given = self.given()
        if not given and not self._features:   # with only a serving feature's axis, SWP001 says why it is refused
            raise ValueError("a sweep needs at least one axis, e.g. 'accelerators: [256, 512]'")
        raise_each([FieldError((name,), f"axis '{name}' lists a value twice: {', '.join(map(_text, values))}")
                    for name, values in given.items() if len(set(map(_key, values))) != len(values)],
                   type(self).__name__)
        return self

    def serving_features(self) -> dict[str, str]:
        """The axes set aside as serving features the model does not switch, each with why a serving job refuses it.

        `checks.sweep.mistakes` refuses them: on a serving job as its `inference:` keys are (`model.serving_features`),
        on another job as unknown axes.
        """
        return dict(self._features)

    def given(self) -> dict[str, list]:
        """The axes given, in the order written (the order of the points: the last axis varies fastest)."""
        names = self._order or tuple(type(self).model_fields)
        return {name: list(v) for name in names if (v := getattr(self, name)) is not None}


#: Axes of numbers, which take a range (`model.sweep_ranges`) as well as a list: of whole numbers, and of decimals.
WHOLE_AXES = ("accelerators", "tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave", "global_batch", "seq_len",
              "batch", "input_len", "output_len", "replicas", "scale_up_size")
DECIMAL_AXES = ("utilisation", "discount_rate", "pue", "leaf_oversubscription", "spine_oversubscription", "peak",
                "hbm_bandwidth", "hbm_capacity", "scale_up_bandwidth", "scale_out_bandwidth", "latency", "vector_peak",
                "l2_capacity", "l2_bandwidth", "tdp")


def _expanded(data: Any, title: str) -> Any:
    """`data` with each numeric axis written as a range (a mapping) made a list of its levels, errors at the axis."""
    if not isinstance(data, dict) or not any(isinstance(v, dict) for v in data.values()):
        return data
    out, errors = dict(data), []
    for name, value in data.items():
        if isinstance(value, dict):
            try:
                if name not in (*WHOLE_AXES, *DECIMAL_AXES):
                    raise RangeError(f"takes a list, not a range (ranges are for axes of numbers: "
                                     f"{', '.join((*WHOLE_AXES, *DECIMAL_AXES))})")
                out[name] = expand(value, name in WHOLE_AXES)
            except RangeError as err:
                errors.append(FieldError((name,), f"axis '{name}' {err}"))
    raise_each(errors, title)
    return out


#: Axes that replace a field of a training or an inference job, by job kind.
JOB_AXES = {
    "training": ("precision", "tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave", "recompute", "global_batch",
                 "seq_len", "checkpoint_interval"),
    "inference": ("precision", "kv_precision", "tp", "replicas", "batch", "input_len", "output_len", "arrival_rate"),
}
#: Axes that change the hardware the model runs on.
HARDWARE_AXES = ("peak", "hbm_bandwidth", "hbm_capacity", "scale_up_bandwidth", "scale_out_bandwidth",
                 "scale_up_size", "latency", "vector_peak", "l2_capacity", "l2_bandwidth")
#: Axes whose levels may leave a point's machine as no catalogued one is (hypothetical hardware): the hardware axes,
#: another chip in the cluster's fabric and another TDP (`perf.explore.hardware_scope.assumed`).
MACHINE_AXES = ("accelerator", *HARDWARE_AXES, "tdp")
#: Hardware axes that change the chip alone, whose power a `tdp` axis states (`perf.explore.hardware_scope.unpowered`).
CHIP_AXES = ("peak", "hbm_bandwidth", "hbm_capacity", "vector_peak", "l2_capacity", "l2_bandwidth")
#: Axes that change the cluster's facility cost, each with the field of the hall's `cost:` (`model.cost.FacilityCost`)
#: its levels replace: the cost per used accelerator-hour at each level (`analyse.sweep_figures.facility_figures`).
FACILITY_FIELDS: dict[str, tuple[str, ...]] = {"utilisation": ("utilisation",), "discount_rate": ("discount_rate",),
                                                "electricity_price": ("energy", "price"), "pue": ("energy", "pue")}
FACILITY_AXES = tuple(FACILITY_FIELDS)


def facility_levels(values: dict[str, Any]) -> tuple[float | None, ...]:
    """A point's levels of the facility axes (`FACILITY_AXES`, in order; None: not swept), hashable.

    A price as its magnitude (`quantity_json.json_magnitude`): with the point's cluster, the key of its cost
    (`perf.explore.problem.SweepProblem.facility`).
    """
    return tuple(json_magnitude(v) if isinstance(v, Q) else v for v in map(values.get, FACILITY_AXES))


#: Axes that change the cluster's compute fabric: each level is another design, sized, analysed and checked as the
#: cluster with that key in its place (`commands.sweep_fabric`), run on by the points of its level (`point_cluster`).
FABRIC_AXES = ("leaf_oversubscription", "spine_oversubscription")


def point_cluster(values: dict[str, Any]) -> str:
    """The design a point runs on: its cluster, or where a fabric axis is given, that cluster at its levels.

    The key of `SweepProblem.bases` and `facility` (with the accelerator): `dgx-b200-superpod (leaf 2:1)`, the
    words a point's reason names it by (a level that fails `archgen check`).
    """
    levels = [(name, values[name]) for name in FABRIC_AXES if name in values]
    return variant_id(values["cluster"], levels) if levels else values["cluster"]


def variant_id(cluster: str, levels: Any) -> str:
    """`cluster` at the `levels` (axis, value) of the fabric axes, in words: ``c (leaf 2:1)``."""
    said = ", ".join(f"{name.removesuffix('_oversubscription')} {value:g}:1" for name, value in levels)
    return f"{cluster} ({said})"


#: Axes whose levels are categories, not magnitudes: a sweep's plot colours its points by their combination.
CATEGORICAL = ("cluster", "accelerator", "precision", "kv_precision")


def _key(value: Any) -> Any:
    """A hashable, unit-aware key of an axis value (so '8 TB/s' and '8000 GB/s' count as the same)."""
    if isinstance(value, Q):
        return ("q", round(float(value.to_base_units().magnitude), 9), str(value.to_base_units().units))
    return value


def _text(value: Any) -> str:
    return format_quantity(value) if isinstance(value, Q) else f"{value:g}" if isinstance(value, float) else str(value)
