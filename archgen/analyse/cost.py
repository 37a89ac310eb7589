"""Cost: capex from the cluster's BOM, opex from its analysed load, TCO per year and per accelerator-hour.

- Prices: a `Prices` document's price of a part or rack where one lists it, else the part's own `price`.
- Capex: every BOM line (racks, systems, switches, shelves, PDUs, CDUs, transceivers and cable assemblies) at its
  price; a system's price includes what is fitted in it. One unpriced line and capex is not provided, nor is any
  figure that rests on it (`CAPEX_METRICS`, and a workload's `JOB_COST_METRICS`): never a capex that counts a part
  as free (COST002 names the parts).
- Energy: the average IT load (each system's and switch's `power.typical` where published, else `power.max`, plus
  optics) for the facility's `utilisation` share of 8,766 h, the idle load (`power.idle` where a part states it,
  else its average draw: assumed) for the rest, x PUE x electricity price; the peak is the cluster's `it_power`.
- Capital is recovered over `depreciation_years` at `discount_rate` with the capital recovery factor
  r / (1 - (1 + r)^-n) (straight line, 1/n, at r = 0).
- TCO per year = recovered capital + energy + space (racks x space per rack per month x 12).
- Per accelerator-hour: TCO per year over every hour of every accelerator (owning), over the hours they are used
  (x 1 / utilisation) and over the goodput hours of the cluster's largest training job (x 1 / goodput); a job's
  cost per hour is the used-hour cost x its accelerators, and per token that over its goodput tokens per hour
  (training) or served tokens (inference).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, overload

from archgen.analyse.assumed import assumed_inputs, sweep_words
from archgen.analyse.bom import optics_outside_systems
from archgen.analyse.goodput import (
    CHECKPOINT_METRICS,
    checkpoint_bytes,
    cluster_unsettled,
    failure_ends,
    failures_of,
    goodput,
    no_checkpoint_target,
    rate_sets,
    still_withheld,
    unblocked_metrics,
    unsettled,
    workload_metrics,
)
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.operations import Operations
from archgen.analyse.reliability import analyse_reliability, job_interruptions
from archgen.build import Design
from archgen.model import Model, Switch, System
from archgen.model.cost import Price
from archgen.model.prices import Prices
from archgen.perf.train.goodput import Failures
from archgen.perf.workload.derived import cost_per_token
from archgen.perf.workload.results import WorkloadResult
from archgen.units import Q_, Q, currency
from archgen.validate import Specs

HOURS_PER_YEAR = 8766.0

#: Cluster figures that rest on every BOM line's price: not provided while one is unpriced.
CAPEX_METRICS = ("capex", "capital_cost_per_year", "tco_per_year", "tco_per_accelerator_hour",
                 "tco_per_used_accelerator_hour", "tco_per_goodput_accelerator_hour", "network_capex_share")
#: A workload's figures that rest on its cluster's TCO.
JOB_COST_METRICS = ("job_cost_per_hour", "cost_per_token", "cost_per_million_tokens")
#: A cluster's figures that rest on its facility's `cost:` (energy price, rent, depreciation and discount rate).
FACILITY_METRICS = ("energy_cost_per_year", "space_cost_per_year", "capital_recovery_factor", "capital_cost_per_year",
                    "tco_per_year", "tco_per_accelerator_hour", "tco_per_used_accelerator_hour",
                    "tco_per_goodput_accelerator_hour")
#: BOM kinds that make up the network: switches, and transceivers and cable assemblies (`network_capex_share`).
NETWORK_KINDS = ("Switch", "Link")


@dataclass(frozen=True)
class CapexLine:
    """One priced (or unpriced) BOM line."""

    part: str
    kind: str
    quantity: int
    unit_price: Q | None
    basis: str = ""
    source: str = ""
    priceable: bool = True
    listed: str = ""  # the `Prices` document the price comes from ("" for the part's own)

    @property
    def total(self) -> Q | None:
        """Quantity x unit price."""
        return None if self.unit_price is None else self.unit_price * self.quantity


@dataclass(frozen=True)
class Cost:
    """A cluster's capex, opex and TCO, and what they rest on."""

    cluster: str
    currency: str | None
    lines: tuple[CapexLine, ...]
    capex: Q | None
    power_average: Q
    power_peak: Q
    energy_per_year: Q | None
    space_per_year: Q | None
    capital_per_year: Q | None
    tco_per_year: Q | None
    per_accelerator_hour: Q | None
    problems: tuple[str, ...] = ()
    assumed: tuple[str, ...] = ()
    metrics: dict[str, Q] = field(default_factory=dict)
    power_idle: Q | None = None
    utilisation: float = 1.0
    recovery_factor: float | None = None
    no_opex: str = ""  # why the facility's figures and the TCO are not provided ("" where they are)

    @property
    def unpriced(self) -> tuple[CapexLine, ...]:
        """BOM lines of catalog parts and racks without a price."""
        return tuple(line for line in self.lines if line.unit_price is None and line.priceable)

    @property
    def withheld(self) -> str:
        """Why the capex and what rests on it are not provided ("" where they are)."""
        if not self.unpriced:
            return ""
        names = ", ".join(f"{line.part} x{line.quantity}" for line in self.unpriced)
        return f"{self.cluster}'s capex rests on unpriced parts ({names}; COST002)"

    @property
    def accessories(self) -> tuple[CapexLine, ...]:
        """BOM lines counted by rule with no catalog part to price (rails, blanking panels, cords, patch cords)."""
        return tuple(line for line in self.lines if not line.priceable)

    @property
    def per_used_accelerator_hour(self) -> Q | None:
        """TCO per accelerator-hour in use: the owning cost over the facility's utilisation."""
        return None if self.per_accelerator_hour is None else self.per_accelerator_hour / self.utilisation

    def breakdown(self) -> dict[str, Q]:
        """Capex by kind of part (Rack, System, Switch, Link, ...), for the capex chart."""
        out: dict[str, Q] = {}
        for line in self.lines:
            if line.total is not None:
                out[line.kind] = out.get(line.kind, Q_(0, self.currency)) + line.total
        return dict(sorted(out.items(), key=lambda kv: -kv[1].m))


