"""Which assumed inputs (`basis: assumed`) each reliability and cost figure rests on (docs/reliability.md, Honesty).

A requirement met on such a figure is met only as far as the assumption holds: `check` says so (REQ005, info), and
the compliance matrix and `gap` show it as "met (on assumed inputs: ...)". The inputs are the ones COST003 and the
documents' open items list, split by the figures they enter:

- a price (a part's, a rack's or a `Prices` document's) enters capex and everything built on it;
- a facility's energy price and PUE, and the idle draw taken as the average draw, enter the energy cost; the PUE
  alone (one `basis` with the price) enters the facility energy and carbon, which no price enters (r39fix);
- its space cost, depreciation and discount rate (one `basis`) enter the space cost and the capital recovery;
- a `utilisation` it does not state is taken as 1, every hour used, the lowest cost per used hour: that enters the
  cost per used and per goodput accelerator-hour and a job's cost per hour and per token, never the owning cost;
- a `discount_rate` it does not state is taken as 0 (straight-line depreciation, capital that costs nothing), the
  lowest capital cost: that enters the capital recovery factor, the capital cost and every TCO figure built on it;
- switches placed in no rack (COST007) take no rack position, enclosure or PDU: the space cost, capex and TCO take
  their rack space as free (`analyse.unracked` counts it);
- a failure rate (a class of the cluster's set, or a part's own) and the hall's site events enter the interruptions
  and everything built on them; the checkpoint `storage:` enters the checkpoint times and goodput (assumed figures,
  or sourced ones taken at their stated bandwidth with no measured `write_efficiency`/`read_efficiency`); the
  checkpoint write and restore times rest on the storage alone (size over bandwidth), not on a failure rate;
- a training job's `dataset:` with `basis: assumed` enters its `dataset_read_bandwidth`;
- a node hardware class's repair time (`repair_basis: assumed`, the default) enters a training job's restart (the
  wait for a repair where no hot spare is free), goodput and spares, not its checkpoint writes or interval;
- a part class with no rate at all (REL004) is left out of them: that its failures do not matter is assumed;
- a rate set measured on another accelerator than the cluster's (REL007) enters them too: its rates are sourced, but
  that they hold for this accelerator is assumed (a GB200 design on Llama 3's H100 rates).

The ranges (`*_low`, `*_high`) span every published set and are not listed: a requirement is judged on its point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from archgen.analyse.cost import UNSTATED_DISCOUNT_RATE, UNSTATED_UTILISATION
from archgen.analyse.failure_model import HARDWARE_CLASSES
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.storage_cost import not_costed
from archgen.analyse.sustainability import JOB_SITE_METRICS
from archgen.perf.workload.estimate_assumed import on_unconfirmed

if TYPE_CHECKING:
    from archgen.analyse.cost import Cost
    from archgen.analyse.failure_model import Reliability
    from archgen.analyse.network import ClusterAnalysis
    from archgen.analyse.operations import Operations

#: The hall's PUE alone as an assumed input (`_pue_words`), and the price with it (`cost.energy`, one `basis`).
PUE_WORDS, _PAIR = "PUE", " energy price and PUE"
#: A cluster's interruption figures: they rest on its failure rates and site events.
FAILURE_METRICS = ("interruptions_per_day", "mtti", "failures_per_year")
#: Their confidence interval from the point set's own counts (`analyse.reliability.job_breakdown`): the same inputs.
CI_METRICS = tuple(f"{name}_ci_{end}" for name in ("interruptions_per_day", "mtti") for end in ("low", "high"))
#: A training job's figures that rest on its checkpoints as well as on its interruptions (storage, rates).
CHECKPOINT_FIGURES = ("checkpoint_write_time", "checkpoint_blocking_time", "checkpoint_restore_time",
                      "checkpoint_interval", "restart_time", "goodput", "goodput_tokens_per_second",
                      "goodput_time_to_train", "spares", "spare_power", "spare_space")
#: A job's cost per token and the run's whole cost (per token x its tokens): they rest on the used hour's cost.
PER_TOKEN_COSTS = ("cost_per_token", "cost_per_million_tokens", "job_cost")
#: The cost figures that rest on every input of the TCO.
TCO_METRICS = ("tco_per_year", "tco_per_accelerator_hour", "tco_per_used_accelerator_hour", "job_cost_per_hour")


def assumed_inputs(clusters: Mapping[str, ClusterAnalysis], ops: Operations,
                   workloads: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, ...]]]:
    """By object path and metric, the assumed inputs the figure rests on (only figures that rest on some).

    `workloads` are the pipeline's `WorkloadResult`s with their estimates
    (`analyse.operations_stage.analyse_operations`).
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    jobs: dict[str, tuple[str, ...]] = {}   # cluster path: what a training job's goodput rests on there
    for path, a in clusters.items():
        out[path], jobs[path] = cluster_inputs(a, ops.reliability.get(path), ops.cost.get(path))
    for path, r in workloads.items():
        est = r.estimate
        cpath = f"cluster/{est.cluster}" if est is not None else ""
        if cpath not in out:
            continue
        cluster = out[cpath]
        job = jobs[cpath] if not r.workload.checkpoint.in_memory else tuple(
            x for x in jobs[cpath] if " checkpoint storage" not in x)   # in memory: no storage written
        used = cluster.get("tco_per_used_accelerator_hour", ())   # a job's hours are used hours
        m = {"job_cost_per_hour": used}
        m |= dict.fromkeys(("interruptions_per_day", "mtti"), cluster.get("mtti", ()))
        m |= {k: v for k, v in cluster.items() if k.startswith("interruptions_per_day.") or k in CI_METRICS}
        if path in ops.goodput:   # a training job with a goodput: its tokens are goodput tokens
            m |= dict.fromkeys(CHECKPOINT_FIGURES, job)
            m |= dict.fromkeys(CHECKPOINT_FIGURES[:4], tuple(x for x in job if not x.endswith(REPAIR_WORDS)))
            m |= _checkpoint_times(r.workload, job)   # the write and restore: the storage alone, no failure rate
            m |= dict.fromkeys(PER_TOKEN_COSTS, used + job)
        else:
            m |= dict.fromkeys(PER_TOKEN_COSTS, used)
        data = r.workload.dataset
        if data is not None and data.basis == "assumed":   # the data loaders' reads: the stated bytes per token
            m["dataset_read_bandwidth"] = (f"{r.workload.id} dataset (assumed)",)
        m |= dict.fromkeys(("facility_energy_per_million_tokens", "job_energy"), _pue_words(clusters[cpath]))
        m |= {k: (() if "water" in k else _pue_words(clusters[cpath])) + _site_words(clusters[cpath], k)
              for k in JOB_SITE_METRICS}   # water is per kWh of IT energy: the PUE cancels out of it
        m = on_unconfirmed(m, est)
        out[path] = {k: v for k, v in m.items() if v}
    return {path: m for path, m in out.items() if m}


