"""The metric registry's reliability rows of a training job, declared as `archgen.metrics.REGISTRY` holds them.

In its order; split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13), and
these are its rows for a training workload's interruptions, checkpoints, restarts, goodput, time to train and
accelerator-hours (`analyse.goodput`; docs/reliability.md). Their ranges' ends and costs stay in `archgen.metrics`.
"""

from __future__ import annotations

from archgen.metric import Metric

_GP = "analyse/goodput.py"
#: A run's time to train and accelerator-hours are the estimate's, made from its tokens per second (and goodput): shown
#: as estimates are, at `display.ESTIMATE_FIGURES` significant figures (newuser89: "4,730,031 h" for a figure whose band
#: spans 4.59M to 38.8M h).
_RF = "perf/workload/run_figures.py"
_T = ("training",)
JOB_GOODPUT: tuple[Metric, ...] = (
    Metric("workload", "interruptions_per_day", "1/s", "1/day", 2, "Interruptions per day", "Interruptions of the "
           "job: its share of the interrupting parts' failure rates plus the site's events.", _GP, _T, sweep=False,
           counts="interruptions", minimise=True),
    Metric("workload", "mtti", "s", "h", 1, "MTTI", "Mean time to interruption of the job, counting the "
           "interruptions the rate set's source counts (the cluster document says which); not provided where "
           "nothing that stops it fails at the rates (no interruption, so no mean time to one).", _GP, _T,
           maximise=True),
    Metric("workload", "checkpoint_size", "B", "TB", 2, "Checkpoint size", "Parameters × bytes per parameter.", _GP,
           _T, sweep=False),
    Metric("workload", "checkpoint_write_time", "s", "s", 1, "Checkpoint write time", "Checkpoint size over the "
           "write bandwidth (storage, bounded by the job's ports on the storage fabric).", _GP, _T,
           minimise=True),
    Metric("workload", "checkpoint_restore_time", "s", "s", 1, "Checkpoint restore time", "What a restore reads over "
           "the read bandwidth: the checkpoint once, or `checkpoint_restore_read` where the job's load reads per "
           "replica (`checkpoint.parallel_load` false, or its stack's; a sweep reads once); where neither settles "
           "it, the replicas' read is its other end (met at one end only: not provided).", _GP, _T, minimise=True),
    Metric("workload", "checkpoint_restore_read", "B", "TB", 2, "Checkpoint restore read", "What a restore reads "
           "from storage under Megatron-core's default load (no fully parallel load): the weights once per "
           "data-parallel x context-parallel replica, the distributed optimizer's state once.",
           "analyse/storage_demand.py", _T, sweep=False),
    Metric("workload", "checkpoint_storage_needed", "B", "TB", 2, "Checkpoint storage needed", "The checkpoints "
           "kept at once (`checkpoint.keep`, the one being written counted) × the checkpoint size: what they take on "
           "the storage; not provided without `checkpoint.keep`.", "analyse/storage_demand.py", _T, sweep=False),
    Metric("workload", "dataset_read_bandwidth", "B/s", "GB/s", 1, "Dataset read bandwidth", "Tokens per second × "
           "`dataset.read_per_token` × the ranks reading each sample (Megatron's first and last pipeline stages, "
           "each context-parallel rank): what the data loaders read from storage while the job trains (REL013); not "
           "provided without `dataset:`.", "analyse/storage_demand.py", _T, sweep=False),
    Metric("workload", "checkpoint_interval", "s", "min", 1, "Checkpoint interval", "Daly's optimum interval, or "
           "the workload's own; not provided where nothing that stops the job fails at the rates and it states none "
           "(Daly's optimum has no bound).", _GP, _T, sweep=False),
    Metric("workload", "restart_time", "s", "min", 1, "Restart time", "Restart, restore and the mean wait for a "
           "repair per interruption.", _GP, _T, sweep=False, minimise=True),
    Metric("workload", "goodput", "", "", 3, "Goodput", "Effective training time ratio from Daly's expected wall "
           "time (interruptions, checkpoints, restarts, spares), the cluster's idle nodes counted as hot spares.",
           _GP, _T, True),
    Metric("workload", "goodput_tokens_per_second", "1/s", "1/s", 0, "Goodput tokens/s", "Tokens per second × "
           "goodput.", _GP, _T, True, counts="tokens"),
    Metric("workload", "time_to_train", "s", "day", 1, "Time to train", "The checkpoint's token budget over tokens "
           "per second.", _RF, _T, minimise=True),
    *(Metric("workload", f"goodput_time_to_train{e}", "s", "day", 1, "Goodput time to train" + f" ({e[1:]})" * bool(e),
             "Time to train over goodput" + (f"_{o}: the {e[1:]} end over the rate sets (infinite where that is 0)."
                                             if e else "."), _RF, _T, minimise=True)
      for e, o in (("", ""), ("_low", "high"), ("_high", "low"))),
    *(Metric("workload", f"{g}accelerator_hours{e}", "s", "h", 0,
             f"{'Goodput a' if g else 'A'}ccelerator-hours" + f" ({e[1:]})" * bool(e),
             f"{'Goodput time' if g else 'Time'} to train{f' ({e[1:]})' * bool(e)} × the job's accelerators: the "
             "run's GPU-hours as published runs report them (hot spares not counted).", _RF, _T, minimise=True)
      for g, e in (("", ""), ("goodput_", ""), ("goodput_", "_low"), ("goodput_", "_high"))),
)
