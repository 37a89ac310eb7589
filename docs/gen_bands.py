"""Write archgen/perf/workload/band_table.py, the model's error by family: `python docs/gen_bands.py [--check]`.

Scores every case file the accuracy page lists (docs/gen_accuracy.py: the two scoring files, copies of
../shared/data, and the project's further public cases under tests/perf/data) and writes the band of each
(family, quantity) (`archgen.perf.workload.bands.compute_table`), how many of its measurements each accelerator
has (`compute_on`) and each accelerator vendor's own errors (`band_source.compute_vendor`). An open-loop serving
run is binned at its load on its system's measured capacity where its file measures one
(`band_source.measured_loads`). `--check` writes nothing
and exits 1 when the table is stale; tests/perf/test_bands.py runs the same comparison. Regenerate after any change
that moves a prediction.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_accuracy import INDEPENDENT, SCORED, write_or_check  # noqa: E402

from archgen.model.cases import Case  # noqa: E402
from archgen.perf.workload.band_families import OFFLINE_FAMILIES, QUANTITIES, arrival_of  # noqa: E402
from archgen.perf.workload.band_lookup import context_of  # noqa: E402
from archgen.perf.workload.band_source import (  # noqa: E402
    at_one_length,
    compute_context,
    compute_on,
    compute_table,
    compute_vendor,
    measured_loads,
    table_source,
)
from archgen.perf.workload.case_bands import case_family  # noqa: E402
from archgen.scoring.cases import case_vendor, read_case_file  # noqa: E402
from archgen.scoring.catalog import load_accelerators  # noqa: E402
from archgen.scoring.scores import CaseResult, score, score_cases  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: Every scored case file, in the accuracy page's order.
CASE_FILES = (ROOT / "tests" / "data" / "validation-cases.yaml", *SCORED.values(), *INDEPENDENT.values())
TABLE = ROOT / "archgen" / "perf" / "workload" / "band_table.py"


def capacity_results(cases: dict[str, Case], results: list[CaseResult], accelerators: dict) -> list[CaseResult]:
    """The offline runs' throughput scored as a simulated replica capacity is, as `replica_capacity` (`ONE_LENGTH`).

    Every offline-family tokens/s measurement, its case's stated spread of output lengths (`output_len_cv`) dropped:
    the capacity of a run under load is a simulated closed loop that gives every request one length, so its band
    (and an open loop's reach, `band_families.reached`) is the model's error computed that way (lengths40).
    """
    offline = [r for r in results if case_family(cases[r.id], r.metric) in OFFLINE_FAMILIES
               and QUANTITIES["inference"].get(r.metric) == "tokens_per_second"]
    spread = [cases[i] for i in dict.fromkeys(r.id for r in offline) if cases[i].inference.output_len_cv is not None]
    again = {(r.id, r.metric): r for r in score([at_one_length(c) for c in spread], accelerators)}
    return [replace(again.get((r.id, r.metric), r), metric="replica_capacity") for r in offline]


def source() -> str:
    """The text band_table.py should hold."""
    scored, on, contexts, vendors = [], [], [], []
    accelerators = load_accelerators()
    for path in CASE_FILES:
        cf = read_case_file(path)
        cases = {c.id: c for c in cf.cases}
        accelerator = {c.id: c.system.accelerator for c in cf.cases}
        vendor = {c.id: case_vendor(c, accelerators) for c in cf.cases}
        context = {c.id: context_of(c) for c in cf.cases}
        arrival = {c.id: arrival_of(c.inference.scenario) if c.inference is not None else "" for c in cf.cases}
        measured = measured_loads(cf.cases)
        # an open loop is binned at its measured capacity where its file measures it, else at the model's
        results = [replace(r, load=measured.get(r.id, r.load)) if r.load is not None else r
                   for r in score_cases(cf).results]
        results += capacity_results(cases, results, accelerators)
        family = {(r.id, r.metric): case_family(cases[r.id], r.metric) for r in results}
        scored += [(family[(r.id, r.metric)], r.metric, r.error, r.load, arrival[r.id]) for r in results]
        on += [(family[(r.id, r.metric)], r.metric, accelerator[r.id], r.load, arrival[r.id]) for r in results]
        vendors += [(family[(r.id, r.metric)], r.metric, vendor[r.id], r.error, r.load, arrival[r.id]) for r in results]
        contexts += [(family[(r.id, r.metric)], context[r.id]) for r in results]
    return table_source(compute_table(scored), [str(p.relative_to(ROOT)) for p in CASE_FILES], compute_on(on),
                        compute_context(contexts), compute_vendor(vendors))


if __name__ == "__main__":
    write_or_check(TABLE, source(), "python docs/gen_bands.py")
