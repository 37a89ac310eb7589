"""What the commands may call of the performance model: its public surface, one name per use.

`archgen.commands` imports the model only from here (an import-linter `forbidden` contract in pyproject.toml keeps it
from the subpackages), so that the layout of `archgen.perf` can change behind these names. Each name keeps the
meaning of the module it comes from; `evaluate` is a sweep's points evaluated as arrays (`explore.vectorised`), the
path `archgen sweep` takes. A notebook or script calls the model through these names too (docs/python-api.md).

The sweep's names (`SWEEP`: its points, chunks and batched evaluation) are imported on first use (PEP 562), so that a
command that evaluates no sweep (`archgen estimate`) does not import the batched path: some 9 ms of its CPU (issue 25).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from archgen.perf.explore.plan import plan_for_workload
from archgen.perf.explore.plan_result import plan_dict, plan_text
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.hardware import EXTRA_PARAMETERS, PARAMETERS
from archgen.perf.hw.switch_ports import SwitchPorts
from archgen.perf.train.stacks import explain as explain_switches
from archgen.perf.workload.cluster import estimate_hardware, estimate_on_cluster, machine
from archgen.perf.workload.defaults_taken import serving_taken
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.estimate import precision
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.job_on_cluster import JobOnCluster
from archgen.perf.workload.machine import Machine
from archgen.perf.workload.peak_scope import peak_scope

if TYPE_CHECKING:
    from archgen.perf.explore.points import Result, summarise
    from archgen.perf.explore.problem import PointRow, Stated, SweepProblem
    from archgen.perf.explore.tally import Chunk, Keep, chunk, merge
    from archgen.perf.explore.vectorised import evaluate, set_size, set_stride
    from archgen.perf.explore.vectorised_grid import row_stride
    from archgen.perf.explore.vectorised_sets import Cached, Preparation

#: The sweep's names, each by the module of `archgen.perf.explore` that defines it: imported on first use.
SWEEP = {**dict.fromkeys(("Result", "summarise"), "points"),
         **dict.fromkeys(("PointRow", "Stated", "SweepProblem"), "problem"),
         **dict.fromkeys(("Chunk", "Keep", "chunk", "merge"), "tally"),
         **dict.fromkeys(("evaluate", "set_size", "set_stride"), "vectorised"), "row_stride": "vectorised_grid",
         **dict.fromkeys(("Cached", "Preparation"), "vectorised_sets")}


def __getattr__(name: str) -> object:
    """A name of `SWEEP`, its module imported (PEP 562) and the name kept here."""
    if name not in SWEEP:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"archgen.perf.explore.{SWEEP[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["EXTRA_PARAMETERS", "PARAMETERS", "Cached", "Chunk", "Estimate", "JobOnCluster", "Keep", "Machine",
           "PointRow", "Preparation", "Result", "Stated", "SweepProblem", "SwitchPorts", "chunk", "estimate_hardware",
           "estimate_on_cluster", "evaluate", "explain_switches", "hardware_for", "judge_requirements", "machine",
           "merge", "peak_scope", "plan_dict", "plan_for_workload", "plan_text", "precision", "row_stride",
           "serving_taken", "set_size", "set_stride", "summarise"]