def capital_recovery(rate: float, years: float) -> float:
    """Capital recovery factor r / (1 - (1 + r)^-n); 1/n at r = 0.

    The annuity that repays a loan of 1 over n years at rate r (HOMER Energy's definition; Wikipedia, "Capital
    recovery factor": 10 % over 10 years gives 0.163).
    """
    return 1 / years if rate == 0 else rate / (1 - (1 + rate) ** -years)


def price_list(specs: Specs) -> dict[str, tuple[Price, str]]:
    """The `Prices` documents' prices by part or rack id, with the document each comes from.

    Where two lists price one part, the first by document id gives it (COST004 reports the disagreement).
    """
    out: dict[str, tuple[Price, str]] = {}
    for doc in sorted(specs.of(Prices), key=lambda d: d.id):
        for part, price in doc.prices.items():
            out.setdefault(part, (price, doc.id))
    return out


def analyse_cost(specs: Specs, a: ClusterAnalysis) -> Cost | None:
    """Capex, opex and TCO of a cluster; None when nothing in it carries a price and its facility no cost."""
    listed = price_list(specs)
    lines: list[CapexLine] = []
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if line.kind == "Rack":
            rack = a.cluster.rack_types.get(line.part)
            part = rack.spec if rack is not None else None
        price, doc = listed.get(line.part, (getattr(part, "price", None), ""))
        lines.append(CapexLine(line.part, line.kind, line.quantity, price.capex if price else None,
                               price.basis if price else "", price.source if price else "", part is not None, doc))
    facility = a.cluster.facility
    fc = facility.cost if facility is not None else None
    if fc is None and all(line.unit_price is None for line in lines):
        return None
    problems: list[str] = []
    currencies = {currency(line.unit_price) for line in lines if line.unit_price is not None}
    if fc is not None:
        currencies |= {currency(fc.energy.price), currency(fc.space_per_rack)}
    cur = currencies.pop() if len(currencies) == 1 else None
    if cur is None:
        problems.append(f"prices in several currencies ({', '.join(sorted(c for c in currencies if c))}); archgen "
                        "does not convert them: give every price in one currency")
    assumed = sorted({f"{line.part} price" for line in lines if line.basis == "assumed"})
    if fc is not None and facility is not None:   # fc is the facility's cost
        assumed += [f"{facility.id} {what}" for what, basis in (("energy price and PUE", fc.energy.basis),
                                                                ("space cost and depreciation", fc.basis))
                    if basis == "assumed"]
    average, peak = _load(specs, a), a.metrics.get("it_power", Q_(0, "kW"))
    utilisation = fc.utilisation if fc is not None else 1.0
    idle, idle_assumed = _load(specs, a, idle=True)
    if utilisation < 1 and idle_assumed:
        assumed.append(f"idle draw of {', '.join(idle_assumed)} (taken as their average draw)")
    priced = [line.total for line in lines if line.total is not None]
    complete = not any(line.unit_price is None and line.priceable for line in lines)
    capex = sum(priced[1:], priced[0]).to(cur) if priced and cur and complete else None
    no_opex = "" if fc is not None else (
        f"facility '{facility.id}' gives no `cost:` (energy price and PUE, rent, depreciation and discount rate)"
        if facility is not None else f"cluster '{a.cluster.spec.id}' names no facility, so no energy price or rent")
    if cur is None:
        return Cost(a.cluster.spec.id, None, tuple(lines), None, average, peak, None, None, None, None, None,
                    tuple(problems), tuple(assumed), power_idle=idle, utilisation=utilisation,
                    no_opex=f"{'; '.join(problems)} (COST001)")
    energy = space = capital = tco = per_hour = crf = None
    if fc is not None:
        load = average * utilisation + idle * (1 - utilisation)
        energy = (load * Q_(HOURS_PER_YEAR, "h") * fc.energy.pue * fc.energy.price).to(cur)
        space = (fc.space_per_rack * a.cluster.rack_total * Q_(1, "year")).to(cur)
        crf = capital_recovery(fc.discount_rate, fc.depreciation_years)
        if capex is not None:
            capital = capex * crf
            tco = capital + energy + space
            if a.accelerators:
                per_hour = tco / (a.accelerators * HOURS_PER_YEAR)
    cost = Cost(a.cluster.spec.id, cur, tuple(lines), capex, average, peak, energy, space, capital, tco, per_hour,
                tuple(problems), tuple(assumed), power_idle=idle, utilisation=utilisation, recovery_factor=crf,
                no_opex=no_opex)
    cost.metrics.update(cost_metrics(cost))
    return cost


