"""The metric registry's reliability and cost metrics of a cluster, declared as `archgen.metrics.REGISTRY` holds them.

In its order; split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13), and
these are its rows for a cluster's failures, goodput, storage bandwidth, capex, energy and TCO (docs/reliability.md).
"""

from __future__ import annotations

from archgen.metric import Metric

_REL, _COST, _GP = "analyse/reliability.py", "analyse/cost.py", "analyse/goodput.py"
_SITE = "analyse/sustainability.py"
_OPEX = "analyse/opex.py"
_OPS = "analyse/operations_stage.py"
_T = ("training",)  # a cluster's figures taken from its largest training job: the stage ranking them

_SPARE = "analyse/spare_parts.py"

#: A job's interruptions per day by part class and the confidence interval of its total (`analyse.reliability.
#: job_breakdown`), for a cluster (a job on every accelerator) and a training workload.
JOB_BY_CLASS: dict[str, tuple[Metric, ...]] = {subject: (
    *(Metric(subject, f"interruptions_per_day.<class>{end}", "1/s", "1/day", 3,
             f"Interruptions per day by class{title}",
             f"Interruptions of {job} caused by one part class (or the site's events){what}.", _REL,
             _T if subject == "workload" else (), sweep=False, counts="interruptions", minimise=True)
      for end, title, what in (("", "", ""), ("_low", " (low)", ": the low end of the 95 % Poisson interval of the "
                                                            "class's own count (Garwood); none without one"),
                               ("_high", " (high)", ": the high end of that interval"))),
    *(Metric(subject, f"{name}_ci_{end}", dim, unit, digits, f"{title} (95 % CI, {end})", f"The {end} end of the "
             f"95 % confidence interval of {job}'s {title} from the point rate set's own counts (Poisson; "
             "Welch-Satterthwaite over the counted classes, the uncounted at their point rate); not provided where "
             "no interrupting class states a count.", _REL, _T if subject == "workload" else (), sweep=False,
             counts="interruptions" if dim == "1/s" else "", maximise=dim == "s", minimise=dim == "1/s")
      for end in ("low", "high")
      for name, dim, unit, digits, title in (("interruptions_per_day", "1/s", "1/day", 2, "interruptions per day"),
                                             ("mtti", "s", "h", 1, "MTTI"))))
    for subject, job in (("cluster", "a job on every accelerator"), ("workload", "the job"))}

