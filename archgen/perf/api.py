"""What the commands may call of the performance model: its public surface, one name per use.

`archgen.commands` imports the model only from here (an import-linter `forbidden` contract in pyproject.toml keeps it
from the subpackages), so that the layout of `archgen.perf` can change behind these names. Each name keeps the
meaning of the module it comes from; `evaluate` is a sweep's points evaluated as arrays (`explore.vectorised`), the
path `archgen sweep` takes. A notebook or script calls the model through these names too (docs/python-api.md).
"""

from __future__ import annotations

from archgen.perf.explore.plan import plan_dict, plan_for_workload, plan_text
from archgen.perf.explore.points import PointRow, Result, Stated, SweepProblem, summarise
from archgen.perf.explore.tally import Chunk, Keep, chunk, merge
from archgen.perf.explore.vectorised import evaluate, set_stride
from archgen.perf.explore.vectorised_grid import row_stride
from archgen.perf.explore.vectorised_sets import Cached, Preparation
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.hardware import EXTRA_PARAMETERS, PARAMETERS
from archgen.perf.hw.switch_ports import SwitchPorts
from archgen.perf.train.stacks import explain as explain_switches
from archgen.perf.workload.cluster import Machine, estimate_on_cluster, machine
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.estimate import precision
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.job_on_cluster import JobOnCluster
from archgen.perf.workload.peak_scope import peak_scope

__all__ = ["EXTRA_PARAMETERS", "PARAMETERS", "Cached", "Chunk", "Estimate", "JobOnCluster", "Keep", "Machine",
           "PointRow", "Preparation", "Result", "Stated", "SweepProblem", "SwitchPorts", "chunk", "estimate_on_cluster",
           "evaluate", "explain_switches", "hardware_for", "judge_requirements", "machine", "merge", "peak_scope",
           "plan_dict", "plan_for_workload", "plan_text", "precision", "row_stride", "set_stride", "summarise"]