def _checkpoint_times(workload: Any, job: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """A job's checkpoint write and restore times (and a blocking write's) with the assumed inputs they rest on.

    Size over bandwidth: the checkpoint storage's figures (`job`'s words for it) and no failure rate, repair time or
    site event, which the interval and goodput rest on but these times do not (a storage architect's trial: a 9.5 s
    write "met on assumed inputs: transceiver failure rate, ..."). An asynchronous or in-memory checkpoint's
    blocking time is the copy to host memory, which rests on no storage figure.
    """
    storage = tuple(x for x in job if " checkpoint storage" in x)
    cp = workload.checkpoint
    blocking = () if cp.asynchronous or cp.in_memory else storage
    return {"checkpoint_write_time": storage, "checkpoint_restore_time": storage, "checkpoint_blocking_time": blocking}


def cluster_inputs(a: ClusterAnalysis, rel: Reliability | None,
                   cost: Cost | None) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """A cluster's figures with the assumed inputs of each, and what a training job's goodput on it rests on."""
    hall = a.cluster.facility.id if a.cluster.facility is not None else "the hall"
    every = tuple(f"{hall} site events" if name == "site events" else f"{name} failure rate"
                  for name in (rel.assumed if rel else ()))
    stopping = {c.name for c in rel.classes if c.interrupts} if rel else set()   # a redundant PDU stops nothing
    failures = tuple(x for x, name in zip(every, rel.assumed if rel else (), strict=True)
                     if name == "site events" or name.split(" (")[0] in stopping)
    if rel is not None and rel.unrated:   # a class with no rate (REL004) is left out: the MTTI is an upper bound
        left = tuple(f"{name} failures (no rate: left out)" for name in rel.unrated)
        every, failures = every + left, failures + left
    if rel is not None and rel.borrowed_input:   # sourced, but on another accelerator: that it carries over is assumed
        every, failures = every + rel.borrowed_input, failures + rel.borrowed_input
    storage = a.cluster.spec.storage
    words = f"{a.cluster.spec.id} checkpoint storage" + (   # its peak, where no measured efficiency is given
        " (at its stated bandwidth)" if storage is not None and storage.at_stated else "")
    job = failures + ((words,) if storage is not None and (storage.basis == "assumed" or storage.at_stated) else ())
    m = dict.fromkeys(FAILURE_METRICS[:2], failures) | {"failures_per_year": every}   # every part, stopping or not
    m |= dict.fromkeys(CI_METRICS, failures)
    for c in rel.classes if rel is not None else ():   # one class's interruptions and stock: its own rate's basis
        own = tuple(f"{name} failure rate" for name in (rel.assumed if rel else ()) if name.split(" (")[0] == c.name)
        m |= dict.fromkeys((f"interruptions_per_day.{c.name}", f"spare_stock.{c.name}", f"spare_demand.{c.name}"),
                           own)
    for line in rel.stock if rel is not None else ():   # spares23: a stock on an assumed turnaround names it
        if line.turnaround is not None and line.lead_basis == "assumed":
            for key in (f"spare_stock.{line.name}", f"spare_demand.{line.name}"):
                m[key] = m.get(key, ()) + (f"{line.name} turnaround {line.turnaround / 86400:.3g} d{REPAIR_WORDS}",)
    m["checkpoint_interval"] = job   # Daly's interval: the write and the MTTI, not the restart
    job += repair_words(rel)
    m["goodput"] = job
    if cost is not None:
        m |= _cost(a, cost.assumed, tuple(line.part for line in cost.lines if line.basis == "assumed"),
                   _unracked(cost))
        m["tco_per_goodput_accelerator_hour"] = m["tco_per_job_goodput_accelerator_hour"] = \
            m["tco_per_used_accelerator_hour"] + job
    return {k: v for k, v in m.items() if v}, job


#: How an assumed repair time ends among a figure's assumed inputs ("accelerator repair time 24 h (assumed)").
REPAIR_WORDS = " (assumed)"


def repair_words(rel: Reliability | None) -> tuple[str, ...]:
    """The node hardware classes whose repair time is assumed (`FailureRate.repair_basis`), with it, in words.

    A job's restart waits for a repair where no hot spare is free, and its spares are counted on the nodes in repair
    (docs/reliability.md, Hot spares): its restart, goodput and spares rest on these times, its checkpoint writes and
    Daly's interval do not.
    """
    if rel is None:
        return ()
    return tuple(dict.fromkeys(f"{c.name} repair time {c.rate.repair.m_as('h'):g} h{REPAIR_WORDS}"
                               for c in rel.classes if c.name in HARDWARE_CLASSES and c.interrupts and c.per_day
                               and c.rate is not None and c.rate.repair_basis == "assumed"))


def sweep_words(a: ClusterAnalysis, rel: Reliability | None, cost: Cost | None, in_memory: bool,
                swept: tuple[str, ...] = ()) -> str:
    """What a sweep's goodput and cost per token on cluster `a` rest on that is assumed, in words ("" for nothing).

    The sweep document's counterpart of REQ005 (`cluster_inputs`): its points are judged on the same figures. Where
    a point has a cost per token and the cluster writes checkpoints to its `storage:`, it says that the storage is
    costed at 0 (`storage_cost.not_costed`: unless its `storage:` states a price and a power). A facility level the
    sweep gives on an axis (`swept`: `utilisation`, `discount_rate`) is no unstated input of its points, nor an assumed
    electricity price and PUE where it sweeps both.
    """
    m, job = cluster_inputs(a, rel, cost)
    given = tuple(words for name, words in (("utilisation", UNSTATED_UTILISATION),
                                            ("discount_rate", UNSTATED_DISCOUNT_RATE)) if name in swept)
    if "electricity_price" in swept and "pue" in swept:   # the hall's assumed pair, both given at every point
        given += (" energy price and PUE",)
    if "pue" in swept:   # the PUE alone, as the energy and carbon figures name it (`_pue_words`)
        given += (f" {PUE_WORDS}",)
    m = {k: tuple(x for x in v if not _given(x, given)) if given else v for k, v in m.items()}
    job = tuple(x for x in job if not (in_memory and " checkpoint storage" in x))  # in memory: no storage
    said = [f"goodput rests on assumed inputs: {', '.join(job)}"] if job else []
    if cost is not None and (per_token := m.get("tco_per_used_accelerator_hour", ()) + job):
        said.append(f"cost per token on {', '.join(per_token)}")
    left = not_costed(a.cluster.spec.storage, cost.storage_priced) if cost is not None else ""
    if left and not in_memory:   # newuser23: silent before; nothing to say where its price and power are stated
        said.append(left.replace("the change", "a faster storage"))
    return "; ".join(said)


def _given(words: str, given: tuple[str, ...]) -> bool:
    """Whether an assumed input's `words` end with one of `given` (a swept level), the price and PUE as one pair."""
    if words.endswith(_PAIR):
        return _PAIR in given
    return words.endswith(given)


def _pue_words(a: ClusterAnalysis) -> tuple[str, ...]:
    """The hall's PUE where its energy figures are assumed: a job's energy rests on it (`analyse.job_energy`).

    The PUE alone: `cost.energy.basis` covers the price and the PUE together, but an energy or carbon figure
    multiplies by the PUE and by no price (r39fix: they named "energy price and PUE").
    """
    facility = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
    fc = facility.cost if facility is not None else None
    return (f"{facility.id} {PUE_WORDS}",) if facility and fc and fc.energy.basis == "assumed" else ()


#: The `sustainability:` factor each carbon or water metric multiplies its energy by, in words: REQ004 and REQ005 name
#: that one only (they named "carbon intensity and WUE" for either, newuser75).
_FACTORS = {"market_carbon": "market-based carbon intensity", "carbon": "location-based carbon intensity",
            "water": "WUE"}


def _site_words(a: ClusterAnalysis, metric: str) -> tuple[str, ...]:
    """The hall's factor that `metric` (a run's or a year's carbon or water) rests on, where the hall's are assumed."""
    facility = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
    stated = facility.sustainability if facility is not None else None
    factor = next(words for key, words in _FACTORS.items() if key in metric)
    return (f"{facility.id} {factor}",) if facility and stated and stated.basis == "assumed" else ()


def _unracked(cost: Cost) -> tuple[str, ...]:
    """The switches in no rack, whose rack space the space cost and capex take as free (COST007), in words."""
    n = sum(line.quantity for line in cost.unracked)
    return (f"no rack space for {n:,} switch{'es' * (n != 1)} placed in no rack (COST007)",) if n else ()


def _cost(a: ClusterAnalysis, assumed: tuple[str, ...], parts: tuple[str, ...],
          loose: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    """A cluster's cost figures and the assumed inputs of each (`Cost.assumed`, split by what they enter).

    `loose` (`_unracked`): the switches in no rack, whose rack positions, enclosures and PDUs the space cost and the
    capex leave out: a requirement met on those (or on a TCO built on them) is met taking that space as free.
    """
    prices = tuple(sorted({f"{p} price" for p in parts}))
    facility = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
    fc = facility.cost if facility is not None else None
    energy = (f"{facility.id} energy price and PUE",) if facility and fc and fc.energy.basis == "assumed" else ()
    pue = _pue_words(a)   # the facility energy and carbon: the PUE, no price
    space = (f"{facility.id} space cost and depreciation",) if facility and fc and fc.basis == "assumed" else ()
    used = tuple(x for x in assumed if x.endswith(UNSTATED_UTILISATION))   # every hour taken as used
    rate = tuple(x for x in assumed if x.endswith(UNSTATED_DISCOUNT_RATE))   # capital taken as costing nothing
    idle = tuple(x for x in assumed if x not in prices + energy + space + used + rate)   # idle draws as the average
    cc = a.cluster.spec.cost   # the cluster's stated opex and cloud price (`analyse.opex`)
    opex = (f"{a.cluster.spec.id} support, licences and other opex",) if cc is not None and cc.basis == "assumed" \
        and any(x is not None for x in (cc.support, cc.licence_per_accelerator, cc.licence_per_node,
                                        cc.other_opex)) else ()
    cloud = (f"{a.cluster.spec.id} cloud price",) if cc is not None and cc.cloud and cc.cloud.basis == "assumed" else ()
    tco = prices + energy + idle + space + rate + loose + opex
    return {"support_cost_per_year": prices + loose + opex, "licence_cost_per_year": opex,
            "other_opex_per_year": opex, "breakeven_utilisation": tco + cloud,
            **{k: (() if "water" in k else pue) + idle + _site_words(a, k)   # the PUE cancels out of water
               for k in ("carbon_per_year", "market_carbon_per_year", "water_per_year")},
            "capex": prices + loose, "network_capex_share": prices, "scale_out_capex_share": prices,
            "power_idle": idle, "energy_cost_per_year": energy + idle, "facility_energy_per_year": pue + idle,
            "space_cost_per_year": space + loose, "capital_recovery_factor": space + rate,
            "capital_cost_per_year": prices + space + rate + loose,
            **dict.fromkeys(TCO_METRICS[:2], tco), "tco_per_used_accelerator_hour": tco + used}
