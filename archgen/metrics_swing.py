"""The metric registry's load-swing metrics of a training job, declared as `archgen.metrics.REGISTRY` holds them.

Split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13). Synchronous training
moves every GPU of a job between a compute-heavy and a communication-heavy phase each step ("Power Stabilization for
AI Training Datacenters", Choukse et al., arXiv:2508.14318, abstract), so the site's draw swings once a step: these
are the swing's frequency and the low-draw phase's share, as the performance model times the step
(`perf.workload.swing_note.swing_metrics`), and its depth, where the hall states a power-smoothing floor or
every part its idle draw or its own floor (`analyse.job_swing`). docs/facility.md, "Load swing".
"""

from __future__ import annotations

from archgen.metric import Metric

_T = ("training",)
_SW = "perf/workload/swing_note.py"
#: Why a requirement met on the exposed communication share is at risk (`Metric.unmeasured`): it is the overlap
#: model's result, which issue 20 doubts (overlap credited too generously), and no published step profile is scored.
EXPOSED_UNMEASURED = ("the share is what the overlap model leaves exposed, and no published step profile is scored "
                      "(the step time's band does not carry over: a step time can be right with its split wrong)")

SWING: tuple[Metric, ...] = (
    Metric("workload", "swing_frequency", "Hz", "Hz", 3, "Load swing frequency", "1 / step time: the job's GPUs "
           "move together between compute and communication phases once a step (arXiv:2508.14318), so its draw "
           "swings at this fundamental (harmonics above it: the phases are not a sine); its band is the step "
           "time's, turned, so a target its band crosses is at risk (REQ004).", _SW, _T, sweep=False),
    Metric("workload", "exposed_communication_share", "", "percent", 1, "Exposed communication share", "The step "
           "breakdown's exposed communication (tp, cp, ep, pp and dp: what overlap leaves on the critical path) over "
           "the step time: the share of each step the GPUs wait on the network, the low-draw phase of the swing "
           "(arXiv:2508.14318); dp's falls once a step, at its end, the others within each layer and micro-batch, "
           "and the pipeline bubble is left out (its stages wait in turn, not together).", _SW, _T, sweep=False,
           unmeasured=EXPOSED_UNMEASURED),
    Metric("workload", "job_power_swing", "W", "kW", 1, "Job power swing", "The most the job's draw can fall "
           "from a compute to a communication phase, an upper bound (a `<=` target it meets is met): the smaller of "
           "its share (accelerators used over the cluster's) of the maximum IT power x (1 - the hall's "
           "`feeds.power_smoothing.floor`) and of every system's and switch's (maximum - least) draw with the "
           "shelves' loss, its least the higher of `power.idle` and `power.smoothing.floor` x its maximum (a "
           "running part draws at least that; optics taken not to swing) and, with ramps stated, of step / (1 / "
           "ramp_up + 1 / ramp_down) (its fall and climb back fit in a step), that at most the job's share of the "
           "maximum IT power (a draw falls no lower than nothing); not provided where none is stated "
           "(no catalog part states any).",
           "analyse/job_swing.py", _T, sweep=False, minimise=True),
    Metric("workload", "checkpoint_power_dip", "W", "kW", 1, "Checkpoint power dip", "The most the job's draw "
           "falls while a blocking checkpoint holds its GPUs (`checkpoint_blocking_time`, once every "
           "`checkpoint_interval`), an upper bound: the swing's depth (the hall's floor or the parts' least draw, as "
           "`job_power_swing`) or, where ramps are stated, ramp_down x the blocking time (at most the job's share "
           "of the maximum IT power), the smaller; its fall and "
           "return each a step the hall's `feeds.load_step_limit` must accept; not provided where neither is stated "
           "or the checkpoints block nothing.", "analyse/swing_phases.py", _T, sweep=False, minimise=True),
)
