"""The metric registry: every metric an analysis produces, declared once (STYLE.md habit 13).

A metric is named by the object it belongs to (its path: ``rack/<id>``, ``cluster/<id>``,
``cluster/<id>/fabric/<id>``, ``workload/<id>``, or a sweep's point) and its name, which may hold a placeholder
(``racks.<rack>``, ``<tier>.switches``). Each declaration gives its dimension (a unit the value converts to), the
unit it is shown in, a title and description, and the module that computes it. Requirements, sweeps, `diff`,
`gap`, JSON, documents and `docs/metrics.md` read this table; an analysis that adds a metric declares it here
(tests/test_metrics.py runs every analysis on the shipped and test specs and fails on an undeclared one).

The table is the registry's data, not code: a new metric is one `Metric(...)` line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from archgen.errors import did_you_mean
from archgen.metric import (  # noqa: F401 (vocabulary; `unbounded` and its names are every output's)
    JOBS,
    PLACEHOLDERS,
    SPARE_RANGED,
    SPARES_RANGED,
    SUBJECTS,
    TIERS,
    UNBOUNDED,
    Metric,
    apart,
    subject_kind,
    unbounded,
    written_out,
)
from archgen.metrics_bands import ends as band_ends
from archgen.metrics_estimate import ESTIMATE
from archgen.metrics_fabric import FABRIC
from archgen.metrics_facility import FACILITY, RACK_INLETS
from archgen.metrics_goodput import JOB_GOODPUT
from archgen.metrics_operations import CLUSTER_OPERATIONS, JOB_BY_CLASS
from archgen.metrics_rack import RACK
from archgen.metrics_swing import SWING
from archgen.unit_hints import million_hint
from archgen.units import Q, counted

_N, _C, _S = "analyse/network.py", "analyse/cabling.py", "perf/explore/points.py"
_REL, _COST, _GP = "analyse/reliability.py", "analyse/cost.py", "analyse/goodput.py"
_SITE = "analyse/sustainability.py"   # a hall's carbon and water intensities x an energy
_JE = "analyse/job_energy.py"   # a job's energy: its share of the cluster's average load x PUE over tokens/s
_OPS = "analyse/operations_stage.py"  # a cluster's figures taken from its largest training job: the stage ranking them
_T, _I = ("training",), ("inference",)
#: The share of their nodes' maximum draw that MLPerf Training's power results measured over a run (lowest to
#: highest; tests/perf/data/mlperf-training-power.yaml, docs/facility.md "Measured energy to train"): why an energy at
#: maximum draw is an upper bound. The one copy of the range: `job_it_energy`'s description, `analyse.job_energy` and
#: `perf.workload.derived` say it, and tests/perf/test_mlperf_power.py holds it to the records.
MEASURED_SHARE = "0.57 to 0.69"
#: What else a training job's goodput (and its cluster's), spares and restart time range over
#: (`analyse.goodput.restore_reads`): a restore whose load is unsettled reads the checkpoint once at one end, each
#: replica its weights at the other (newuser103: a 65,536-GPU job's restart_time_high 45 min and goodput_low 0.29
#: came from that read, not the rate sets).
_RESTORE = (", and, where which load a restore runs is not settled (no `checkpoint.parallel_load`, a stack that does "
            "not fix it), from a restore reading the checkpoint once to each data-parallel replica reading its "
            "weights (`checkpoint_restore_read`)")

_CHARGED = {end: (what, f", per goodput token at goodput_{at}") for end, what, at in (
    ("low", "the job's accelerators only", "high"),
    ("high", "the job's accelerators and the hot spares its goodput counts on beyond the cluster's idle share", "low"))}

REGISTRY: tuple[Metric, ...] = (
    # racks
    *RACK,  # what a rack draws, holds, weighs and sheds as heat (archgen/metrics_rack.py)
    *RACK_INLETS,  # the coolant and inlet air a rack accepts (archgen/metrics_facility.py)
    # clusters
    Metric("cluster", "accelerators", "", "", 0, "Accelerators", "Accelerators in the cluster.", _N),
    Metric("cluster", "nodes", "", "", 0, "Nodes", "Systems with accelerators.", _N),
    Metric("cluster", "racks", "", "", 0, "Racks", "Racks of every type.", _N),
    Metric("cluster", "racks.<rack>", "", "", 0, "Racks of a type", "Racks of type <rack>.", _N),
    Metric("cluster", "unracked_switches", "", "", 0, "Switches in no rack", "Switches the bill of materials places "
           "in no rack (a tier with no `rack:`, or more switches than its racks hold: NET012, COST007): their draw is "
           "in `it_power`, their rack positions in no figure (`racks`, the floor plan, the space cost, the capex's "
           "enclosures); 0 where every switch stands in a rack.", "analyse/unracked.py"),
    Metric("cluster", "unracked_switch_space", "m", "U", 0, "Rack space of the switches in no rack", "Rack units the "
           "`unracked_switches` take (each one's datasheet height × its count): the space the layout's racks lack "
           "for them; archgen adds no rack for it (which rack type, where and how fed is the design's to state).",
           "analyse/unracked.py"),
    Metric("cluster", "it_power_racks", "W", "kW", 1, "IT power of the racks", "Sum over the rack instances of their "
           "parts' maximum draw, without the optics a rack's `it_power` adds (modules in switch ports and in NICs "
           "whose system's maximum leaves them out), which `it_power` counts once from the cabling.", _N),
    Metric("cluster", "it_power", "W", "kW", 1, "IT power at the rack feeds", "At the rack feeds (AC): "
           "`it_power_racks`, plus every transceiver and active cable end no part's figure holds (each once, from the "
           "cabling), the switches outside any rack, the checkpoint storage's `storage.power.max` where stated, and "
           "`shelf_loss`; node-end optics inside a system's maximum count there only.", _C),
    Metric("cluster", "shelf_loss", "W", "kW", 1, "Power-shelf loss", "Busbar (DC) draw of shelf-fed parts and "
           "optics x (1 / `PowerShelf.efficiency` - 1), in `it_power`: every rack at its AC feeds.", _C),
    Metric("cluster", "it_power_typical_racks", "W", "kW", 1, "Typical IT power of the racks", "Sum over the rack "
           "instances of their parts' typical draw, without the optics a rack's `it_power_typical` adds.", _N),
    Metric("cluster", "it_power_typical", "W", "kW", 1, "IT power (typical)", "Typical IT power of the racks, plus "
           "optics, switches outside any rack and the checkpoint storage's `storage.power` at their typical draw "
           "(else maximum), and the power shelves' loss on the shelf-fed share: at the rack feeds, like `it_power`.",
           _C),
    *FACILITY,  # facility power, CDU power and the hall's headrooms (archgen/metrics_facility.py)
    Metric("cluster", "network_power", "W", "kW", 1, "Network power", "Switches of every fabric (scale-out, "
           "front-end, storage, management) at maximum power, switches placed in racks beyond what the fabrics "
           "derive, and every transceiver, NIC ends included, a scale-up domain's cables too; not the scale-up "
           "(NVLink) switches, which are part of the rack-scale system.", _C),
    Metric("cluster", "optics_power", "W", "kW", 1, "Optics power", "Transceivers of every fabric, both ends (those "
           "in the NICs of systems whose maximum includes them are in that figure).", _C),
    Metric("cluster", "links", "", "", 0, "Links", "Port-to-port runs of every fabric tier (its `links.<link>`): "
           "a link through an OCS is two fibre runs, a board trace none (`torus.links`: each link once).", _C),
    Metric("cluster", "scale_up.domains", "", "", 0, "Scale-up domains", "Scale-up (NVLink) domains.", _N),
    Metric("cluster", "scale_up.links_per_accelerator", "", "", 0, "Scale-up links per accelerator",
           "Scale-up links of each accelerator: bandwidth / (2 x link rate) with a `link` part, size - 1 peers in "
           "a mesh, its neighbours in a torus (2 per dimension of 3 or more), else the accelerator's own "
           "`scale_up.links`.", _N),
    Metric("cluster", "scale_up.trunk_links", "", "", 0, "Scale-up trunk links", "Switch-to-switch links between "
           "the racks of every multi-rack scale-up domain (`scale_up.racks`; archgen.analyse.scale_up_racks).", _N),
    Metric("cluster", "scale_up.bandwidth", "B/s", "TB/s", 1, "Scale-up bandwidth", "Aggregate scale-up bandwidth "
           "of every domain, both directions.", _N),
    Metric("cluster", "scale_up.size", "", "", 0, "Scale-up domain size", "Accelerators in one scale-up domain "
           "(`scale_up.size`; over all its racks where `scale_up.racks` > 1).", _N),
    Metric("cluster", "scale_up.switch_hops", "", "", 0, "Scale-up switch hops", "Switches a send between two "
           "accelerators of one domain crosses at most: 1 switched in one rack or node, or in a pod of one switch "
           "stage in switch racks (`scale_up.switch_rack`; archgen.analyse.scale_up_pod), 2 over several racks "
           "joined by trunks (own rack's switch, trunk, the other rack's; archgen.analyse.scale_up_racks), 0 mesh "
           "or torus.", _N),
    Metric("cluster", "scale_up.links", "", "", 0, "Scale-up torus links", "Links of every torus scale-up domain, "
           "each counted once (32 in a Trn2 instance's 4x4 torus).", _N),
    Metric("cluster", "scale_up.board_links", "", "", 0, "Scale-up board links", "Torus scale-up links on one "
           "system's board (a `domain: node` torus, or inside `torus_block`): traces, not cables.", _N),
    Metric("cluster", "scale_up.cables", "", "", 0, "Scale-up cables", "Torus scale-up links between systems: "
           "cables (`scale_up.link` where given).", _N),
    *CLUSTER_OPERATIONS,  # clusters: reliability and cost (archgen/metrics_operations.py; docs/reliability.md)
    *FABRIC,  # fabrics, and torus, dragonfly and rail-only fabrics (archgen/metrics_fabric.py)
    # workloads (and each point of a sweep)
    *ESTIMATE,  # a job's performance estimate: step time, latencies, tokens/s, MFU, memory (metrics_estimate.py)
    # workloads: reliability and cost (docs/reliability.md)
    *JOB_GOODPUT,   # a training job's interruptions, checkpoints, goodput and time to train (metrics_goodput.py)
    *SWING,   # a training job's load swing: frequency, low-draw share, depth (metrics_swing.py)
    Metric("workload", "job_it_energy", "J", "MWh", 1, "Job IT energy", "The job's share of its cluster's maximum IT "
           "power (accelerators used over the cluster's) × time to train: the run's IT energy at maximum draw, an "
           f"upper bound (MLPerf Training's measured runs drew {MEASURED_SHARE} of their nodes' maximum, "
           "docs/facility.md), so a target it misses is not provided, never not met; without the PUE or goodput's "
           "lost time (the hall's energy for the run, at the average load and with the PUE, is `job_energy`).", _OPS,
           _T, minimise=True),
    Metric("workload", "checkpoint_blocking_time", "s", "s", 1, "Checkpoint blocking time", "What a checkpoint stops "
           "training for: its write, or the copy to host memory when asynchronous or in memory.", _GP, _T,
           sweep=False, minimise=True),
    *(Metric(subject, f"{name}_{end}", dim, unit, digits, f"{title} ({end})", f"The {end} end of {title} over the "
             "rate sets and their 95 % Poisson intervals" + ("" if name in ("mtti", "interruptions_per_day") else
                                                             ", and the wait for a repair to none where no hot spare "
                                                             "stands in" + _RESTORE)
             + ".",
             _GP if subject == "workload" else _OPS if name == "goodput" else _REL,
             _T if subject == "workload" else (), sweep=subject == "workload" and name in ("goodput", "mtti"),
             counts="interruptions" if name == "interruptions_per_day" else "", maximise=name in ("mtti", "goodput"),
             minimise=name in ("interruptions_per_day", "restart_time"))   # each end better as its figure is
      for subject in ("cluster", "workload") for end in ("low", "high")
      for name, dim, unit, digits, title in (("interruptions_per_day", "1/s", "1/day", 2, "interruptions per day"),
                                             ("mtti", "s", "h", 1, "MTTI"), ("goodput", "", "", 3, "goodput"),
                                             *(zip(SPARES_RANGED, ("", "W", "m", "s"), ("", "kW", "U", "min"),
                                                   (0, 1, 0, 1), ("spares", "spare power", "spare space",
                                                                  "restart time"), strict=True)
                                               if subject == "workload" else ()))),
    *JOB_BY_CLASS["workload"],   # by part class, and the MTTI's confidence interval (archgen/metrics_operations.py)
    Metric("workload", "spares", "", "", 0, "Spares", "Fewest hot spare nodes that hold the goodput target at the "
           "job's checkpoint interval: its stated one, else Daly's optimum.", _GP, _T, sweep=False),
    Metric("workload", "spare_power", "W", "kW", 1, "Spare power", "What the spare nodes draw at maximum, with the "
           "scale-up switch trays of each whole idle domain among them.", _GP, _T, sweep=False),
    Metric("workload", "spare_space", "m", "U", 0, "Spare space", "Rack units the spare nodes take, with the "
           "scale-up switch trays of each whole idle domain among them.", _GP, _T, sweep=False),
    Metric("workload", "job_cost_per_hour", "USD", "USD", 2, "Job cost per hour", "TCO per used accelerator-hour × "
           "the job's accelerators (a training job's `_high` end adds its hot spares).", _COST, _T + _I, sweep=False,
           per="h"),
    Metric("workload", "cost_per_token", "USD", "µUSD", 3, "Cost per token", "Job cost per hour over tokens per "
           "hour (goodput tokens for training), the job's accelerators only, while its goodput counts the cluster's "
           "idle nodes as hot spares; a training job's range (`_low`, `_high`) runs from goodput_high to _low, the "
           "high end adding the hot spares goodput rests on.", _COST, _T + _I, minimise=True, per_unit=True),
    Metric("workload", "cost_per_million_tokens", "USD", "USD", 2, "Cost per million tokens", "Cost per token × "
           "10⁶.", _COST, _T + _I, minimise=True, per_unit=True),
    Metric("workload", "job_cost", "USD", "USD", 0, "Job cost", "Cost per token × the run's `checkpoint.tokens`: "
           "the whole run's cost, with cost per token's range.", _COST, _T, sweep=False, minimise=True),
    Metric("workload", "facility_energy_per_million_tokens", "J", "kWh", 3, "Facility energy per million tokens", "The "
           "job's share of its cluster's average IT load (accelerators used over the cluster's; typical draw where "
           "published, else maximum: then an upper bound, and a target it misses is not provided) × the hall's "
           "annual PUE (`cost.energy.pue`), "
           "over tokens per second, × 10⁶: at the estimate's tokens/s, before goodput (failures and restarts add "
           "to a training run's); not provided without the hall's `cost:`. A serving job under an arrival rate is "
           "charged that draw at any load (no source gives draw against load): the energy of the capacity held, "
           "not of the work done. Not a sweep point's `energy_per_token` × 10⁶, which is IT energy at maximum draw "
           "without the PUE.", _JE, _T + _I, sweep=False, minimise=True),
    Metric("workload", "job_energy", "J", "MWh", 1, "Facility energy of the run", "Facility energy per million "
           "tokens × the run's `checkpoint.tokens` / 10⁶: the hall's energy for the run (the job's average IT load, "
           "typical draw where published, else maximum, × PUE × its time to train), before goodput (failures, "
           "restarts and checkpoints add to it). Where a part's maximum stands in it is an upper bound, and a target "
           "it misses is not provided. The run's IT energy at maximum draw, without the PUE, is `job_it_energy`.",
           _JE, _T, sweep=False, minimise=True),
    Metric("workload", "job_carbon", "kg", "t", 1, "Carbon of the run (scope 2, location-based)", "`job_energy` × "
           "the hall's `sustainability.carbon_intensity` (location-based, g CO2e/kWh): the run's electricity "
           "emissions as a model card reports them, before goodput; not provided where the hall states no "
           "intensity or the run has no `job_energy`; an upper bound where that energy is.", _SITE, _T, sweep=False,
           minimise=True),
    Metric("workload", "job_market_carbon", "kg", "t", 1, "Carbon of the run (scope 2, market-based)", "`job_energy` "
           "× the hall's `sustainability.market_carbon_intensity` (the contracts' factor, else the residual mix); "
           "not provided where the hall states none (never the location-based one in its place) or the run has no "
           "`job_energy`; an upper bound where that energy is.", _SITE, _T, sweep=False, minimise=True),
    Metric("workload", "job_water", "m**3", "m**3", 0, "Site water of the run", "`job_energy` over the hall's "
           "annual PUE × its `sustainability.wue` (L/kWh of IT energy): the site's water for the run, not the "
           "power plants'; not provided where the hall states no WUE or the run has no `job_energy`; an upper bound "
           "where that energy is.", _SITE, _T, sweep=False, minimise=True),
    *(Metric("workload", f"{name}_{end}", "USD", unit, digits, f"{title} ({end})", f"The {end} end of "
             f"{title.lower()}: {_CHARGED[end][0]}"   # a cost per hour has no goodput; per token: at goodput's end
             f"{(' (the value)' * (end == 'low')) if name == SPARE_RANGED[0] else _CHARGED[end][1]}.", _COST, _T,
             sweep=False, per="h" if name == SPARE_RANGED[0] else "", per_unit=name.startswith("cost_per_"),
             minimise=name != SPARE_RANGED[0])   # as its figure: a cost is better lower, a job's cost per hour neither
      for end in ("low", "high") for name, (unit, digits, title) in zip(SPARE_RANGED, (
          ("USD", 2, "Job cost per hour"), ("µUSD", 3, "Cost per token"), ("USD", 2, "Cost per million tokens"),
          ("USD", 0, "Job cost")),
          strict=True)),
    Metric("point", "power", "W", "kW", 1, "Power", "The point's share of its cluster's IT power at maximum draw "
           "(accelerators used over the cluster's). Not provided at a point whose hardware is scaled (a hardware "
           "axis not as catalogued): the catalogued parts' draw is not the draw of parts with other figures "
           "(`perf.explore.hardware_scope`).", _S, JOBS),
    Metric("point", "energy_per_token", "J", "J", 3, "IT energy per token", "`power` (the job's share of its "
           "cluster's maximum IT power, at the rack feeds; none where `power` is not provided) over tokens per "
           "second: IT energy at maximum draw, an upper bound (a target it misses is not provided); without the "
           "PUE and not at the typical draw `energy_cost_per_year` takes (the hall's energy at that draw and PUE "
           "is `check`'s `facility_energy_per_million_tokens`). A serving job under an arrival rate is charged that "
           "draw at any load (no source gives draw against load), so its figure falls as 1 / rate until the "
           "replicas saturate: read it as the cost of the capacity held, not of the work done.", _S, _T + _I),
    Metric("point", "accelerators", "", "", 0, "Accelerators", "Accelerators the point uses.", _S, JOBS),
    *(Metric(subject, f"{name}_{end}", dim, unit, digits, f"{title} ({end})", f"The {end} end of {title.lower()} "
             f"over goodput's range across the rate sets ({why}).", _S if subject == "point" else _GP, _T,
             counts="tokens" if unit == "1/s" else "", maximise=unit == "1/s", minimise=dim == "USD",
             sweep=subject == "point", per_unit=dim == "USD")
      for end in ("low", "high")   # `check`'s goodput tokens/s too (nu41cost), its band taken at each end
      for subject, name, dim, unit, digits, title, why in ((s, *row) for s in ("point", "workload") for row in (
          ("goodput_tokens_per_second", "1/s", "1/s", 0, "Goodput tokens/s", "tokens per second × goodput_" + end),
          ("cost_per_token", "USD", "µUSD", 3, "Cost per token", "".join(_CHARGED[end])))
          if s == "point" or row[0] != "cost_per_token")),   # a job's cost per token: `SPARE_RANGED`'s
)
REGISTRY += band_ends(REGISTRY)  # a point's band ends of its estimate's figures (archgen/metrics_bands.py)


def declared(subject: str) -> tuple[Metric, ...]:
    """The metrics of a kind of object (`SUBJECTS`)."""
    return tuple(m for m in REGISTRY if m.subject == subject)


def find(subject: str, name: str) -> Metric | None:
    """The declaration of metric `name` of a `subject` kind, or None."""
    return next((m for m in REGISTRY if m.subject == subject and m.matches(name)), None)


def lookup(path: str, name: str) -> Metric | None:
    """The declaration of metric `name` of the object at `path`, or None."""
    kind = subject_kind(path)
    return find(kind, name) if kind else None


def job_metrics(job: str, *, sweep: bool = False) -> tuple[Metric, ...]:
    """The metrics a workload's job has (those of a sweep's points when `sweep`)."""
    kinds = ("workload", "point") if sweep else ("workload",)
    return tuple(m for m in REGISTRY if m.subject in kinds and job in m.jobs and (m.sweep or not sweep))


def unknown(name: str, subjects: Iterable[str]) -> str | None:
    """Why `name` is no metric of any of `subjects` (with a suggestion and what is known), or None where it is one."""
    subjects = tuple(subjects)
    if any(find(s, name) for s in subjects):
        return None
    names = sorted({m.name for s in subjects for m in declared(s)})
    spelled = [n for m in REGISTRY if m.subject in subjects for n in written_out(m.name)]
    known = f"known: {', '.join(names)}" if len(names) <= 20 else "`docs/metrics.md` lists them"
    elsewhere = [k for k in SUBJECTS if k not in subjects and find(k, name)]
    if elsewhere:
        return f"'{name}' is a metric of a {' or '.join(elsewhere)}, not of a {' or '.join(subjects)} ({known})"
    meant = [m for m in REGISTRY if name.lower() in m.synonyms]   # a word people use for a declared figure
    if here := sorted(m.name for m in meant if m.subject in subjects):
        return f"unknown metric '{name}'; did you mean {_either(here)}? ({known})"
    if meant:
        theirs = " or ".join(f"a {m.subject}'s '{m.name}' ({m.title})" for m in meant)
        return (f"unknown metric '{name}': {theirs} is that figure, with a subject such as "
                f"{SUBJECTS[meant[0].subject]}; not a metric of a {' or '.join(subjects)} ({known})")
    if hint := did_you_mean(name, [n for n in spelled if not apart(name, n)], lead="; "):
        return f"unknown metric '{name}'{hint} ({known})"
    words = [w for w in re.split(r"[._]+", name.lower()) if len(w) > 3]   # 'bandwidth', not 'per'
    near = sorted(n for n in names if any(w in n for w in words)) if len(names) > 20 else []
    naming = _either([w for w in words if any(w in n for n in near)])
    return (f"unknown metric '{name}': no {' or '.join(subjects)} metric is named like it"
            + (f"; those naming {naming}: {', '.join(near)}" if near else "") + f" ({known})")


def _either(names: Iterable[str]) -> str:
    """Names quoted and joined by "or": "'a' or 'b'"."""
    return " or ".join(f"'{n}'" for n in names)


def dimension_problem(name: str, limit: Q, subjects: Iterable[str]) -> str | None:
    """Why a limit cannot be compared with metric `name` of `subjects` (its dimension differs), or None."""
    found = [m for s in subjects if (m := find(s, name)) is not None]
    if not found or any(m.accepts(m.as_limit(limit)) for m in found):
        return None
    unit = (found[0].rate_unit() or found[0].unit) if found[0].dimension else ""   # 'tokens/s', not '1/s'
    unit = "a currency" if found[0].money else unit   # any of `CURRENCIES`, not the 'USD' it is declared in
    per = f", or a currency per time such as 'USD/{found[0].per}'" if found[0].per else ""
    over = [n for n, e in counted(limit).items() if e < 0]   # '0.5 J/token': the metric says what it is per
    per += f"; '{over[0]}' is a count, not a unit of it: its name says what it is per" if over else ""
    molar = million_hint(f"{limit.magnitude:g}", f"{limit.units:~}", f"{limit.units:D}")
    per += f"; {molar[0]}" if molar else ""   # '10M USD': pint's M is molar (newuser64)
    return f"is not comparable with {name} (expected {unit or 'a number'}{per})"


def amount(name: str) -> Metric | None:
    """The metric `name` where it is an amount of money (`Metric.amount`: capex, a cost per year, a job's cost).

    None for any other. By name alone, of any kind of object: a name is an amount on every kind of object that has
    it, or on none (tests/test_amount_targets.py).
    """
    return next((m for m in REGISTRY if m.amount and m.matches(name)), None)


def limit_per(name: str, limit: Q, subjects: Iterable[str]) -> tuple[Q, str]:
    """`as_limit`, and the time a limit on money per an hour is for ('h'; `Metric.money_rate`), else ''."""
    found = next((m for s in subjects if (m := find(s, name)) is not None), None)
    read = limit if found is None else found.as_limit(limit)
    return read, found.per if found is not None and found.money_rate and found.accepts(read) else ""


def money_rate(name: str) -> Metric | None:
    """The metric `name` where it is money per an hour (`Metric.money_rate`), by name alone, of any kind of object."""
    return next((m for m in REGISTRY if m.money_rate and m.matches(name)), None)


def as_limit(name: str, limit: Q, subjects: Iterable[str]) -> Q:
    """A target's limit on metric `name` of `subjects` in the metric's dimension (`Metric.as_limit`: USD/h → USD)."""
    found = next((m for s in subjects if (m := find(s, name)) is not None), None)
    return limit if found is None else found.as_limit(limit)
