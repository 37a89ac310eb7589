"""What a metric is, and the vocabulary its names use.

`Metric` holds a subject kind, a name with placeholders, a dimension, a display unit, a title, a description, the
source module and the jobs; the registry's table of every metric is `archgen.metrics`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from archgen.money import currency, invoiced
from archgen.units import Q_, Q, counted, uncounted

#: The kinds of object that have metrics, with the object path pattern each stands for.
SUBJECTS: dict[str, str] = {"rack": "rack/*", "cluster": "cluster/*", "fabric": "cluster/*/fabric/*",
                            "workload": "workload/*", "point": "a sweep's point"}
#: The switch tiers a fabric metric may name, in order: a fat tree's three (`model.tiers.TIER_NAMES` is their first
#: three), a torus's optical circuit switches and a dragonfly's routers. Declared once: the metric placeholder and
#: REQ002's "has no ... tier" (`checks.absent`) read it.
TIERS = ("leaf", "spine", "core", "ocs", "router")
#: What a placeholder in a metric name stands for (a rack id; a switch tier, `TIERS`; a fat-tree link level; a
#: failure-rate part class, `model.reliability.PART_CLASSES`, or the site's events).
PLACEHOLDERS: dict[str, str] = {"rack": r"[^.]+", "hall": r"[^.]+", "tier": "|".join(TIERS),
                                "link": r"access|leaf_spine|spine_core|neighbour|ocs|local|global",
                                "class": r"accelerator|host|nic|switch|scale_up_switch|transceiver|cable|backplane"
                                         r"|power_shelf|pdu|cdu|software|site"}
#: The jobs a workload runs.
JOBS = ("training", "inference", "collective")


@dataclass(frozen=True)
class Metric:
    """One declared metric.

    Attributes:
        subject: The kind of object it belongs to (a key of `SUBJECTS`).
        name: Its name, possibly with placeholders (``racks.<rack>``).
        dimension: A unit of its dimension (``W``, ``B/s``; ``""`` for a pure number); values are SI.
        unit: The unit it is shown in (``kW``, ``GB``, ``percent``; ``""`` for a plain number).
        digits: Decimals shown.
        title: A short title for tables.
        description: What it is and how it is computed, in a sentence.
        source: The module that computes it.
        jobs: For a workload metric, the jobs that have it.
        maximise: Whether more is better (a sweep objective maximises it unless told otherwise).
        minimise: Whether less is better (a time, a cost, a failure rate, what a failure takes away). A metric
            that is neither (a power, a count of parts) has no better direction: more of it is a design choice.
        sweep: For a workload metric, whether a sweep's points have it too (reliability and cost figures other
            than goodput and cost per token are the pipeline's only).
        counts: For a rate (a unit ``1/<time>``), what it counts (``tokens``), so that it reads ``tokens/s``, not
            ``1/s``, wherever it shows (`rate_unit`).
        per: For an amount of money per a time (an accelerator-hour, a job's hour: ``h``; a year: ``year``), that
            time: a target may give it as a currency per time (``<= 2.5 USD/h``, ``<= 5000 EUR/year``), the amount
            for one (`as_limit`).
        per_unit: For money, whether it is a price per unit of what it counts (a token, a million tokens), as one
            `per` a time is: a target on it may be finer than its currency's minor unit, an `amount`'s may not.
        synonyms: Names people write for this figure that are not its name (``scale_out_bandwidth_per_accelerator``
            for a fabric's injection per accelerator): never read as it, but "did you mean" offers it for them
            whatever their spelling, and names its kind of object where the requirement's subject is another.
        unmeasured: For a figure the performance model estimates that carries no measured error band (the banded ones
            are `perf.workload.band_families.QUANTITIES`'): why no published run measures the model's error on it,
            in words. A requirement it meets is at risk (REQ004, `model.at_risk.unmeasured`), never plainly
            met, on every path (`check`, `estimate`, a sweep's points). Empty for a banded estimate (its band judges
            it) and for a figure that is arithmetic on stated inputs (a checkpoint's size, a cost per hour) or has a
            range of its own (the reliability figures, over the failure-rate sets). Where an estimate gives a figure
            with this reason a range of its own (`<name>_low`, `<name>_high`: a training job's memory, over the
            caching allocator's waste), the range judges it instead. docs/perf-model.md, Error bands, Figures no run
            measures, Memory band.
    """

    subject: str
    name: str
    dimension: str
    unit: str
    digits: int
    title: str
    description: str
    source: str
    jobs: tuple[str, ...] = ()
    maximise: bool = False
    sweep: bool = True
    minimise: bool = False
    counts: str = ""
    per: str = ""
    per_unit: bool = False
    synonyms: tuple[str, ...] = ()
    unmeasured: str = ""

    @property
    def better(self) -> str | None:
        """'higher' or 'lower': the direction in which a change is better (`archgen diff`); None for neither."""
        return "higher" if self.maximise else "lower" if self.minimise else None

    @property
    def said(self) -> str:
        """Its title inside a sentence: lower-cased but for an acronym ('usable conversion capacity', 'MFU', 'TTFT')."""
        return self.title if self.title[:2].isupper() else self.title[:1].lower() + self.title[1:]

    @property
    def pattern(self) -> re.Pattern[str]:
        """The regular expression of the names it declares."""
        return _compile(self.name)

    def matches(self, name: str) -> bool:
        """Whether `name` is this metric (a placeholder stands for any of its values).

        A name without a placeholder is compared as text: its pattern is the name escaped, so the answer is the same
        without compiling one (`model.sweep` asks for every sweep metric as it imports: 109 patterns, some 8 ms of
        each start, issue 25).
        """
        if "<" not in self.name:
            return name == self.name
        return bool(self.pattern.fullmatch(name))

    @property
    def money(self) -> bool:
        """Whether it is an amount of money (declared in USD; any currency of `units.CURRENCIES` stands in)."""
        return "USD" in self.dimension

    @property
    def amount(self) -> bool:
        """Whether it is an amount of money, an invoice's line (capex, a cost per year, a job's cost), not a price.

        Such an amount has at most its currency's decimals (ISO 4217's minor unit, `unit_hints.MINOR_UNITS`), so a
        target '<= 5.000 EUR' on it is refused (`model.requirements`); a price per accelerator-hour (`per` an hour)
        or per token (`per_unit`) may be finer ('<= 2.321 USD'). Per a year it is an amount, as a price field per a
        month or longer is (`money.invoiced`).
        """
        return self.money and not self.per_unit and (not self.per or _invoiced_per(self.per))

    @property
    def money_rate(self) -> bool:
        """Whether it is money per a time shorter than a month (`per` an hour): a rate, shown so ('1.920 USD/h').

        Its value is held as the amount for one `per` (`as_limit`: a target's ``2.5 USD/h`` is ``2.5 USD``), so its
        number is the rate's; the text, documents, `gap` and the targets name the time (`rate_unit`, `Target.per`)
        and the JSON gives it per second (`output.envelope.metric_quantity`). newuser103: '<= 2.5 USD/h' printed
        '<= 2.5 USD', and a buyer read '1.920 USD' as a total.
        """
        return self.money and bool(self.per) and not self.amount

    def accepts(self, value: Q) -> bool:
        """Whether `value` has this metric's dimension (an amount of money in any one currency).

        A count in its unit (`units.COUNTS`) must be the one the metric counts, once: ``tokens/s`` on a rate of
        tokens, never ``requests/s`` there, nor ``tokens/s`` on a power or a rate of interruptions.
        """
        if (counts := counted(value)) and counts != {self.counts.removesuffix("s"): 1}:
            return False
        if self.money:
            cur = currency(value)
            return cur is not None and (value / Q_(1, cur) * Q_(1, "USD")).is_compatible_with(self.dimension)
        return value.is_compatible_with(self.dimension or "dimensionless")

    def as_limit(self, value: Q) -> Q:
        """`value` as a limit on this metric: a currency per time on a metric `per` a time is the amount for one.

        ``2.5 USD/h`` on a cost per accelerator-hour is ``2.5 USD``, ``0.05 USD/min`` ``3 USD``; a rate written with
        what it counts is the rate (``600000 tokens/s`` is ``600000 1/s``, the unit every figure is in); any other
        value is returned as it is (`accepts` then judges it).
        """
        cur = currency(value) if self.per and self.money else None
        if cur is None or self.accepts(value):
            return uncounted(value) if self.accepts(value) else value
        amount = value * Q_(1, self.per)
        return amount.to(cur) if amount.is_compatible_with(cur) else value

    def unit_of(self, value: Q | None) -> str:
        """The unit `value` is shown in: the declared one, in the value's own currency for money."""
        cur = currency(value) if self.money and value is not None else None
        return self.unit.replace("USD", cur) if cur else self.unit

    def rate_unit(self, value: Q | None = None) -> str | None:
        """How a rate's display unit reads, or None.

        Naming what it counts (``tokens/s``, ``interruptions/day``), or for money per an hour (`money_rate`) the time,
        in `value`'s currency (``USD/h``, ``EUR/h``).
        """
        if self.counts and self.unit.startswith("1/"):
            return f"{self.counts}/{self.unit[2:]}"
        return f"{self.unit_of(value)}/{self.per}" if self.money_rate else None

    def display(self, value: Q) -> Q:
        """`value` in the unit it is shown in."""
        return value.to(self.unit_of(value) or "dimensionless")


@cache
def _invoiced_per(per: str) -> bool:
    """Whether an amount of money per `per`, a time, is an invoice's line (`money.invoiced`): 'year', not 'h'."""
    return invoiced(Q_(1, f"USD/{per}"))


@cache
def _compile(name: str) -> re.Pattern[str]:
    parts = re.split(r"<(\w+)>", name)  # literal, placeholder, literal, ...
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?:{PLACEHOLDERS[p]})" for i, p in enumerate(parts)))


def subject_kind(path: str) -> str | None:
    """The kind of object an object path (or a glob over them) names: rack, cluster, fabric or workload."""
    parts = path.split("/")
    if len(parts) == 2 and parts[0] in ("rack", "cluster", "workload"):
        return parts[0]
    if len(parts) == 4 and parts[0] == "cluster" and parts[2] == "fabric":
        return "fabric"
    return None


def written_out(name: str) -> list[str]:
    """`name` with each placeholder of a few values (tier, link) written out, for suggestions."""
    parts = re.split(r"<(\w+)>", name)
    out = [""]
    for i, p in enumerate(parts):
        values = [p] if i % 2 == 0 else PLACEHOLDERS[p].split("|") if p not in ("rack", "hall") else [f"<{p}>"]
        out = [o + v for o in out for v in values]
    return out


def apart(name: str, known: str) -> bool:
    """Whether `known` swaps words of `name` for other words, not a misspelling of them: no "did you mean" for it.

    The words each has that the other lacks are compared as one text each; both present and under half alike
    (difflib ratio) reads as another figure that shares the rest: `scale_out_bandwidth_per_accelerator` is no
    misspelt `storage_write_bandwidth_per_accelerator` ('scale_out' against 'storage_write', 0.45), though the two
    names are 0.84 alike, while `injecton_per_accelerator` is `injection_per_accelerator`'s (0.94).
    """
    words, others = re.split(r"[._]+", name.lower()), re.split(r"[._]+", known.lower())
    mine, theirs = [w for w in words if w not in others], [w for w in others if w not in words]
    return bool(mine and theirs) and difflib.SequenceMatcher(None, "_".join(mine), "_".join(theirs)).ratio() < 0.5


#: A job's cost metrics, ranged (`_low`/`_high`) from its own accelerators to those and its hot spares (per token, at
#: goodput's high and low end); `_CHARGED` says what each end charges (`perf.workload.derived.cost_ends`, one rule).
SPARE_RANGED = ("job_cost_per_hour", "cost_per_token", "cost_per_million_tokens", "job_cost")
#: How the names of the figures that grow with the capex begin (each one's `_low` and `_high` ends too): lower bounds
#: where the capex leaves parts out (`analyse.capex_bounds`, and a sweep's `perf.explore.points.on_lower_bound`).
CAPEX_BOUNDED = ("capex", "capital_cost_per_year", "tco_per_", "support_cost_per_year", "breakeven_utilisation",
                 *SPARE_RANGED)
#: Why a job's cost per token (its whole cost, its goodput time to train) has no high end: goodput's low end is 0.
UNBOUNDED = "no upper bound: goodput's low end is 0"
#: A training job's hot-spare figures, ranged over the failure-rate sets as goodput is (`analyse.goodput`), and why
#: each one's high end may have no number (nu41cost: 54 spares read "met <= 72" where one rate set holds no count).
SPARES_RANGED = ("spares", "spare_power", "spare_space", "restart_time")
_NO_COUNT = ("no upper bound: at one end of the failure-rate range no number of hot spares holds the goodput target "
             "(REL003)")
WHY_UNBOUNDED = {**dict.fromkeys(SPARES_RANGED[:3], _NO_COUNT), "restart_time": (
    "no upper bound: at one end of the failure-rate range more of the job's nodes are in repair than it has spares, "
    "outside the spare model (REL009)")}


def unbounded(metric: str) -> str:
    """Why `metric`'s value is infinite, the one rule of every output.

    `UNBOUNDED` for a job's cost and goodput time (their high end; `derived.cost_ends`), `WHY_UNBOUNDED`'s for the
    spare figures, else "no upper bound" (a served workload whose arrivals outrun its replicas has no TTFT,
    `perf.serve.run.overrun`: not goodput's doing).
    """
    name = metric.removesuffix("_high")
    return UNBOUNDED if name in (*SPARE_RANGED, "tco_per_goodput_accelerator_hour",
                                 "tco_per_job_goodput_accelerator_hour", "goodput_time_to_train") \
        else WHY_UNBOUNDED.get(name, "no upper bound")


#: Metrics renamed in a release: old name -> (new name, release). A spec that names the old one (a requirement's or
#: an objective's `metric:`) is read as the new one with a located warning (SPC003, `archgen.migrate`), and the JSON
#: outputs carry the old key beside the new with the same value (`output.envelope.metrics_json`), until the release
#: after. `tflops_per_gpu` held FLOP/s, as every quantity does in SI, while its name said TFLOP/s (lo23cli);
#: `energy_per_million_tokens`, the hall's energy at the average draw with the PUE, was not 10^6 x a sweep point's
#: `energy_per_token`, IT energy at maximum draw, as cost_per_million_tokens is cost_per_token's (review23).
RENAMED: dict[str, tuple[str, str]] = {"tflops_per_gpu": ("model_flops_per_gpu", "0.1.0"),
                                       "energy_per_million_tokens": ("facility_energy_per_million_tokens", "0.1.0")}
