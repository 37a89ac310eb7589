"""Validation cases (schema `archgen-validation/1`): published measurements with the system and job they ran.

The format's own defaults are in the file header of `../shared/data/validation-cases.yaml`; the performance model's
defaults for what a case leaves out are in `archgen.scoring.cases`, which reads and scores these models.
"""

import math
from typing import ClassVar, Literal, Self

from pydantic import Field, field_validator, model_validator

from archgen import metrics
from archgen.metric import RENAMED
from archgen.model.field_types import PositiveFraction, Precision
from archgen.model.inference import Inference
from archgen.model.spec import FieldError, Spec, raise_each
from archgen.model.stack_features import missing
from archgen.model.switches import StackSwitches
from archgen.model.training_rules import fp8_recipe_problem, tp_overlap_problem
from archgen.model.workload import (
    Collective,
    Offload,
    Parallelism,
    Recompute,
    Shape,
    TrainingJob,
    job_kind,
)
from archgen.units import Q_, Bandwidth, DurationOrZero, Information, Power

SCHEMA = "archgen-validation/1"
#: The metrics a case may measure (workload metrics of `archgen.metrics`), with the SI unit each is scored in. The
#: case format keeps `tflops_per_gpu` (the shared case files measure it, in the unit each states): the metric
#: `model_flops_per_gpu` under its name before the rename (`metric.RENAMED`); a case may give either.
METRIC_UNITS = {name: metrics.find("workload", RENAMED.get(name, (name,))[0]).dimension  # type: ignore[union-attr]
                or "dimensionless"
                for name in ("step_time", "tflops_per_gpu", "model_flops_per_gpu", "mfu", "tokens_per_second", "busbw",
                             "time", "ttft", "tpot", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99")}
#: The percentiles of a simulated serving run (`scenario: concurrency`, or `server` with an `arrival_rate`).
PERCENTILES = ("ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99")
#: The metrics the model predicts for each kind of case (`archgen.scoring.cases.predict`).
KIND_METRICS = {"training": ("step_time", "tflops_per_gpu", "model_flops_per_gpu", "mfu", "tokens_per_second"),
                "inference": ("tokens_per_second", "time", "ttft", "tpot", *PERCENTILES),
                "collective": ("time", "busbw")}


class CaseScaleUp(Spec):
    """Scale-up domain of a case's system."""

    domain: int = Field(gt=0, description="Accelerators per scale-up domain.")
    bandwidth: Bandwidth = Field(description="Per accelerator per direction.")
    job_domain: int | None = Field(
        None, gt=0, description="Accelerators of each domain the job holds, where its scheduler allots aligned blocks "
                                "(Slurm `--segment` x accelerators per node: Megatron-Bridge's GB200 launcher takes "
                                "the largest segment of at most 18 four-GPU trays that divides the job's nodes, 64 of "
                                "72 for 256 GPUs). Left out: the job's ranks fill whole domains in order (or the "
                                "one domain, where the job is smaller).")

    torus: list[int] | None = Field(
        None, min_length=1, description="The domain's chips joined directly as a torus, its chips along each "
                                        "dimension (a TPU v5p slice of 8x8x8, a Trn2 instance's 4x4; product = "
                                        "`domain`): collectives run on its rings (`perf.comm.torus`), each link "
                                        "carrying `bandwidth` over the chip's links (2 per dimension of 3 or more, 1 "
                                        "per dimension of 2), every dimension wrapped. Left out: a switched domain, "
                                        "every chip one hop from every other.")

    @model_validator(mode="after")
    def _job_domain_fits(self) -> Self:
        if self.job_domain is not None and self.job_domain > self.domain:
            raise FieldError(("job_domain",), f"job_domain {self.job_domain} exceeds the domain of {self.domain} "
                                              "accelerators; expected at most the domain")
        if self.torus is not None and (min(self.torus) < 1 or math.prod(self.torus) != self.domain):
            raise FieldError(("torus",), f"torus {'x'.join(map(str, self.torus))} holds {math.prod(self.torus)} "
                                         f"accelerators, not the domain's {self.domain}; expected dimensions of at "
                                         "least 1 whose product is `domain`")
        return self


class CaseScaleOut(Spec):
    """Scale-out fabric of a case's system."""

    bandwidth: Bandwidth = Field(description="Per accelerator per direction.")
    oversubscription: float = Field(1.0, ge=1, description="Taper above `pod` accelerators.")
    pod: int = Field(0, ge=0, description="Accelerators below the oversubscribed tier.")
    in_network_reduction: bool = Field(False, description="The scale-out switches reduce in the network (SHARP).")
    latency: DurationOrZero = Field(
        Q_(0.0, "us"), description="Latency the network adds to each step across it, as its NCCL plugin declares it "
                                   "(0 for InfiniBand; 35 us on AWS P5en/P6 EFA, aws-ofi-nccl src/platform-aws.cpp).")


class CaseHostMemory(Spec):
    """Host memory of the measured system, per accelerator (where training may offload)."""

    capacity: Information = Field(description="Host memory per accelerator.")
    link: Bandwidth = Field(description="The accelerator's host link per direction (PCIe, NVLink-C2C).")
    bandwidth: Bandwidth = Field(description="CPU memory bandwidth per accelerator (a CPU optimizer step).")
    efficiency: PositiveFraction = Field(0.8, description="Achieved fraction of `link` (System.host_memory).")


class CaseSystem(Spec):
    """The measured system."""

    accelerator: str = Field(description="Catalog id of the accelerator.")
    count: int = Field(gt=0, description="Accelerators in the job.")
    scale_up: CaseScaleUp = Field(description="Scale-up domain.")
    scale_out: CaseScaleOut | None = Field(None, description="Scale-out fabric.")
    host_memory: CaseHostMemory | None = Field(None, description="Host memory per accelerator; none: no offload.")
    power: Power | None = Field(
        None, description="Board power per accelerator the run had (its TGP or power limit), where the source states "
                          "it. The model has no power-to-clock mechanism (its GEMM rates are measured at the catalog "
                          "part's own power), so a case whose power differs from the catalog's `tdp` is refused.")


class CaseModel(Shape):
    """Decoder-only transformer of a case: a `Model`'s shape, without its document fields."""


class CaseTraining(StackSwitches, TrainingJob, Parallelism):
    """Training job of a case: a Workload's `training` with its `parallelism` inline, the layout stated in full."""

    precision: Precision
    tp: int = Field(gt=0)
    pp: int = Field(gt=0)
    dp: int = Field(gt=0)
    micro_batch: int = Field(1, gt=0)
    interleave: int | None = Field(None, gt=0, description="Virtual stages per rank (1, or what pipeline_layout "
                                                           "implies).")
    recompute: Recompute = "none"
    offload: Offload = "none"

    @model_validator(mode="after")
    def _recipe_needs_fp8(self) -> Self:
        if problem := fp8_recipe_problem(self.precision, self.fp8_recipe):
            raise FieldError(("fp8_recipe",), problem)
        if problem := tp_overlap_problem(self.precision, self.overlap_tp_comm, self.fp8_recipe):
            raise FieldError(("overlap_tp_comm",), problem)
        return self


class CaseInference(Inference):
    """Inference job of a case: a Workload's `inference` with its precision, tp and batch stated."""

    #: A case states the engine's settings as its run did (AMD's offline vLLM 0.x rows: `prefill: separate`).
    REFUSE_UNHONOURED: ClassVar[bool] = False

    precision: Precision
    tp: int = Field(gt=0)
    replicas: int = Field(1, gt=0)
    batch: int | Literal["max"] = Field(description="Sequences in flight per replica: a number, or 'max' (as many as "
                                                    "the KV cache holds at the run's lengths).")

    @field_validator("batch", mode="before")
    @classmethod
    def _max_batch(cls, value):
        """'max' is kept as stated (overrides the Workload's reading of it as 'left out')."""
        if value == "max" or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
            return value
        raise ValueError(f"expected a whole number of sequences above 0, or 'max', got {value!r}")


class CaseCollective(Collective):
    """A collective benchmark (a Workload's `collective`)."""


class Measurement(Spec):
    """One measured figure."""

    metric: Literal["step_time", "tflops_per_gpu", "model_flops_per_gpu", "mfu", "tokens_per_second", "busbw", "time",
                    "ttft", "tpot", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99"]
    value: float = Field(gt=0)
    unit: str = Field(description="Unit of the value; empty for a plain number (mfu 0.45, or give \"%\": 45 %).")


class Case(Spec):
    """One published measurement with its full description."""

    id: str
    source: str
    status: Literal["confirmed", "secondary", "unconfirmed"]
    system: CaseSystem
    model: CaseModel | None = None
    training: CaseTraining | None = None
    inference: CaseInference | None = None
    collective: CaseCollective | None = None
    flop_counting: Literal["megatron_96", "model_72", "nemo_llama3"] | None = None
    measured: list[Measurement] = Field(min_length=1)
    notes: str = ""

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        kind, errors = job_kind(self, "case"), []
        if kind == "collective" and self.system.count < 2:
            errors.append(FieldError(("system", "count"), "a collective needs at least 2 accelerators, got "
                                                          f"{self.system.count}"))
        for j, m in enumerate(self.measured):
            inf = self.inference
            if m.metric not in KIND_METRICS[kind]:
                errors.append(FieldError(("measured", j, "metric"), f"a {kind} case cannot measure {m.metric}: the "
                                                                    f"model predicts {', '.join(KIND_METRICS[kind])}"))
            elif m.metric in PERCENTILES and inf is not None and not (
                    inf.scenario == "concurrency" or (inf.scenario == "server" and inf.arrival_rate)):
                errors.append(FieldError(("measured", j, "metric"), f"{m.metric} is a percentile of a simulated run: "
                                                                    "it needs scenario: concurrency, or server with an "
                                                                    "arrival_rate"))
        t, model = self.training, self.model
        if t is not None and model is not None and t.mtp_layers > model.mtp_layers:
            errors.append(FieldError(("training", "mtp_layers"), f"mtp_layers {t.mtp_layers} exceeds the model's "
                                     f"mtp_layers ({model.mtp_layers}), the multi-token prediction modules its "
                                     f"architecture has; expected at most {model.mtp_layers}, or state them on the "
                                     "model"))
        if t is not None and model is not None and "stack" in t.model_fields_set:
            groups = model.moe.router_num_groups if model.moe else None
            errors += [FieldError(m.path, m.message)
                       for m in missing(t.stack, t, groups, model.mla.kv_lora_rank if model.mla else 0)
                       if m.path[0] == "model"]   # its training's own are its validator's (`StackSwitches`)
        needs_flops = {m.metric for m in self.measured} & {"tflops_per_gpu", "model_flops_per_gpu", "mfu"}
        if needs_flops and self.flop_counting is None:
            errors.append(FieldError(("measured",), f"measured {sorted(needs_flops)[0]} needs flop_counting "
                                                    "(megatron_96, model_72 or nemo_llama3)"))
        raise_each(errors, type(self).__name__)
        return self
