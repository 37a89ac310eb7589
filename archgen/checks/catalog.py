"""CAT: consistency of catalog data."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks import catalog_bounds  # noqa: F401 (registers CAT013 and CAT014: a new part's figures)
from archgen.checks.catalog_fields import differing, once, quoted, short, unless_default
from archgen.checks.fibre_grades import short_grades
from archgen.checks.registry import Context, Violation, check
from archgen.display import figure, quantity
from archgen.load import shown
from archgen.model import Accelerator, CoolingUnit, PowerShelf, Switch, System
from archgen.model.field_words import said as field_said
from archgen.model.power import PDU
from archgen.perf.hw.generation import NVLS_FROM, assumed_without, generation_unstated, nvls_unused
from archgen.units import Q_
from archgen.waivers import object_path

#: How far a published heat output may exceed the maximum draw before it is flagged.
HEAT_TOLERANCE = 1.05


@check("CAT001", "catalog.heat_vs_power", severity="warning")
def heat_vs_power(ctx: Context) -> Iterator[Violation]:
    """A part's rated heat output is not far above its maximum power draw (energy is conserved).

    Fix: check the datasheet; if it really publishes both figures, keep them and waive with the reason.
    """
    specs = ctx.design.specs
    for part in specs.of(System) + specs.of(Switch):
        yield from once("CAT001", _heat_vs_power, part)


def _heat_vs_power(part: System | Switch) -> Iterator[Violation]:
    """CAT001 on one part (`once`)."""
    heat = part.power.heat_output
    if heat is not None and heat > part.power.max * HEAT_TOLERANCE:
        yield Violation(f"part/{part.id}", part.id, ("power", "heat_output"),
                        f"rated heat output {heat.to('kW'):.2f~P} ({heat:~P}) exceeds maximum draw "
                        f"{quantity(part.power.max.to('kW'))} by {float(heat / part.power.max) - 1:.0%}",
                        heat, part.power.max)


@check("CAT002", "catalog.accelerator_count")
def accelerator_count(ctx: Context) -> Iterator[Violation]:
    """A system that names an accelerator fits at least one, and one that fits some names which.

    Fix: set both `accelerator` and `accelerators`, or neither.
    """
    for part in ctx.design.specs.of(System):
        if bool(part.accelerator) != bool(part.accelerators):
            yield Violation(f"part/{part.id}", part.id, ("accelerators",),
                            f"accelerator '{part.accelerator or ''}' with count {part.accelerators}")


@check("CAT003", "catalog.cooling_type")
def cooling_type(ctx: Context) -> Iterator[Violation]:
    """A part's cooling type agrees with its liquid fraction (air: 0; liquid: above 0; hybrid: between 0 and 1).

    `cooling.liquid_fraction` is the share of the part's heat its liquid loop removes, and defaults to 0 (air
    cooled): a part stated `liquid` or `hybrid` without it is read as sending no heat to liquid. The finding sits
    at the fraction where it is stated, else at the type.

    Fix: state `cooling.liquid_fraction`: 1 for a part whose heat all goes to liquid, less where its fans still take
    some (the share its vendor states; where none does, your estimate, listed under `unconfirmed:`); or set
    `cooling.type` to what the fraction says.
    """
    specs = ctx.design.specs
    for part in specs.of(System) + specs.of(Switch):
        yield from once("CAT003", _cooling_type, part)


def _cooling_type(part: System | Switch) -> Iterator[Violation]:
    """CAT003 on one part (`once`)."""
    c = part.cooling
    ok = {"air": c.liquid_fraction == 0, "liquid": c.liquid_fraction > 0,
          "hybrid": 0 < c.liquid_fraction < 1}[c.type]
    if ok:
        return
    stated = "liquid_fraction" in c.model_fields_set
    fraction = (f"liquid_fraction {c.liquid_fraction:g}" if stated else
                "no liquid_fraction (it defaults to 0: all heat to air)")
    want = {"air": "0 (or type liquid or hybrid)", "liquid": "above 0, e.g. 1 where all heat goes to liquid",
            "hybrid": "between 0 and 1"}[c.type]
    said = (f"a liquid-cooled share of {c.liquid_fraction:g}" if stated else
            "no liquid-cooled share (it defaults to 0: all heat to air)")
    yield Violation(f"part/{part.id}", part.id, ("cooling", "liquid_fraction" if stated else "type"),
                    f"cooling type '{c.type}' with {fraction}: state liquid_fraction {want}",
                    public=f"cooling type '{c.type}' with {said}: the two do not agree")


@check("CAT004", "catalog.accelerator_power")
def accelerator_power(ctx: Context) -> Iterator[Violation]:
    """A system's maximum draw covers the TDP of the accelerators it carries.

    Fix: check `power.max` and its unit (a server carrying eight 750 W GPUs draws more than 6 kW), or the
    accelerator count.
    """
    specs = ctx.design.specs
    for part in specs.of(System):
        acc = specs.get(part.accelerator) if part.accelerator else None
        if isinstance(acc, Accelerator) and part.accelerators:
            yield from once("CAT004", _accelerator_power, part, acc)


def _accelerator_power(part: System, acc: Accelerator) -> Iterator[Violation]:
    """CAT004 on one system and the accelerator it names (`once`)."""
    floor = (acc.tdp * part.accelerators).to("kW")
    if part.power.max < floor:
        yield Violation(f"part/{part.id}", part.id, ("power", "max"),
                        f"maximum draw {quantity(part.power.max)} is below the {part.accelerators} x "
                        f"{quantity(acc.tdp)} TDP of its {acc.id} accelerators ({quantity(floor)})",
                        part.power.max, floor)


#: Weight of one rack unit of equipment, per U of height, and why: a bound outside it is most likely a unit slip.
WEIGHT_PER_U = (
    (Q_(1, "kg"), "the sheet-metal enclosure of one rack unit alone weighs more (two 0.44 m x 0.7 m faces of "
                  "1 mm steel at 7,850 kg/m3: about 4.8 kg)"),
    (Q_(200, "kg"), "solid steel filling one rack unit (44.45 mm x 482.6 mm x 1.2 m at 7,850 kg/m3: 202 kg) "
                    "weighs no more"))
#: Maximum draw of a system or switch: at least this per item, at most this per U of height, and why.
POWER_BOUNDS = (
    (Q_(10, "W"), "a server's or switch's management controller and fans alone draw more"),
    (Q_(20, "kW"), "per U: about four times the densest published tray (GB200 compute tray, 5.4 kW in 1 U)"))


@check("CAT005", "catalog.plausible", severity="warning")
def plausible(ctx: Context) -> Iterator[Violation]:
    """A part's weight and maximum draw lie within physical bounds for its size (a unit slip is 1,000 times off).

    Weight per rack unit: 1 kg to 200 kg; a system's or switch's maximum draw: 10 W to 20 kW per rack unit. Each
    message states the bound and its reason.

    Fix: check the figure and its unit ('107 g' for '107 kg', '11.5 mW' for '11.5 kW'); if the datasheet really
    says so, keep it and waive with the datasheet's words.
    """
    specs = ctx.design.specs
    for part in specs.of(System) + specs.of(Switch) + specs.of(PowerShelf) + specs.of(PDU) + specs.of(CoolingUnit):
        yield from once("CAT005", _plausible, part)


def _plausible(part: System | Switch | PowerShelf | PDU | CoolingUnit) -> Iterator[Violation]:
    """CAT005 on one part (`once`)."""
    # compared as pint compares them, on plain magnitudes: a weight per U in kg against the bounds in kg (the same
    # unit: pint compares the magnitudes), a draw in root units against the bounds in root units (pint's path for
    # unlike units); each part's figures converted once, not again for every comparison (a pipeline run judges
    # every catalog part: about 1.2 of this check's 1.4 ms went to pint's comparisons, tests30)
    low_root = POWER_BOUNDS[0][0].to_root_units().magnitude
    mech = part.mechanical
    if mech is None:
        return
    units = max(mech.height.m_as("U"), 1e-9)
    per_u = (mech.weight / units).m_as("kg")
    for (bound, reason), lower in zip(WEIGHT_PER_U, (True, False), strict=True):
        if (per_u < bound.magnitude) if lower else (per_u > bound.magnitude):
            yield Violation(f"part/{part.id}", part.id, ("mechanical", "weight"),
                            f"{quantity(mech.weight)} for {mech.height:~P} is {per_u:,.4g} kg per U, "
                            f"{'below' if lower else 'above'} {bound:~P} per U: {reason}",
                            mech.weight, bound * units)
    if isinstance(part, System | Switch):
        high = POWER_BOUNDS[1][0] * units
        drawn = part.power.max.to_root_units().magnitude
        below = drawn < low_root
        if below or drawn > high.to_root_units().magnitude:
            bound, reason = POWER_BOUNDS[0] if below else POWER_BOUNDS[1]
            yield Violation(f"part/{part.id}", part.id, ("power", "max"),
                            f"maximum draw {quantity(part.power.max)} is "
                            f"{'below' if below else 'above'} {bound:~P}: {reason}",
                            part.power.max, POWER_BOUNDS[0][0] if below else high)


@check("CAT006", "catalog.switching_capacity", severity="warning")
def switching_capacity(ctx: Context) -> Iterator[Violation]:
    """A switch's switching capacity is one direction: at most the sum of its ports' line rates.

    `switching_capacity` counts one direction (64 x 800G = 51.2 Tb/s, as Ethernet datasheets give it). InfiniBand
    switches are marketed with the "aggregate bidirectional" figure, twice that (the QM9700's 51.2 Tb/s for 64 x
    400G), so the same number would mean twice the capacity on one part. An optical circuit switch is not judged.

    Fix: halve a figure published for both directions; otherwise check the ports' count and speed.
    """
    for part in ctx.design.specs.of(Switch):
        yield from once("CAT006", _switching_capacity, part)


def _switching_capacity(part: Switch) -> Iterator[Violation]:
    """CAT006 on one part (`once`)."""
    cap = part.switching_capacity
    if cap is None or part.technology == "optical-circuit":
        return
    ports = sum((g.speed * g.count for g in part.groups), 0 * cap).to("Tbit/s")
    if cap > ports * (1 + 1e-9):
        both = " (exactly twice: a figure for both directions)" if abs(float(cap / ports) - 2) < 1e-6 else ""
        yield Violation(f"part/{part.id}", part.id, ("switching_capacity",),
                        f"{cap:~P} is more than the ports carry in one direction, {figure(ports)}{both}: give "
                        f"one direction, at most {figure(ports)}", cap, ports)


#: How many differing fields CAT007 names before it counts the rest; a value longer than this is named, not quoted.
MAX_NAMED = 6


@check("CAT007", "catalog.replaced", severity="warning")
def replaced(ctx: Context) -> Iterator[Violation]:
    """A spec document with a shipped catalog entry's id has the entry's figures, or says why it differs.

    A document whose id is a catalog entry's takes the entry's place in every rack, cluster and workload that names
    it, in this project only, with no other trace: a pull request that adds `id: nvlink5-switch-tray` with a
    0.5 kW `power.max` (3.8 kW shipped) lowers the GB200 NVL72 rack's power by 29.7 kW and turns a failing
    requirement into a met one. The finding names the entry and each field that differs (values compared as
    quantities where both are, so `3800 W` is `3.8 kW`; a key given on one side only differs, unless the other side
    takes the same value by default: a fork written by `archgen catalog show ID --format yaml`, which leaves out the
    keys at their defaults, does not differ in the shipped file's `coolant: pg25`). A warning: the
    replacement may be meant (a corrected figure, a variant), so it does not fail `check`, but it is counted and
    annotated where a reviewer sees it, and `--strict` fails on it until it is waived with its reason.

    Fix: give the document an id of its own and name that where it is used; or, to replace the catalog entry on
    purpose, waive CAT007 in the document with the reason and the source of its figures.
    """
    specs = ctx.design.specs
    for ref, shipped in sorted(specs.replaced.items()):
        doc, src = specs.get(ref), specs.sources.get(ref)
        if doc is None or src is None:
            continue
        fields = unless_default(differing(shipped.data, src.data), doc, shipped.data)
        if not fields:
            continue
        named = [(path, f" {quoted(a)} → {quoted(b)}" if short(a) and short(b) else "")
                 for path, a, b in fields[:MAX_NAMED]]
        more = f" and {len(fields) - MAX_NAMED} more" if len(fields) > MAX_NAMED else ""
        yield Violation(object_path(doc), ref, ("id",),
                        f"replaces the shipped catalog's {shipped.kind} '{ref}' ({shown(shipped.locate(('id',)))}) "
                        f"in this project, with different {'; '.join(p + v for p, v in named)}{more}",
                        public=f"replaces the shipped catalog's {shipped.kind} '{ref}' in this project, with different "
                        f"{'; '.join(field_said(p) + v for p, v in named)}{more}")


@check("CAT008", "catalog.compute_capability", severity="warning")
def compute_capability(ctx: Context) -> Iterator[Violation]:
    """An NVIDIA accelerator states its CUDA compute capability, on which the performance model keys its generation.

    Without it the part is modelled as not an NVIDIA GPU (`perf.hw.generation.WITHOUT`): collectives on NCCL's
    Simple protocol only, no NVLS, FP8 training quantised by Hopper's rule, TP-overlap chunks on one stream, and
    HybridEP refused. Its estimates say so too.

    Fix: state `compute_capability` from NVIDIA's CUDA GPUs table (developer.nvidia.com/cuda-gpus), e.g. 10.0 for
    Blackwell; where NVIDIA has not published it, state the figure you can stand behind and list
    `compute_capability` under `unconfirmed:`.
    """
    for part in ctx.design.specs.of(Accelerator):
        if generation_unstated(part.vendor, part.compute_capability):
            taken = f"the performance model takes {part.id} as no NVIDIA generation: {assumed_without(True)}"
            yield Violation(f"part/{part.id}", part.id, ("vendor",),
                            f"vendor '{part.vendor}' but no compute_capability: {taken}",
                            public=f"vendor '{part.vendor}' but no CUDA compute capability stated: {taken}")


@check("CAT009", "catalog.unused_in_network_reduction", severity="warning")
def unused_in_network_reduction(ctx: Context) -> Iterator[Violation]:
    """An accelerator that states in-network reduction states a compute capability the model runs NVLS on (9.0 up).

    NCCL runs NVLS (NVLink SHARP) from Hopper, compute capability 9.0 (src/graph/tuning.cc 139: `nvlsEfficiency` 0
    before it); the model does the same, so `scale_up.in_network_reduction: true` on a part below it, or with none,
    is never used, and its collectives are costed without in-switch reduction.

    Fix: state the part's `compute_capability` (NVIDIA's CUDA GPUs table); if it has no NVLS, set
    `scale_up.in_network_reduction: false`.
    """
    for part in ctx.design.specs.of(Accelerator):
        su = part.scale_up
        if su is not None and nvls_unused(su.in_network_reduction, part.compute_capability):
            cc = (f"compute capability {part.compute_capability:.1f}" if part.compute_capability
                  else "no compute capability")
            yield Violation(f"part/{part.id}", part.id, ("scale_up", "in_network_reduction"),
                            f"in_network_reduction true with {cc}: the model runs NVLS from {NVLS_FROM:.1f} (Hopper) "
                            "only, as NCCL does, so it costs this part's collectives without in-switch reduction",
                            public=f"in-network reduction stated with {cc}: the model runs NVLS from "
                                   f"{NVLS_FROM:.1f} (Hopper) only, as NCCL does, so it costs this part's collectives "
                                   "without in-switch reduction")


@check("CAT010", "catalog.peak_basis", severity="warning")
def peak_basis(ctx: Context) -> Iterator[Violation]:
    """An accelerator states whether each peak it marks unconfirmed is dense (`peak_basis`).

    Announced peaks are often sparse ("with sparsity") or otherwise not the dense rate the model's GEMM fractions are
    of; a "1.2 EF FP8" read as dense when it counts sparsity doubles every compute-bound figure. FP64 is left out
    (no vendor prints a sparse FP64 rate).

    Fix: state `peak_basis: {fp8: dense}` where the source says the figure is dense; where it gives only a sparse
    one, enter your dense estimate (the model refuses `sparse`) and say how it was reached in `notes`.
    """
    for part in ctx.design.specs.of(Accelerator):
        yield from once("CAT010", _peak_basis, part)


def _peak_basis(part: Accelerator) -> Iterator[Violation]:
    """CAT010 on one part (`once`)."""
    for dt in part.peak:
        if dt != "fp64" and dt not in part.peak_basis and part.is_unconfirmed(f"peak.{dt}"):
            yield Violation(f"part/{part.id}", part.id, ("peak", dt),
                            f"peak.{dt} is unconfirmed and its basis is not stated: the model reads it as dense, "
                            f"while announced figures are often sparse; state peak_basis.{dt}: dense if the "
                            "source says so",
                            public=f"the {dt.upper()} peak is unconfirmed and its basis is not stated: the model "
                                   "reads it as dense, while announced figures are often sparse")


#: Decimal byte units a vendor's HBM figure is misread in (pint's names), and the binary unit each stands for.
DECIMAL_BYTES = {"megabyte": "MiB", "gigabyte": "GiB", "terabyte": "TiB"}


@check("CAT011", "catalog.memory_decimal", severity="warning")
def memory_decimal(ctx: Context) -> Iterator[Violation]:
    """An accelerator's HBM capacity is stated in binary units (GiB, or the MiB software reports), not decimal GB.

    HBM is built in binary capacities: a 24 Gbit DRAM die holds 3 GiB, eight of them one 24 GB stack (Micron's HBM3
    Gen2, AnandTech 2023-07-26), so a vendor's "80 GB" or "288 GB" is GiB, and software sees about that much (an
    H100 80 GB reports 81,559 MiB, 79.6 GiB: the h100-sxm5-80gb entry). Written as `288 GB` the figure reads as
    268.2 GiB, 6.9 % less memory than the same print on a part entered in GiB. Only a whole number of decimal units
    is flagged: a figure converted on purpose (`85.9 GB`) is not a vendor's print.

    Fix: write the vendor's figure in the binary unit (`memory: 288 GiB`), or the MiB that software reports (an
    MLPerf system description, `nvidia-smi`), as the shipped parts do.
    """
    for part in ctx.design.specs.of(Accelerator):
        yield from once("CAT011", _memory_decimal, part)


def _memory_decimal(part: Accelerator) -> Iterator[Violation]:
    """CAT011 on one part (`once`)."""
    units = dict(part.memory.units._units)   # the author's unit, kept (units.Dim): {'gigabyte': 1}
    binary = DECIMAL_BYTES.get(next(iter(units))) if len(units) == 1 and 1 in units.values() else None
    value = float(part.memory.magnitude)
    if binary is None or not value.is_integer():
        return
    printed = f"{value:g} {binary[0]}B"
    read = part.memory.to(binary).magnitude
    yield Violation(f"part/{part.id}", part.id, ("memory",),
                    f"memory {printed} is read as {read:.1f} {binary}, {1 - read / value:.1%} less than the "
                    f"{value:g} {binary} that HBM sold as {printed} holds: HBM is built in binary capacities (a 24 "
                    f"Gbit DRAM die holds 3 GiB); write memory: {value:g} {binary}, or the MiB that software "
                    "reports")


@check("CAT012", "catalog.fibre_reach")
def fibre_reach(ctx: Context) -> Iterator[Violation]:
    """An optical part's reach is within the reach of the fibre grades it states.

    A cord takes the part's first grade that reaches it; past its last grade's reach it would be ordered as that
    grade, which does not carry the link (NVIDIA's multimode optics: OM3 30 m, OM4 50 m). How:
    `archgen.checks.fibre_grades`.

    Fix: state the grade that reaches the part's reach in its `fibre` list (OM4 past OM3's 30 m), or its reach as
    its last grade's.
    """
    yield from short_grades(ctx)