@overload
def _load(specs: Specs, a: ClusterAnalysis) -> Q: ...
@overload
def _load(specs: Specs, a: ClusterAnalysis, idle: Literal[True]) -> tuple[Q, list[str]]: ...


def _load(specs: Specs, a: ClusterAnalysis, idle: bool = False) -> Q | tuple[Q, list[str]]:
    """Average IT load: typical (else maximum) draw of systems and switches, plus optics outside their figures.

    The optics are those `analyse.bom.optics_outside_systems` counts, each module once.

    With `idle`, the load with no job running: each part's `power.idle` where it states one, else its average
    draw; and the ids of the parts whose idle draw is so assumed.
    """
    total, assumed = Q_(0, "kW"), []
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if isinstance(part, System | Switch):
            draw = part.power.typical or part.power.max
            if idle:
                if part.power.idle is None:
                    assumed.append(part.id)
                draw = draw if part.power.idle is None else part.power.idle
            total = total + draw * line.quantity
    total = (total + (optics_outside_systems(a, a.cabling.tiers) if a.cabling is not None else Q_(0, "kW"))).to("kW")
    return (total, sorted(set(assumed))) if idle else total


def cost_metrics(c: Cost) -> dict[str, Q]:
    """The cost figures as named quantities (amounts in the cluster's currency)."""
    m: dict[str, Q] = {"power_average": c.power_average}
    if c.power_idle is not None and c.utilisation < 1:
        m["power_idle"] = c.power_idle
    if c.recovery_factor is not None:
        m["capital_recovery_factor"] = Q_(c.recovery_factor, "")
    for name, value in (("capex", c.capex), ("energy_cost_per_year", c.energy_per_year),
                        ("space_cost_per_year", c.space_per_year), ("capital_cost_per_year", c.capital_per_year),
                        ("tco_per_year", c.tco_per_year), ("tco_per_accelerator_hour", c.per_accelerator_hour),
                        ("tco_per_used_accelerator_hour", c.per_used_accelerator_hour)):
        if value is not None:
            m[name] = value
    if c.capex is not None and c.capex.m > 0:
        network = [line.total for line in c.lines if line.kind in NETWORK_KINDS and line.total is not None]
        m["network_capex_share"] = (sum(network, Q_(0, c.currency)) / c.capex).to("")
    return m