CLUSTER_OPERATIONS: tuple[Metric, ...] = (
    Metric("cluster", "interruptions_per_day", "1/s", "1/day", 2, "Interruptions per day", "Interruptions of a job "
           "on every accelerator (on the largest slice, where the compute torus's dims hold fewer): the interrupting "
           "parts' failure rates plus the site's events.", _REL,
           counts="interruptions", minimise=True),
    Metric("cluster", "mtti", "s", "h", 1, "MTTI", "Mean time to interruption of a job on every accelerator "
           "(on the largest slice, where the compute torus's dims hold fewer; 1 / interruptions per day), counting the "
           "interruptions the rate set's source counts (the cluster document says which); not provided "
           "where nothing that stops it fails at the rates (no interruption, so no mean time to one).", _REL,
           maximise=True),
    *JOB_BY_CLASS["cluster"],
    *(Metric("cluster", f"spare_{name}.<class>", "", "", digits, title, description, _SPARE) for name, digits, title,
      description in (("stock", 0, "Spare-parts stock", "Units of the part class to hold on site: the fewest s with "
                       "P(X <= s) at least the rate set's `no_stockout` (0.95 unless stated), X ~ Poisson(the demand "
                       "over the turnaround) (Palm's theorem; Sherbrooke, METRIC, 1968). Not provided without a "
                       "stated `turnaround`."),
                      ("demand", 2, "Spare-parts demand", "Expected failures of every unit of the part class, "
                       "interrupting or not, over its replenishment `turnaround`: the Poisson mean of units on "
                       "order."))),
    Metric("cluster", "failures_per_year", "1/s", "1/year", 0, "Failures per year", "Failures of every part, "
           "interrupting or not, plus the site's events.", _REL, counts="failures", minimise=True),
    Metric("cluster", "goodput", "", "", 3, "Goodput", "Goodput of the cluster's largest training workload (the "
           "most accelerators; of several on as many, the lowest goodput, then the first by id).", _OPS,
           maximise=True),
    Metric("cluster", "checkpoint_interval", "s", "min", 1, "Checkpoint interval", "Checkpoint interval of the "
           "cluster's largest training workload.", _OPS),
    Metric("cluster", "storage_write_bandwidth_per_accelerator", "B/s", "GB/s", 3, "Storage write bandwidth per "
           "accelerator", "Stated `storage.write_bandwidth`, bounded by the storage's own ports at line rate (REL010), "
           "the leaf uplinks it crosses (REL011) and the compute nodes' ports to storage, over the accelerators: "
           "what each gets when all write at once.", _GP, maximise=True),
    Metric("cluster", "storage_read_bandwidth_per_accelerator", "B/s", "GB/s", 3, "Storage read bandwidth per "
           "accelerator", "As the write figure, from `storage.read_bandwidth`: what each accelerator gets when all "
           "read (restore) at once.", _GP, maximise=True),
    Metric("cluster", "capex", "USD", "USD", 0, "Capex", "Bill of materials: parts and racks at their price (a "
           "`Prices` document's, else their own `price.capex`), and the checkpoint storage where `storage:` prices it; "
           "not provided while one part is unpriced (COST002).", _COST, minimise=True),
    Metric("cluster", "power_average", "W", "kW", 1, "Average power", "Average IT load: systems and switches at "
           "typical draw where published, else maximum, plus optics, plus the checkpoint storage's `storage.power` "
           "(typical, else max) where stated.", _COST),
    Metric("cluster", "power_idle", "W", "kW", 1, "Idle power", "IT load with no job running: `power.idle` where "
           "a part states it, else its average draw or, where less, a system's maximum with its accelerators at "
           "their measured idle draw (`Accelerator.idle`; assumed, an upper bound); shown when utilisation is below "
           "1.", _COST),
    Metric("cluster", "energy_cost_per_year", "USD", "USD", 0, "Energy cost per year", "(Average power × "
           "utilisation + idle power × (1 − utilisation)) × 8,766 h × PUE × energy price; idle hours draw each "
           "part's `power.idle`, else its average draw or a system's maximum with its accelerators at their measured "
           "idle draw (assumed, COST003: an upper bound, never 0). Where a part's "
           "maximum stands in for its typical draw it is an upper bound, and a target it misses is not provided. "
           "On a floor of halls naming their own facilities: theirs, as `facility_energy_per_year`.", _COST,
           minimise=True, per="year"),
    Metric("cluster", "facility_energy_per_year", "J", "MWh", 0, "Facility energy per year", "What the hall "
           "draws for the cluster in a year: (average power × utilisation + idle power × (1 − utilisation)) × "
           "8,766 h × the annual PUE (`cost.energy.pue`); idle hours draw each part's `power.idle`, else its "
           "average draw, or a system's maximum with its accelerators at their measured idle draw (assumed, "
           "COST003: an upper bound); not provided without the facility's `cost:`. Where a "
           "part's maximum stands in for its typical draw it is an upper bound, and a target it misses is not "
           "provided. On a floor whose halls name their own facilities (`floor.halls[].facility`) the cost, energy "
           "and carbon figures read theirs, where every hall holding racks names one and all state the same "
           "`cost:` (`sustainability:`) figures; otherwise not provided (the load is not split by hall), never "
           "the cluster facility's.", _COST,
           minimise=True),
    Metric("cluster", "carbon_per_year", "kg", "t", 1, "Carbon per year (scope 2, location-based)", "Facility "
           "energy per year × the hall's `sustainability.carbon_intensity` (g CO2e/kWh, the grid's average: GHG "
           "Protocol Scope 2 Guidance's location-based method): the electricity's emissions, not the hardware's "
           "embodied carbon; not provided where the hall states no intensity or no `cost:`; an upper bound where "
           "the energy is (a target it misses is not provided). On a floor of halls naming their own facilities: "
           "theirs, as `facility_energy_per_year`.", _SITE, minimise=True),
    Metric("cluster", "market_carbon_per_year", "kg", "t", 1, "Carbon per year (scope 2, market-based)", "Facility "
           "energy per year × the hall's `sustainability.market_carbon_intensity` (g CO2e/kWh of the contracts "
           "held, PPAs and certificates, else the residual mix: the Scope 2 Guidance's market-based method); not "
           "provided where the hall states no market-based intensity (never the location-based one in its place) "
           "or no `cost:`; an upper bound where the energy is.", _SITE, minimise=True),
    Metric("cluster", "water_per_year", "m**3", "m**3", 0, "Site water per year", "IT energy per year (facility "
           "energy per year over the PUE) × the hall's `sustainability.wue` (L/kWh of IT energy, The Green Grid "
           "WP #35): the site's water, not the power plants'; not provided where the hall states no WUE or no "
           "`cost:`; an upper bound where the energy is (a target it misses is not provided).", _SITE,
           minimise=True),
    Metric("cluster", "embodied_carbon", "kg", "t", 1, "Embodied carbon (scope 3)", "Sum over the bill of "
           "materials of quantity × each part's `embodied_carbon` (its product carbon footprint, kg CO2e; a rack's "
           "for the empty rack; parts fitted in a system are in the system's): the hardware's manufacturing "
           "emissions, beside the scope 2 figures, never in them; not provided where a part states none or the "
           "parts state different boundaries.", "analyse/embodied.py", minimise=True),
    Metric("cluster", "space_cost_per_year", "USD", "USD", 0, "Space cost per year", "Racks × space cost per rack "
           "and month × 12.", _COST, minimise=True, per="year"),
    Metric("cluster", "capital_recovery_factor", "", "", 4, "Capital recovery factor", "r / (1 − (1 + r)^−n) "
           "over the depreciation years n at the discount rate r (1/n at r = 0): the annuity that repays a loan of "
           "1 over n years.", _COST),
    Metric("cluster", "capital_cost_per_year", "USD", "USD", 0, "Capital cost per year", "Capex × the capital "
           "recovery factor × (1 − residual × (1 + r)^−n), the hall's `cost.residual_value` the share of the capex "
           "the hardware is worth at the end of the depreciation years (0 unstated).", _COST, minimise=True,
           per="year"),
    Metric("cluster", "support_cost_per_year", "USD", "USD", 0, "Support cost per year", "Capex × the cluster's "
           "`cost.support` (the yearly support and maintenance share of the capex); not provided where unstated, "
           "and the TCO then says it leaves it out.", _OPEX, minimise=True, per="year"),
    Metric("cluster", "licence_cost_per_year", "USD", "USD", 0, "Licence cost per year", "Accelerators × the cluster's "
           "`cost.licence_per_accelerator` + nodes × its `cost.licence_per_node` (a year's); not provided where "
           "neither is stated, and the TCO then says it leaves them out.", _OPEX, minimise=True, per="year"),
    Metric("cluster", "other_opex_per_year", "USD", "USD", 0, "Other opex per year", "The cluster's `cost.other_opex` "
           "for a year (staff, insurance, taxes, a spare-parts stock); not provided where unstated, and the TCO then "
           "says it leaves it out.", _OPEX, minimise=True, per="year"),
    Metric("cluster", "tco_per_year", "USD", "USD", 0, "TCO per year", "Capital, energy and space cost per year, "
           "plus the support, licence and other opex the cluster's `cost:` states (the documents name those it "
           "leaves out).", _COST, minimise=True, per="year"),
    Metric("cluster", "tco_per_accelerator_hour", "USD", "USD", 3, "TCO per accelerator-hour", "TCO per year over "
           "the accelerators × 8,766 h: the owning cost of every hour, used or not.", _COST, minimise=True, per="h"),
    Metric("cluster", "tco_per_used_accelerator_hour", "USD", "USD", 3, "TCO per used accelerator-hour", "TCO per "
           "accelerator-hour over the facility's utilisation: the cost of each hour a job runs.", _COST, minimise=True,
           per="h"),
    Metric("cluster", "tco_per_goodput_accelerator_hour", "USD", "USD", 3, "TCO per goodput accelerator-hour",
           "TCO per used accelerator-hour over the goodput of the cluster's largest training workload: the whole "
           "cluster's cost spread over all its accelerators, idle spares included, as if each ran at that goodput. "
           "Per goodput hour of the job's own accelerators, the cluster's whole cost charged to them, it is this × "
           "accelerators / the job's accelerators (1,152 / 1,080: 1.79 → 1.91 USD): "
           "`tco_per_job_goodput_accelerator_hour`.", _OPS, minimise=True, per="h"),
    Metric("cluster", "tco_per_job_goodput_accelerator_hour", "USD", "USD", 3, "TCO per job goodput "
           "accelerator-hour", "The whole cluster's TCO, idle spares included, per goodput hour of its largest "
           "training workload's own accelerators: `tco_per_goodput_accelerator_hour` × accelerators / the job's "
           "accelerators.", _OPS, minimise=True, per="h"),
    *(Metric("cluster", f"tco_per_{job}goodput_accelerator_hour_{end}", "USD", "USD", 3,
             f"TCO per {title}goodput accelerator-hour ({end})", f"The {end} end of TCO per {title}goodput "
             f"accelerator-hour: over goodput_{at}, so a target on it is at risk where goodput's is.", _OPS,
             minimise=True, per="h")
      for job, title in (("", ""), ("job_", "job ")) for end, at in (("low", "high"), ("high", "low"))),
    Metric("cluster", "breakeven_utilisation", "", "percent", 1, "Breakeven utilisation against the cloud", "The "
           "utilisation at which the TCO per used accelerator-hour equals the cluster's `cost.cloud` list price per "
           "accelerator-hour: (capital + space + other opex + idle energy) / (price × accelerators × 8,766 h − "
           "(energy used − energy idle)); above 100 % (infinite where the price does not cover a used hour's extra "
           "energy) owning costs more per used hour than the cloud at any utilisation. Not provided without "
           "`cost.cloud`.", _OPEX, minimise=True),
    Metric("cluster", "network_capex_share", "", "percent", 1, "Network share of capex", "Switches, transceivers "
           "and cable assemblies over the capex, the scale-up (NVLink) switch trays included.", _COST),
    Metric("cluster", "scale_out_capex_share", "", "percent", 1, "Cluster interconnect share of capex", "Every "
           "fabric's switches, transceivers and cables over the capex, no scale-up switch (Epoch AI's basis).", _COST),
)
