"""Checks with stable IDs. The prefix names the domain and the module that holds the rules.

| prefix | module | domain |
|---|---|---|
| SPC | (load, validation, registry) | SPC000 unreadable, SPC001 schema/units, SPC002 unused waiver, SPC003 renamed |
| REF | `checks/references.py` | references between specs |
| MECH | `checks/mechanical.py` | U space, weight, floor loading |
| PWR | `checks/power.py` | power chain: shelves/PDUs, feeds, redundancy |
| COOL | `checks/cooling.py` | liquid and air cooling, ASHRAE classes |
| CAT | `checks/catalog.py` | consistency of catalog data |
| REQ | `checks/requirements.py` | requirements with targets on computed metrics |
| PERF | `checks/perf.py` | workloads: they run, fit in memory and meet their performance targets |
| NET | `checks/network.py` | cluster fabrics and scale-up domains: radix, tiers, rails, planes, bandwidth |
| CAB | `checks/cabling.py` | cable runs: media reach and line rate |
| REL | `checks/reliability.py` | failure data, checkpoints, goodput and hot spares |
| COST | `checks/cost.py` | prices, currencies and the basis of capex and TCO |
| SWP | `checks/sweep.py` | sweeps: axes, objectives and requirements that apply to the workload's job |
"""

from archgen.checks import (  # noqa: F401  (importing registers the checks)
    cabling,
    catalog,
    cooling,
    cost,
    mechanical,
    network,
    perf,
    power,
    references,
    reliability,
    requirements,
    sweep,
)
from archgen.checks.cascade import run_checks  # the registry's, with the findings a REF finding causes marked
from archgen.checks.registry import (
    REGISTRY,
    RESERVED,
    RESERVED_SEVERITY,
    Context,
    Finding,
    Violation,
    check,
)

MODULES = {"REF": references, "MECH": mechanical, "PWR": power, "COOL": cooling, "CAT": catalog, "REQ": requirements,
           "PERF": perf, "NET": network, "CAB": cabling, "REL": reliability, "COST": cost, "SWP": sweep}

__all__ = ["REGISTRY", "RESERVED", "RESERVED_SEVERITY", "MODULES", "Context", "Finding", "Violation", "check",
           "run_checks"]