def workload_cost(c: Cost, accelerators: int, tokens_per_second: Q | None) -> dict[str, Q]:
    """A job's cost per hour (its accelerators' used hours) and per token from its cluster's cost."""
    if c.per_used_accelerator_hour is None:
        return {}
    per_hour = c.per_used_accelerator_hour * accelerators
    m = {"job_cost_per_hour": per_hour}
    if tokens_per_second is not None and tokens_per_second.m > 0:
        per_token = cost_per_token(c.per_used_accelerator_hour, accelerators, tokens_per_second.m_as("1/s"))
        m["cost_per_token"] = per_token
        m["cost_per_million_tokens"] = per_token * 1e6
    return m


# --- the pipeline stage: reliability and cost of every cluster and training workload -----------------------------

def analyse_operations(design: Design, clusters: dict[str, ClusterAnalysis],
                       workloads: dict[str, WorkloadResult]) -> tuple[Operations, dict[str, WorkloadResult]]:
    """Reliability and cost of each cluster, goodput and cost per token of each workload on one.

    Returns the findings and the workloads with the new metrics added (the pipeline then judges their requirements,
    `perf.workload.results.judge_workloads`).
    """
    ops = Operations()
    for path, analysis in clusters.items():
        rel = analyse_reliability(design.specs, analysis)
        ops.reliability[path] = rel
        analysis.metrics.update(rel.metrics)
        cost = analyse_cost(design.specs, analysis)
        if cost is not None:
            ops.cost[path] = cost
            analysis.metrics.update(cost.metrics)
            if cost.withheld:
                _withhold(ops, path, CAPEX_METRICS, cost.withheld)
            if cost.no_opex:   # no facility cost, or prices in several currencies (then no capex either)
                _withhold(ops, path, FACILITY_METRICS + (CAPEX_METRICS if cost.currency is None else ()),
                          cost.no_opex)
    out = dict(workloads)
    largest: dict[str, tuple[int, str]] = {}
    no_goodput: dict[str, str] = {}   # cluster path: why a training job on it has no goodput (REL006)
    for path, r in workloads.items():
        est, w = r.estimate, r.workload
        a = clusters.get(f"cluster/{est.cluster}") if est is not None else None
        if a is None or est is None or not est.fits or (w.training is None and w.inference is None):
            continue
        tps = est.metrics.get("tokens_per_second")
        extra: dict[str, Q] = {}
        other: dict[str, Q] = {}   # the figures at the other end of an unknown blocking time (REL008)
        if w.training is not None:
            model = design.specs.get(w.model) if w.model is not None else None   # a training job names one
            if not isinstance(model, Model):   # an estimate that fits resolved its model; unreachable otherwise
                continue
            if not w.checkpoint.tokens:
                _withhold(ops, path, ("time_to_train", "goodput_time_to_train"), NO_TOKEN_BUDGET)
            g = goodput(ops.reliability[a.cluster.path], a, design.specs, w, model, est.gpus)
            if g is None:  # no checkpoint storage (REL006): its interruptions are known, its goodput is not
                extra = job_interruptions(ops.reliability[a.cluster.path], est.gpus)
                # what the storage must hold, and the time to train, need none
                extra["checkpoint_size"] = Q_(checkpoint_bytes(model, w.checkpoint.bytes_per_parameter), "B").to("TB")
                if w.checkpoint.tokens and tps is not None and tps.m > 0:   # needs no goodput
                    extra["time_to_train"] = (Q_(w.checkpoint.tokens, "") / tps).to("day")
                tps = None
                why = f"{no_checkpoint_target(design.specs, a, w) or 'its checkpoints have nowhere to go'} (REL006)"
                _withhold(ops, path, CHECKPOINT_METRICS + JOB_COST_METRICS[1:], why)
                no_goodput.setdefault(a.cluster.path, f"its training job {w.id} has no goodput: {why}")
            else:
                ops.goodput[path] = g
                extra = workload_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
                other = unblocked_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
                for names, why in still_withheld(g):   # an assumed blocking time (REL008), spares none hold (REL003)
                    _withhold(ops, path, names, why)
                    extra = {k: v for k, v in extra.items() if k not in names}
                tps = extra.get("goodput_tokens_per_second")  # withheld: no cost per token, not one on raw tokens/s
                if (est.gpus, path) > largest.get(a.cluster.path, (0, "")):
                    largest[a.cluster.path] = (est.gpus, path)
        cost = ops.cost.get(a.cluster.path)
        if cost is not None:
            extra |= workload_cost(cost, est.gpus, tps)
            other |= workload_cost(cost, est.gpus, other.get("goodput_tokens_per_second")) if other else {}
            for why in (cost.withheld, cost.no_opex):
                if why:
                    _withhold(ops, path, JOB_COST_METRICS, why)
        if other:
            ops.unsettled[path] = unsettled(extra, other)
        out[path] = replace(r, estimate=replace(est, metrics={**est.metrics, **extra}))
    for cpath, (_, wpath) in largest.items():   # the cluster's own goodput: that of its largest training job
        largest_est = out[wpath].estimate
        assert largest_est is not None, "only jobs with an estimate are ranked"
        m = largest_est.metrics
        cm = clusters[cpath].metrics
        cm.update({k: m[k] for k in ("goodput", "goodput_low", "goodput_high", "checkpoint_interval") if k in m})
        used = cm.get("tco_per_used_accelerator_hour")
        if used is not None and "goodput" in cm and cm["goodput"].m > 0:
            cm["tco_per_goodput_accelerator_hour"] = used / cm["goodput"].m
        if wpath in ops.unsettled:   # the cluster's goodput rests on that job's blocking time too
            ops.unsettled[cpath] = cluster_unsettled(ops.unsettled[wpath], used)
    for cpath, why in no_goodput.items():   # no training job on the cluster has a goodput to give it
        if cpath not in largest:
            _withhold(ops, cpath, ("goodput", "goodput_low", "goodput_high", "checkpoint_interval",
                                   "tco_per_goodput_accelerator_hour"), why)
    ops.assumed.update(assumed_inputs(clusters, ops, out))   # what each figure rests on that nobody sourced
    return ops, out


