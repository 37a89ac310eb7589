"""The pipeline's performance stage: estimate every `Workload` that names its cluster.

Each estimate also places the kernels of one layer of its chosen layout on the accelerator's roofline
(`perf/workload/roofline.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from archgen.binding import BoundRequirement
from archgen.build import Design
from archgen.errors import ArchgenError, WorkloadError
from archgen.model import Cluster
from archgen.model.unsettled import Unsettled
from archgen.model.workload import Model, Workload
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.roofline import Roofline
from archgen.topology import ScaleOutPath

if TYPE_CHECKING:
    from archgen.perf.train.stacks import Used


@dataclass(frozen=True)
class WorkloadResult:
    """A workload's estimate and the roofline of its layout's kernels, or why it could not be estimated.

    A collective workload also carries its predicted nccl-tests curve: (sizes in B, busbw in B/s), 8 B to 16 GiB.
    """

    workload: Workload
    estimate: Estimate | None
    error: str = ""
    roofline: Roofline | None = None
    curve: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    vendor: str = ""  # its cluster's accelerator vendor: its stack where it states none (`stacks.on_vendor`)
    error_at: tuple[str | int, ...] = ()  # the workload's field the error is about (`ArchgenError.subject`), if any
    #: Another document's field the error is about (a part's `peak`), which PERF003 names with its line; else None.
    error_elsewhere: tuple[str, tuple[str | int, ...]] | None = None
    #: `error` in a customer's words where it names a key or tells the team what to state (a `Worded` error's), or "".
    error_public: str = ""
    #: A training job's stack and every switch its estimate used, with where each came from (`stacks.explain`, as
    #: `archgen estimate --explain` lists them): what the document says the step time assumed. Empty otherwise.
    switches: tuple[Used, ...] = ()
    #: The object path of its cluster's compute fabric where `error` is that its topology is infeasible, so it gives
    #: no taper to run on (`ScaleOutPath.withheld`, raised as `WorkloadError.fabric`); "" otherwise. The fabric's own
    #: error (NET001, NET003, NET018) stands, so PERF003 does not repeat it; the workload's figures are not provided
    #: with this reason (`operations_stage`) and the error cascade folds its findings under that error.
    refused_by: str = ""

    @property
    def path(self) -> str:
        """Object path of the workload."""
        return f"workload/{self.workload.id}"

    @property
    def not_estimated(self) -> str:
        """Why none of its figures is provided, read after the workload's own name ("w's mfu is not provided: ...").

        "The job", not its id again: the finding, row or cell already names it (review62: three times in one line).
        """
        return f"the job cannot be estimated: {self.error}"


def estimate_workloads(specs, scale_out: Mapping[str, ScaleOutPath] | None = None,
                       design: Design | None = None) -> dict[str, WorkloadResult]:
    """Estimate each workload with a `cluster` on that cluster, keyed by object path.

    `scale_out` holds, by cluster id, the compute fabric as the network analysis sized it. `design` binds the
    requirements other documents state on each workload (`Design.elsewhere`): their memory targets bound its layout
    search as its own do (`perf.workload.memory_limit`), as `check` judges them on it.

    Sensitivities are included, and the roofline of the chosen layout's kernels.

    Unknown model or cluster ids are left to the REF checks; a layout that cannot run becomes a result with an
    `error`, reported by PERF003.
    """
    from archgen.perf.comm.collectives import busbw_curve
    from archgen.perf.train.stacks import explain
    from archgen.perf.workload.cluster import estimate_hardware, estimate_on_job, machine, took_all
    from archgen.perf.workload.roofline import workload_roofline
    out: dict[str, WorkloadResult] = {}
    for w in specs.of(Workload):
        model = specs.get(w.model) if w.model else None
        cluster = specs.get(w.cluster) if w.cluster else None
        if not isinstance(cluster, Cluster) or (w.collective is None and not isinstance(model, Model)):
            continue
        vendor, path, on = "", (scale_out or {}).get(cluster.id), None
        try:
            on = machine(cluster, specs.items, path)
            vendor = on.hardware.vendor
            hw = estimate_hardware(w, on)   # the job's: the estimate and a collective's curve are timed on it
            est = estimate_on_job(w, model, on, hw, elsewhere=tuple(
                b.req for b in (design.elsewhere(w.id) if design is not None else ())))
            running = est.metrics.get("concurrency")
            roofline = workload_roofline(w, model, on.hardware, est.layout,
                                         float(running.m) if running is not None else None) \
                if model is not None else None
            # on the hardware the estimate timed its point on (the job's share of a domain, a rack hop; words38)
            curve = busbw_curve(hw, w.collective.op, est.accelerators, w.collective.algorithm) \
                if w.collective else None
            used = tuple(explain(w.training, est.layout, model.moe is not None, vendor,
                                 model.position_embedding == "rope")) \
                if w.training is not None and isinstance(model, Model) else ()
            result = WorkloadResult(w, est, roofline=roofline, curve=curve, vendor=vendor, switches=used)
        except ArchgenError as err:  # a WorkloadError's reason: PERF003 names the workload itself (`estimate_hardware`
            # refuses a cluster whose compute fabric is infeasible: `refused_by`, which PERF003 leaves to the fabric)
            if isinstance(err, WorkloadError) and on is not None:
                err = took_all(err, w, on)   # as `archgen estimate` says it
            at = err.subject[1] if err.subject and err.subject[0] == w.id else ()
            why = err.reason if isinstance(err, WorkloadError) else err.args[0] if err.args else ""
            result = WorkloadResult(w, None, str(why) or str(err), vendor=vendor, error_at=at,
                                    error_elsewhere=err.subject if err.subject and not at else None,
                                    error_public=getattr(why, "public", ""),
                                    refused_by=err.fabric if isinstance(err, WorkloadError) else "")
        out[result.path] = result
    return out


def judge_workloads(workloads: Mapping[str, WorkloadResult], requirements: Iterable[BoundRequirement],
                    withheld: Mapping[str, Mapping[str, str]] | None = None,
                    unsettled: Mapping[str, Unsettled] | None = None,
                    assumed: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
                    rests: Mapping[str, str] | None = None) -> dict[str, WorkloadResult]:
    """The pipeline's one judgement of each workload's requirements, on its finished estimate (cost and goodput in).

    `requirements` are the workloads' own, as `build` bound them (`Design.workload_requirements`); `withheld` gives,
    by object path and metric, why a metric is not provided (`analyse.operations.Operations.withheld`): a requirement on
    it is not provided with that reason. `unsettled` gives, by object path and metric, the other end of a figure
    that rests on an input nobody gave (`analyse.operations.Operations.unsettled`), and `assumed` the assumed inputs
    a figure rests on (`Operations.assumed`). `rests` gives, by object path, the unresolved references a workload
    rests on, through its cluster too (`build.Design.rests_note`): none of its requirements is judged, as a
    Requirements document's on it is not (`checks.judgement.unjudged`) and the error cascade folds its findings.
    """
    bound: dict[str, list] = {}
    for b in requirements:
        bound.setdefault(b.subject, []).append(b.req)
    out = {}
    for path, r in workloads.items():
        if r.estimate is not None:
            judged = judge_requirements(bound.get(path, ()), r.estimate, (withheld or {}).get(path),
                                        (unsettled or {}).get(path), (assumed or {}).get(path),
                                        (rests or {}).get(path, ""))
            r = replace(r, estimate=replace(r.estimate, requirements=judged))
        out[path] = r
    return out
