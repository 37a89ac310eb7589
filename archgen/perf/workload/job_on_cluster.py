"""A workload on a cluster as `archgen estimate` runs it: its estimate with every note and its requirements judged.

`estimate_on_cluster` is the model's estimate alone; what a design adds to it lives here, once, for the CLI and a
Python caller alike (`pipeline.job_on_cluster` makes a `JobOnCluster` from specs and a design): a note where the job
runs on another cluster than its own, a note where `archgen check` refuses network figures the estimate reads
(`input_errors`), and the workload's requirements judged on the estimate (`derived.judge_requirements`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from archgen import metrics
from archgen.as_of import expired, judging
from archgen.errors import WorkloadError
from archgen.model import Cluster
from archgen.model.requirements import Requirement
from archgen.model.site import GROUP_INDEX, MULTIMODE_GROUP_INDEX, fibre_delay, halls_used, site_span
from archgen.model.unsettled import joined
from archgen.model.workload import Model, Workload
from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.cluster import estimate_on_cluster, given_hardware, took_all
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.estimate_assumed import on_unconfirmed
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.machine import Machine
from archgen.perf.workload.run_figures import accelerator_hours, rate_ends, run_bands, time_to_train
from archgen.perf.workload.swing_note import swing_note

#: A workload's reliability, goodput, cost and energy figures: `archgen check` adds them to the estimate, `estimate`
#: does not (a job's energy rests on the cluster's average draw and the hall's PUE, which only `check` analyses).
#: A cost `check` gives only where the cluster is priced, and says so where it is not: estimate claims no more (nu68fix:
#: newuser68's GB300 job read "`archgen check` computes cost_per_million_tokens" where check said "not provided:
#: gb300-nvl72-su's capex rests on unpriced parts (...; COST002)").
PRICED = (" where every part on the cluster's bill of materials is priced, and otherwise names the unpriced parts "
          "(COST002)")
OPERATIONS = {m.name: f"`archgen estimate` gives the performance estimate only; `archgen check` computes {m.name}"
              + (PRICED if m.source.startswith("analyse/cost") else "")
              for m in metrics.declared("workload")
              if m.source.startswith(("analyse/reliability", "analyse/goodput", "analyse/cost", "analyse/job_energy",
                                      "analyse/sustainability", "analyse/job_swing"))
              or m.name == "job_it_energy"}
#: The hall's energy figures (the PUE's), which `check` does not give a job whose hall states no `cost:`, nor the run's
#: carbon and water made from them (newuser75: `estimate` read "the training job has no job_carbon").
HALL_ENERGY = ("facility_energy_per_million_tokens", "job_energy", "job_carbon", "job_market_carbon", "job_water")

#: The network checks whose errors change figures the estimate reads, each an error of `archgen check`: the scale-up
#: domain's size, links and bandwidth (NET010), the line rate a fabric or torus runs against its parts' (NET016), and
#: a torus' or dragonfly's shape against the accelerators (NET020).
INPUT_CHECKS = ("NET010", "NET016", "NET020")


@dataclass(frozen=True)
class JobOnCluster:
    """A workload, its model and the cluster it runs on, with what its estimate says besides the model's figures.

    `notes` come first on every estimate (`other_cluster_note`, `input_errors`); `requirements` are the workload's
    own as `build` bound them (`Design.workload_requirements`); `elsewhere` those other documents state on it and
    `check` judges (`Design.elsewhere`, a glob's on a metric the job cannot have left out), whose memory targets bound
    its layout search as its own do (`perf.workload.memory_limit`); both are judged on each estimate, as `check`
    judges them (tail42: before, `estimate` judged its own only, kept within a document's target and left it
    unjudged); `rests` names the unresolved references the cluster rests on (`build.Design.rests_note`), which leave
    every requirement not provided.
    """

    workload: Workload
    model: Model | None
    on: Machine
    requirements: tuple[Requirement, ...] = ()
    notes: tuple[str, ...] = ()
    rests: str = ""
    #: why `archgen check` gives the job no energy ("" where it does: its hall states `cost:`); None: not known here
    #: (a caller that built the job by hand), and no note on its energy (`energy_note`)
    no_energy: str | None = None
    elsewhere: tuple[Requirement, ...] = ()

    def estimate(self, hardware: Hardware | None = None, *, with_sensitivity: bool = True) -> Estimate:
        """The estimate `archgen estimate` prints: `estimate_on_cluster`, the notes first, the requirements judged.

        `hardware` replaces the cluster's own (a what-if, `Hardware.scaled`; anything else is an `AnalyseError`). A job
        the cluster cannot run is a `WorkloadError`; where the workload gives no accelerator count its message says it
        took the whole cluster.
        """
        hardware = given_hardware(hardware, "JobOnCluster.estimate")
        try:
            est = estimate_on_cluster(self.workload, self.model, self.on, hardware, with_sensitivity=with_sensitivity,
                                      elsewhere=self.elsewhere)
        except WorkloadError as err:
            if self.workload.accelerators:
                raise
            raise took_all(err, self.workload, self.on) from None
        est = run_figures(est, self.workload)
        added = [n for n in (energy_note(est, self.workload, self.no_energy), swing_note(est)) if n]
        why = OPERATIONS if not self.no_energy else {   # check gives none of the hall's energy either: its reason
            **OPERATIONS, **{m: f"`archgen estimate` gives the performance estimate only, and `archgen check` does not "
                                f"provide {m} either: {self.no_energy}" for m in HALL_ENERGY}}
        return replace(est, notes=[*self.notes, *est.notes, *added],
                       requirements=judge_requirements((*self.requirements, *self.elsewhere), est, why,
                                                         assumed=on_unconfirmed({}, est), rests=self.rests))


#: The hall's energy per million tokens (`analyse.job_energy`), as the energy note names it.
PER_MILLION = "facility_energy_per_million_tokens"


def run_figures(est: Estimate, workload: Workload) -> Estimate:
    """`est` with a training run's time to train and accelerator-hours, where the workload states its token budget.

    Both need only the budget (`checkpoint.tokens`) and the estimate's tokens/s, as `archgen check` computes them
    (`analyse.goodput.workload_metrics`, `run_figures.accelerator_hours`), with the step time's band (`run_bands`); the
    goodput figures need the cluster's failures and storage and stay `check`'s. Before (newuser47), `estimate` said
    "not provided" for a whole run's time and GPU-hours that it had every input for. A job that does not fit has none.
    Where the host's time moves the tokens/s (`Estimate.unsettled`), both have the other end `check` gives them
    (`rate_ends`; twins42: a target met at 13.48 us only read at risk here and not provided in `check`).
    """
    tps = est.metrics.get("tokens_per_second")
    tokens = workload.checkpoint.tokens
    if est.kind != "training" or not est.fits or not tokens or tps is None or tps.m <= 0:
        return est
    run = {"time_to_train": time_to_train(tokens, tps)}
    run |= accelerator_hours(run, est.accelerators)
    metrics = {**est.metrics, **run}
    return replace(est, metrics=metrics, bands={**est.bands, **run_bands(est, run)},
                   unsettled=joined(est.unsettled, rate_ends(est, run), metrics))


def energy_note(est: Estimate, workload: Workload, no_energy: str | None) -> str:
    """What the estimate says of the job's energy, which `archgen check` computes and `archgen estimate` does not.

    A training or serving job that fits has a facility energy per million tokens in `check` (and a training run with
    a token budget its `job_energy` and `job_it_energy`: `analyse.job_energy`, `analyse.operations_stage`): the job's
    share of the cluster's draw × the hall's PUE over its tokens/s. The draw is the cluster's analysed load (optics,
    shelves, switches), which `estimate` does not analyse, so it names the figures and the command that gives them,
    or, where the hall states no `cost:` (`no_energy`), why neither command gives them. Before (newuser48) `estimate`
    said nothing of them while `check`, `render` and the JSON gave them. "" for any other job, or `no_energy` None.
    """
    if no_energy is None or est.kind not in ("training", "inference") or not est.fits:
        return ""
    run = est.kind == "training" and bool(workload.checkpoint.tokens)
    if no_energy:   # the IT energy at maximum draw needs no PUE
        return ("energy: " + ("`archgen check` computes job_it_energy (IT energy at maximum draw, without the PUE); "
                              f"{PER_MILLION} and job_energy are" if run else f"{PER_MILLION} is")
                + f" not provided by `archgen check` either: {no_energy}")
    listed = f"{PER_MILLION}, job_energy and job_it_energy" if run else PER_MILLION
    site = ("; with the hall's `sustainability:` factors, the run's job_carbon, job_market_carbon and job_water too"
            "; the run's figures are before goodput (failures, restarts and checkpoints add to them)" if run else "")
    return (f"energy: `archgen check` computes {listed} (the job's share of the cluster's draw × the hall's PUE, "
            f"over these tokens/s){site}; `archgen estimate` gives the performance estimate only")


def other_cluster_note(workload: Workload, cluster: str) -> str:
    """A note that the workload runs on `cluster`, not on the one it names ("" where it is its own or it names none)."""
    if workload.cluster and cluster != workload.cluster:
        return f"on cluster '{cluster}' instead of the workload's '{workload.cluster}'"
    return ""


def site_note(cluster: Cluster) -> str:
    """A note that the cluster stands in several halls whose fibre delay the estimate leaves out ("" in one hall).

    The halls the layout uses (`floor.halls`), the largest distance between two of them on the site plan with their
    exit runs (`model.site.site_span`), and that distance's one-way fibre delay (`model.site.fibre_delay`, at
    single-mode's group index, which the note names, multimode's beside it: no run's media is chosen here): no
    collective latency in the estimate has a cable term, and `archgen check` gives the runs themselves (SITE001).
    """
    halls = halls_used(cluster.floor.halls, cluster.layout)
    if len(halls) < 2:
        return ""
    span = site_span(halls)
    return (f"cluster '{cluster.id}' stands in {len(halls)} halls ({', '.join(h.id for h in halls)}) whose first "
            f"racks are up to {span.m_as('m'):,.0f} m apart on the site plan, exit runs included: a collective step "
            f"over that distance pays {fibre_delay(span).m_as('us'):.2f} us of fibre delay one way at single-mode's "
            f"group index ({GROUP_INDEX}; a multimode run's {MULTIMODE_GROUP_INDEX} is 1 % slower; racks nearer "
            "each other less, a run's tray drops and slack more), which this estimate leaves out (`archgen check`, "
            "SITE001, gives the runs and the longest one's delay)")


def input_errors(cluster: Cluster, problems: Sequence[tuple[str, str]]) -> str:
    """A note that `archgen check` refuses the network figures the estimate runs on ("" where it does not).

    The errors are the network analysis' (`pipeline.cluster_network`) of `INPUT_CHECKS` the cluster does not waive:
    the estimate still runs on the design as stated, and says that it is one `check` refuses. A waiver past its
    `expires` waives nothing, as in `check` (judged on SOURCE_DATE_EPOCH, else today: `as_of`).
    """
    on = judging([cluster], None)
    waived = {w.check for w in cluster.waivers if not expired(w, on)}
    errors = [(c, m) for c, m in problems if c in INPUT_CHECKS and c not in waived]
    if not errors:
        return ""
    ids = ", ".join(sorted({c for c, _ in errors}))
    return (f"cluster '{cluster.id}' fails `archgen check` ({len(errors)} error(s) in what this estimate reads, {ids}; "
            f"first: {errors[0][0]} {errors[0][1]}): the estimate runs on the design as stated")
