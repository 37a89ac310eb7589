"""MLPerf Inference's Server-scenario latency constraints for its LLM benchmarks, as workload requirements.

MLPerf's loadgen judges a Server run (Poisson arrivals, `inference.arrival_rate` here) valid only if the 99th
percentile of each query's TTFT and of its TPOT stay within the benchmark's limits
(`*.Server.target_latency_percentile = 99`; `<benchmark>.Server.ttft_latency` and `.tpot_latency`, milliseconds,
in mlcommons/inference `loadgen/mlperf.conf` at commit b66003e10e2db4b8c36a448b0545ec90fcc6e9e9, 2026-08-20; the
lines are copied in tests/perf/data/mlperf-conf-server-latency.conf). The `-interactive` benchmarks are the same
models in the Interactive scenario, the Server scenario with tighter limits.

`server_requirements(benchmark)` gives the two as `Requirement`s on the simulated run's `ttft_p99` and `tpot_p99`
(perf.serve.scheduler), ready for a workload's `requirements` (docs/perf-model.md shows the YAML).
"""

from __future__ import annotations

from archgen.errors import AnalyseError, did_you_mean
from archgen.model.requirements import Requirement

COMMIT = "b66003e10e2db4b8c36a448b0545ec90fcc6e9e9"
#: Benchmark: (TTFT p99 limit, TPOT p99 limit), milliseconds (loadgen/mlperf.conf at `COMMIT`).
SERVER_LATENCY_MS: dict[str, tuple[int, int]] = {
    "llama2-70b": (2000, 200),
    "llama2-70b-interactive": (450, 40),
    "mixtral-8x7b": (2000, 200),
    "llama3_1-405b": (6000, 175),
    "llama3_1-405b-interactive": (4500, 80),
    "llama3_1-8b": (2000, 100),
    "llama3_1-8b-interactive": (500, 30),
    "deepseek-r1": (2000, 80),
    "deepseek-r1-interactive": (1500, 15),
    "gpt-oss-120b": (3000, 80),
    "gpt-oss-120b-interactive": (2000, 15),
}


def server_requirements(benchmark: str) -> list[Requirement]:
    """The TTFT and TPOT p99 limits of an MLPerf Inference LLM benchmark, as two sourced SHALL requirements.

    Raises:
        AnalyseError: an unknown benchmark, with the nearest names.
    """
    if benchmark not in SERVER_LATENCY_MS:
        near = did_you_mean(benchmark, SERVER_LATENCY_MS, lead="; ")
        raise AnalyseError(f"no MLPerf Inference LLM benchmark '{benchmark}'{near}")
    ttft, tpot = SERVER_LATENCY_MS[benchmark]
    source = f"mlcommons/inference loadgen/mlperf.conf at {COMMIT[:12]}: {benchmark}.Server.%s_latency = %d (ms, p99)"
    tag = benchmark.upper().replace("_", "-").replace(".", "-")
    return [Requirement.model_validate({
        "id": f"REQ-MLPERF-{tag}-{metric.upper()}", "statement": f"MLPerf Inference {benchmark}: 99th-percentile "
        f"{metric.upper()} within {limit} ms", "metric": f"{metric}_p99", "target": f"<= {limit} ms",
        "basis": "sourced", "source": source % (metric, limit)}) for metric, limit in (("ttft", ttft), ("tpot", tpot))]
