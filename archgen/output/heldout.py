"""Held-out measurements on the accuracy page: each against the error band its family carries (issue 20 part 8).

A held-out file's cases enter no band (docs/gen_bands.py does not read it): they test the bands, as published runs the
model's error was never taken on. Each measurement is scored as any case is, then set beside the band an estimate of
its family, quantity, load bin and arrival carries (`perf.workload.bands.band`, the model's error alone, without the
span over a part's stated efficiency ranges), and the page says whether its error lies within it. A band is the range
of its n measurements' errors; were a further run's error drawn from the same distribution as theirs, it would fall
outside that range with probability 2 / (n + 1) (the expected coverage of the range of n exchangeable values is
(n - 1) / (n + 1): Wilks, "Determination of sample sizes for setting tolerance limits", Ann. Math. Statist. 12(1),
1941, pp. 91-96), so a band of 3 measurements is expected to miss every second comparable run.

A case whose stated layout does not fit by the model (`scoring.case_memory.unfit_reason`: a training layout above the
HBM the model counts, a serving job whose KV cache holds no sequence beside the weights, a closed-form serving batch
above its KV cache) is predicted and judged as stated, as a scored
file's rows are (their `fits` column) and `estimate --cases` lists them: the run did fit, so its measurement stands and
the model's memory count is what it puts in doubt. Its row says "no" under `fits`, and the section lists why after the
table with the case's own `notes` (what the case format cannot state). A workload of a design that does not fit is
another matter: it cannot run, so only its memory metrics are judged (`perf.workload.derived.judged`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from archgen.model.accelerator import Accelerator
from archgen.output.estimate import show_value
from archgen.perf.workload.band_families import FAMILIES
from archgen.perf.workload.bands import Band, expected_coverage
from archgen.perf.workload.case_bands import case_band, case_family, holds
from archgen.scoring.case_memory import unfit_reason
from archgen.scoring.cases import read_case_file
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.scores import CaseResult, score_cases

#: How a `fits` cell shows whether a case's stated layout fits by the model (`output.accuracy`'s tables too).
FITS_SHOWN = {True: "yes", False: "**no**", None: "—"}
#: What a `fits` cell says (`scoring.case_memory.fits`), in every table that has one.
FITS_MEANS = ("whether the case's stated layout fits by the model (a training layout in the HBM it counts; a serving "
              "job's weights beside the KV cache of at least one sequence, and an offline batch in its KV cache "
              "whole; a simulated run admits what the KV cache holds and queues the rest, which `archgen estimate "
              "--cases` lists; — for a collective)")


@dataclass(frozen=True)
class Checked:
    """One held-out measurement against its family's band: `low`/`high` NaN where the family has no band there."""

    result: CaseResult
    family: str
    count: int
    low: float
    high: float
    bin: str
    band: Band
    fits: bool | None = None  # whether the case's stated layout fits by the model (None: a collective, no memory)
    unfit: str = ""  # why it does not (`scoring.case_memory.unfit_reason`)
    notes: str = ""  # the case's `notes`

    @property
    def banded(self) -> bool:
        """Whether the family carries a band for this measurement (measured, in its load bin and context)."""
        return self.count > 0 and not math.isnan(self.low)

    @property
    def inside(self) -> bool:
        """Whether the measurement's error lies within its family's band (False where there is none: `holds`)."""
        return holds(self.band, self.result.error)


def checked(path: str | Path, accelerators: dict[str, Accelerator] | None = None) -> list[Checked]:
    """Every scored measurement of the held-out file `path`, each with its family's band and whether its case fits."""
    accs = accelerators if accelerators is not None else load_accelerators()
    rows: list[Checked] = []
    for scored in score_cases(read_case_file(path), accs).scored:
        case = scored.case
        unfit = unfit_reason(case, scored.prediction.footprint) or ""
        fits = None if case.collective is not None else not unfit
        for r in scored.results:
            if (b := case_band(case, r.metric, r.load)) is not None:
                rows.append(Checked(r, case_family(case, r.metric), b.count, b.low, b.high, b.bin, b, fits, unfit,
                                    case.notes))
    return rows


def heldout_section(path: str | Path, name: str, accelerators: dict[str, Accelerator] | None = None) -> list[str]:
    """The page's section for one held-out file: every measurement, its family's band, and whether it lies inside."""
    rows = checked(path, accelerators)
    banded = [c for c in rows if c.banded]
    inside = [c for c in banded if c.inside]
    unfit = {c.result.id: (c.unfit, c.notes) for c in rows if c.fits is False}
    lines = [f"## Held out: `{name}` (in no band)", "",
             "Published runs the bands were not taken on (docs/gen_bands.py does not read this file): each "
             "measurement beside the band its family carries in `archgen estimate` (the model's error alone; load "
             "bin and arrival as the run's), and whether its error lies within it. `expected` is the share of further "
             "comparable runs a range of n errors is expected to hold, (n - 1) / (n + 1) (Wilks 1941): a range is "
             "not a bound. `fits`: " + FITS_MEANS + ". The source, and every assumption beyond it, are in the "
             "file's header.", "",
             f"**{len(inside)} of {len(banded)} banded measurements inside their family's band**"
             + (f" ({len(rows) - len(banded)} with no band)." if len(rows) > len(banded) else "."), "",
             "| case | metric | measured | predicted | error | family | band (n) | expected | inside | fits |",
             "|---|---|---:|---:|---:|---|---|---:|---|---|"]
    for c in rows:
        r = c.result
        shown = FAMILIES.get(c.family, c.family) + (f", {c.bin}" if c.bin else "")
        where = (f"{c.low:+.1%} to {c.high:+.1%} ({c.count})" if c.banded else   # past its runs' context: which
                 f"no band: {c.band.measure} {c.band.tokens:,} tokens, longest {c.band.longest:,}" if c.band.longest
                 else f"no band ({c.count})")
        lines.append(f"| {r.id} | {r.metric} | {show_value(r.measured, r.unit, r.metric)} | "
                     f"{show_value(r.predicted, r.unit, r.metric)} | {r.error:+.1%} | {shown} | {where} | "
                     f"{f'{expected_coverage(c.count):.0%}' if c.banded else '—'} | "
                     f"{'yes' if c.inside else '**no**' if c.banded else '—'} | {FITS_SHOWN[c.fits]} |")
    if unfit:
        lines += ["", "Stated layouts that do not fit by the model, predicted and judged as stated (`fits`): the run "
                  "fit, so its measurement stands and the model's memory count is what it puts in doubt.", ""]
        lines += [f"- `{cid}`: {why}." + (f" {notes}" if notes else "") for cid, (why, notes) in unfit.items()]
    return lines + [""]