#: Why a training job has no time to train: nothing states how many tokens it trains on.
NO_TOKEN_BUDGET = "the workload states no token budget: give `checkpoint: {tokens: 15.6e12}` (tokens of the run)"


def _withhold(ops: Operations, path: str, metrics: tuple[str, ...], why: str) -> None:
    """Record why `metrics` of `path` are not provided; a metric withheld for two reasons gives both."""
    reasons = ops.withheld.setdefault(path, {})
    for name in metrics:
        reasons[name] = f"{reasons[name]}; {why}" if name in reasons else why


def sweep_figures(specs: Specs, a: ClusterAnalysis,
                  in_memory: bool = False) -> tuple[Failures, tuple[Failures, ...], float | None, str]:
    """What a sweep point on cluster `a` needs for goodput, its range and cost per token (cost only in USD).

    The failure figures `check` uses for the cluster's goodput and the ends of its range (`goodput.failure_ends`);
    in words, their rate sets and the assumed inputs under goodput and cost per token (`assumed.sweep_words`).
    """
    rel = analyse_reliability(specs, a)
    cost = analyse_cost(specs, a)
    per_hour = cost.per_used_accelerator_hour if cost is not None and cost.currency == "USD" else None
    central = failures_of(rel, specs, a)
    return (central, failure_ends(rel, specs, a),
            per_hour.m_as("USD") if per_hour is not None else None, "; ".join(filter(None, (
                rate_sets(rel, central.domain_nodes > 1), sweep_words(a, rel, cost, in_memory)))))
