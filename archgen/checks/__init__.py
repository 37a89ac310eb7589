"""Checks with stable IDs. The prefix names the domain and the module that holds the rules.

| prefix | module | domain |
|---|---|---|
| SPC | (load, validate, registry) | SPC000/1 unreadable/schema, SPC002/4 waivers, SPC003 renamed, SPC005/6 |
| REF | `checks/references.py` | references between specs |
| MECH | `checks/mechanical.py` | U space, weight, floor loading |
| PWR | `checks/power.py` | power chain: shelves/PDUs, feeds, redundancy |
| COOL | `checks/cooling.py` | liquid and air cooling, ASHRAE classes |
| CAT | `checks/catalog.py` | consistency of catalog data |
| REQ | `checks/requirements.py` | requirements with targets on computed metrics |
| PERF | `checks/perf.py` | workloads: they run, fit in memory, meet their targets, state what their stack runs |
| NET | `checks/network.py` | cluster fabrics and scale-up domains: radix, tiers, rails, planes, bandwidth |
| CAB | `checks/cabling.py` | cable runs: media reach and line rate |
| REL | `checks/reliability.py` | failure data, checkpoints, goodput and hot spares |
| COST | `checks/cost.py` | prices, currencies and the basis of capex and TCO |
| SWP | `checks/sweep.py` | sweeps: axes, objectives and requirements that apply to the workload's job |
| SITE | `checks/site.py` | a cluster over several halls of a site: runs between halls, each hall's draw |

A prefix's module may import more of its rules from modules split from it for their size (`MODULE_PARTS`):
PWR017 to PWR023 from `checks/power_halls.py`, NET's warnings from `checks/network_warnings.py`, CAB002 and CAB005
(link media against their ports) from `checks/link_media.py`, REL's checks of checkpoint storage (REL001, REL006,
REL010 to REL014) from `checks/reliability_storage.py` and REL015 (a repair of 0 h) from `checks/rate_repairs.py`,
CAT013 to CAT015 (an accelerator's peaks out of order, a figure far past the catalog's, an idle draw past the
maximum) from `checks/catalog_bounds.py`, COST004 (the price lists) from `checks/price_lists.py`, REQ007 (a money
target written per a time of the other kind than its metric's) from `checks/money_targets.py`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING

from archgen.checks.registry import RESERVED, RESERVED_SEVERITY, Context, Finding, Violation, check, tally

if TYPE_CHECKING:
    from archgen.checks.cascade import run_checks  # the registry's, with the findings a REF finding causes marked
    from archgen.checks.registry import REGISTRY

    MODULES: dict[str, ModuleType]

#: The module that holds each prefix's rules; importing it registers them.
MODULE_NAMES = {"REF": "references", "MECH": "mechanical", "PWR": "power", "COOL": "cooling", "CAT": "catalog",
                "REQ": "requirements", "PERF": "perf", "NET": "network", "CAB": "cabling", "REL": "reliability",
                "COST": "cost", "SWP": "sweep", "SITE": "site"}
#: Modules holding more of a prefix's rules, each with its `@check` and docstring, split from its module for its size
#: only: the prefix's module imports them (its rules register together) and docs/checks.md heads them with its module's
#: docstring.
MODULE_PARTS = {"PWR": ("power_halls",), "NET": ("network_warnings",), "CAB": ("link_media",),
                "REL": ("reliability_storage", "rate_repairs"), "CAT": ("catalog_bounds",), "COST": ("price_lists",),
                "REQ": ("money_targets",)}


def register(prefixes: Iterable[str] = tuple(MODULE_NAMES)) -> dict[str, ModuleType]:
    """Import the check modules of `prefixes` (all by default), registering their checks: their modules by prefix.

    `archgen validate` registers the REF checks only, so that it does not import the performance model and the
    analyses the other checks read (issue 25, part 2).
    """
    return {p: importlib.import_module(f"archgen.checks.{MODULE_NAMES[p]}") for p in prefixes}


def __getattr__(name: str) -> object:
    """`REGISTRY`, `MODULES` and `run_checks`, with every module's checks registered first (PEP 562)."""
    if name not in ("REGISTRY", "MODULES", "run_checks"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    modules = register()
    from archgen.checks import cascade, registry
    value = {"REGISTRY": registry.REGISTRY, "MODULES": modules, "run_checks": cascade.run_checks}[name]
    globals()[name] = value
    return value


__all__ = ["REGISTRY", "RESERVED", "RESERVED_SEVERITY", "MODULES", "MODULE_NAMES", "Context", "Finding",
           "Violation", "check", "register", "run_checks", "tally", "MODULE_PARTS"]
