"""Calculon's in-process evaluation of one execution, timed in rounds: the child of bench/bench_calculon.py.

`python bench/calculon_one.py MODEL.json SYSTEM.json EXECUTION_JSON` (Calculon importable: its checkout on
PYTHONPATH, as bench_calculon.py puts `CALCULON_ROOT` there) prints `ready <sample rate> <calculon's __init__ path>`,
then, for each line `N` it reads, evaluates the execution N times and prints the CPU seconds they took
(`time.process_time`, this process only). The parent alternates these rounds with its own rounds of archgen's
estimate of the same plan, so that machine noise hits both.

One evaluation is what Calculon's own search does per execution (calculon-ai/calculon caa4b11,
calculon/llm/optimal_execution.py 240-246: a new `Llm`, `compile`, `run`, its stats), as bench/calculon_optimum.py
`rate` does it: the sample rate only (`get_sample_rate`, not the whole `get_stats_json`) and the logger at WARNING.
Calculon's search builds its logger at level NOTSET, which formats every debug line of the model (about 80 % of an
evaluation's time here): this is Calculon's fastest evaluation, the harder comparison for archgen.

pandas: Calculon imports it at start-up for its `llm-all-executions` CSV writer only (calculon/llm/all_executions.py
25; nothing else in the package uses it). Where it is not installed (archgen's environment), an empty module stands
in for it so that the package imports; the evaluation never reaches it, and the `ready` line says so.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
import time
import types


def main() -> None:
    """Load the model, system and execution, answer the parent's rounds until stdin closes."""
    if sys.path and os.path.realpath(sys.path[0]) == os.path.dirname(os.path.realpath(__file__)):
        del sys.path[0]  # bench/: its calculon/ folder of input files would shadow the package
    stub = importlib.util.find_spec("pandas") is None
    if stub:
        sys.modules["pandas"] = types.ModuleType("pandas")
    import calculon  # type: ignore[import-not-found]
    from calculon.llm import Llm  # type: ignore[import-not-found]

    model, system, exe = sys.argv[1:4]
    with open(model, encoding="utf-8") as f:
        app = Llm.Application(json.load(f))
    with open(system, encoding="utf-8") as f:
        syst = calculon.System(json.load(f))
    execution = json.loads(exe)
    log = logging.Logger("calculon-one", logging.WARNING)

    def one() -> float:
        m = Llm(app, log)
        m.compile(syst, Llm.Execution.from_json(execution))
        m.run(syst)
        return m.get_sample_rate()

    print(f"ready {one()!r} {calculon.__file__}{' (pandas stubbed)' if stub else ''}", flush=True)
    for line in sys.stdin:
        n = int(line)
        start = time.process_time()
        for _ in range(n):
            one()
        print(time.process_time() - start, flush=True)


if __name__ == "__main__":
    main()
