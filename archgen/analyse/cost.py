"""Cost: capex from the cluster's BOM, opex from its analysed load, TCO per year and per accelerator-hour.

- Capex: every BOM line (racks, systems, switches, shelves, PDUs, CDUs, transceivers and cable assemblies) at its
  part's `price.capex`; a system's price includes what is fitted in it.
- Energy: average IT load (each system's and switch's `power.typical` where published, else `power.max`, plus
  optics) x facility utilisation x 8,766 h x PUE x electricity price; the peak is the cluster's `it_power`.
- Capital is recovered over `depreciation_years` at `discount_rate` with the capital recovery factor
  r / (1 - (1 + r)^-n) (straight line, 1/n, at r = 0).
- TCO per year = recovered capital + energy + space (racks x space per rack per month x 12).
- Per accelerator-hour: TCO per year / (accelerators x 8,766 h); a job's cost per hour is that x its
  accelerators, and per token that over its goodput tokens per hour (training) or served tokens (inference).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from archgen.analyse.goodput import Goodput, failures_of, goodput, workload_metrics
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.reliability import Reliability, analyse_reliability
from archgen.build import Design
from archgen.model import Switch, System
from archgen.perf.estimate import judge_requirements
from archgen.perf.goodput import Failures
from archgen.perf.workloads import WorkloadResult
from archgen.units import Q_, Q, currency
from archgen.validate import Specs

HOURS_PER_YEAR = 8766.0


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

    @property
    def unpriced(self) -> tuple[CapexLine, ...]:
        """BOM lines of catalog parts and racks without a price."""
        return tuple(line for line in self.lines if line.unit_price is None and line.priceable)

    @property
    def accessories(self) -> tuple[CapexLine, ...]:
        """BOM lines counted by rule with no catalog part to price (rails, blanking panels, cords, patch cords)."""
        return tuple(line for line in self.lines if not line.priceable)

    def breakdown(self) -> dict[str, Q]:
        """Capex by kind of part (Rack, System, Switch, Link, ...), for the capex chart."""
        out: dict[str, Q] = {}
        for line in self.lines:
            if line.total is not None:
                out[line.kind] = out.get(line.kind, Q_(0, self.currency)) + line.total
        return dict(sorted(out.items(), key=lambda kv: -kv[1].m))


def capital_recovery(rate: float, years: float) -> float:
    """Capital recovery factor r / (1 - (1 + r)^-n); 1/n at r = 0."""
    return 1 / years if rate == 0 else rate / (1 - (1 + rate) ** -years)


def analyse_cost(specs: Specs, a: ClusterAnalysis) -> Cost | None:
    """Capex, opex and TCO of a cluster; None when nothing in it carries a price and its facility no cost."""
    lines: list[CapexLine] = []
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if line.kind == "Rack":
            rack = a.cluster.rack_types.get(line.part)
            part = rack.spec if rack is not None else None
        price = getattr(part, "price", None)
        lines.append(CapexLine(line.part, line.kind, line.quantity, price.capex if price else None,
                               price.basis if price else "", price.source if price else "", part is not None))
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
    if fc is not None:
        assumed += [f"{facility.id} {what}" for what, basis in (("energy price and PUE", fc.energy.basis),
                                                                ("space cost and depreciation", fc.basis))
                    if basis == "assumed"]
    average, peak = _load(specs, a), a.metrics.get("it_power", Q_(0, "kW"))
    priced = [line.total for line in lines if line.total is not None]
    capex = sum(priced[1:], priced[0]).to(cur) if priced and cur else None
    if cur is None:
        return Cost(a.cluster.spec.id, None, tuple(lines), None, average, peak, None, None, None, None, None,
                    tuple(problems), tuple(assumed))
    energy = space = capital = tco = per_hour = None
    if fc is not None:
        hours = Q_(HOURS_PER_YEAR * fc.utilisation, "h")
        energy = (average * hours * fc.energy.pue * fc.energy.price).to(cur)
        space = (fc.space_per_rack * a.cluster.rack_total * Q_(1, "year")).to(cur)
        if capex is not None:
            capital = capex * capital_recovery(fc.discount_rate, fc.depreciation_years)
            tco = capital + energy + space          # unpriced lines count as nothing (COST002 lists them)
            if a.accelerators:
                per_hour = tco / (a.accelerators * HOURS_PER_YEAR)
    cost = Cost(a.cluster.spec.id, cur, tuple(lines), capex, average, peak, energy, space, capital, tco, per_hour,
                tuple(problems), tuple(assumed))
    cost.metrics.update(cost_metrics(cost))
    return cost


def _load(specs: Specs, a: ClusterAnalysis) -> Q:
    """Average IT load: typical draw of systems and switches where published, else their maximum, plus optics."""
    total = Q_(0, "kW")
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if isinstance(part, System | Switch):
            total = total + (part.power.typical or part.power.max) * line.quantity
    return (total + a.metrics.get("optics_power", Q_(0, "kW"))).to("kW")


def cost_metrics(c: Cost) -> dict[str, Q]:
    """The cost figures as named quantities (amounts in the cluster's currency)."""
    m: dict[str, Q] = {"power_average": c.power_average}
    for name, value in (("capex", c.capex), ("energy_cost_per_year", c.energy_per_year),
                        ("space_cost_per_year", c.space_per_year), ("capital_cost_per_year", c.capital_per_year),
                        ("tco_per_year", c.tco_per_year), ("tco_per_accelerator_hour", c.per_accelerator_hour)):
        if value is not None:
            m[name] = value
    return m


def workload_cost(c: Cost, accelerators: int, tokens_per_second: Q | None) -> dict[str, Q]:
    """A job's cost per hour and per token from its cluster's cost per accelerator-hour."""
    if c.per_accelerator_hour is None:
        return {}
    per_hour = c.per_accelerator_hour * accelerators
    m = {"job_cost_per_hour": per_hour}
    if tokens_per_second is not None and tokens_per_second.m > 0:
        per_token = per_hour / (tokens_per_second * Q_(3600, "s")).to("").m
        m["cost_per_token"] = per_token
        m["cost_per_million_tokens"] = per_token * 1e6
    return m


# --- the pipeline stage: reliability and cost of every cluster and training workload -----------------------------

@dataclass(frozen=True)
class Operations:
    """What the REL and COST stage found: per cluster (by path) and per training workload (by path)."""

    reliability: dict[str, Reliability] = field(default_factory=dict)
    cost: dict[str, Cost] = field(default_factory=dict)
    goodput: dict[str, Goodput] = field(default_factory=dict)


def analyse_operations(design: Design, clusters: dict[str, ClusterAnalysis],
                       workloads: dict[str, WorkloadResult]) -> tuple[Operations, dict[str, WorkloadResult]]:
    """Reliability and cost of each cluster, goodput and cost per token of each workload on one.

    Returns the findings and the workloads with the new metrics added and their requirements judged again.
    """
    ops = Operations()
    for path, a in clusters.items():
        rel = analyse_reliability(design.specs, a)
        ops.reliability[path] = rel
        a.metrics.update(rel.metrics)
        cost = analyse_cost(design.specs, a)
        if cost is not None:
            ops.cost[path] = cost
            a.metrics.update(cost.metrics)
    out = dict(workloads)
    largest: dict[str, tuple[int, str]] = {}
    for path, r in workloads.items():
        est, w = r.estimate, r.workload
        a = clusters.get(f"cluster/{est.cluster}") if est is not None else None
        if a is None or not est.fits or (w.training is None and w.inference is None):
            continue
        tps = est.metrics.get("tokens_per_second")
        extra: dict[str, Q] = {}
        if w.training is not None:
            model = design.specs.get(w.model)
            g = goodput(ops.reliability[a.cluster.path], a, design.specs, w, model, est.gpus)
            if g is None:
                continue
            ops.goodput[path] = g
            extra = workload_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
            tps = extra.get("goodput_tokens_per_second", tps)
            if (est.gpus, path) > largest.get(a.cluster.path, (0, "")):
                largest[a.cluster.path] = (est.gpus, path)
        if a.cluster.path in ops.cost:
            extra |= workload_cost(ops.cost[a.cluster.path], est.gpus, tps)
        est = replace(est, metrics={**est.metrics, **extra})
        out[path] = replace(r, estimate=replace(est, requirements=judge_requirements(w, est)))
    for cpath, (_, wpath) in largest.items():   # the cluster's own goodput: that of its largest training job
        m = out[wpath].estimate.metrics
        clusters[cpath].metrics.update({k: m[k] for k in ("goodput", "checkpoint_interval") if k in m})
    return ops, out


def sweep_figures(specs: Specs, a: ClusterAnalysis) -> tuple[Failures, float | None]:
    """What a sweep point on cluster `a` needs for goodput and cost per token (cost only in USD)."""
    failures = failures_of(analyse_reliability(specs, a, spread=False), specs, a)  # a sweep takes no range
    cost = analyse_cost(specs, a)
    per_hour = cost.per_accelerator_hour if cost is not None and cost.currency == "USD" else None
    return failures, per_hour.m_as("USD") if per_hour is not None else None
