"""What a published run's error band is kept under: its family, the quantity a metric states, its load bin, its arrival.

A scored measurement belongs to one family of runs (`family`: dense or MoE training, offline serving or serving under
load, each for a MoE model too, collectives); within it each banded metric states one quantity (`QUANTITIES`); a
serving-under-load latency is kept per load bin (`load_bin`) and arrival (`arrival_of`) as well (`table_key`). The
bands over these keys, and why they are kept so, are `perf.workload.bands`' (split from it for its size).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from archgen.model.inference import Inference
from archgen.perf.workload.band_table import CONTEXT

#: The families of published runs, with how each is shown.
FAMILIES: dict[str, str] = {"dense-training": "dense training", "moe-training": "MoE training",
                            "offline-serving": "offline serving", "serving-under-load": "serving under load",
                            "moe-offline-serving": "MoE offline serving",
                            "moe-serving-under-load": "MoE serving under load", "collectives": "collectives"}
#: Per job kind, the quantity each banded metric states (metrics not listed carry no band: memory, concurrency, the
#: reliability figures and a job's cost per hour, which no step time enters). A training run's time, its whole cost,
#: its cost and energy per token and its goodput tokens/s are made from its tokens/s (over it, or times goodput), so
#: they take the step time's band, at each end of their own range (goodput's, spares') where they have one
#: (`run_figures.run_bands`, `run_figures.serving_cost_bands`, `derived.band_ends`); a sibling left unbanded would read
#: met where the figure it is made from is at risk (newuser41: cost per million tokens met, job cost at risk).
#: The ends of those ranges (`goodput_time_to_train_low`, `job_cost_high`, ...) are each its figure at one end of
#: goodput's or the spares' range: the same product or quotient of the tokens/s by stated inputs (the token budget,
#: goodput at that end, the prices and accelerators charged), so the model's error on the tokens/s is theirs exactly,
#: and a requirement on an end takes the band as one on its figure does (bandcarry40; before, met read at risk with
#: no band). A training job's dataset read bandwidth is its tokens/s times stated inputs (`dataset.read_per_token`,
#: the ranks reading each sample): the tokens/s's band (`band_span.PER_TIME` reads it as a rate).
RATE_ENDS = tuple(f"{name}_{end}" for name in ("goodput_time_to_train", "goodput_accelerator_hours",
                                               "goodput_tokens_per_second", "cost_per_token",
                                               "cost_per_million_tokens", "job_cost") for end in ("low", "high"))
MADE_FROM_RATE = ("time_to_train", "goodput_time_to_train", "job_cost", "cost_per_token", "cost_per_million_tokens",
                  "goodput_tokens_per_second", "energy_per_token", "facility_energy_per_million_tokens",
                  "accelerator_hours", "goodput_accelerator_hours", "job_it_energy", "job_energy", "job_carbon",
                  "job_market_carbon", "job_water", "dataset_read_bandwidth", *RATE_ENDS)
QUANTITIES: dict[str, dict[str, str]] = {
    # `tflops_per_gpu`: the validation cases' name for model_flops_per_gpu (model.cases.METRIC_UNITS)
    # a training job's swing frequency is 1 / step time: the step time's band, turned (`band_span.PER_TIME`)
    "training": {m: "step_time" for m in ("step_time", "tokens_per_second", "tokens_per_second_per_gpu",
                                          "model_flops_per_gpu", "tflops_per_gpu", "mfu", "swing_frequency",
                                          *MADE_FROM_RATE)},
    "inference": {"tokens_per_second": "tokens_per_second", "tokens_per_second_per_gpu": "tokens_per_second",
                  "tokens_per_second_per_rack": "tokens_per_second", "ttft": "ttft", "tpot": "tpot",
                  # a user's decode rate is 1 / TPOT: TPOT's band, turned (`bands.band`)
                  "tokens_per_second_per_user": "tpot",
                  # a serving job's cost per token is its cost per hour over its tokens/s: the throughput's band,
                  # turned (added where the cost is, `perf.workload.run_figures.serving_cost_bands`)
                  "cost_per_token": "tokens_per_second", "cost_per_million_tokens": "tokens_per_second",
                  "energy_per_token": "tokens_per_second", "facility_energy_per_million_tokens": "tokens_per_second",
                  # a replica's capacity is its full closed loop's tokens/s over output_len, and the replicas that
                  # keep up a rate that rate over it (turned): the offline family's (`quantity_family`) runs, each
                  # scored as the capacity is simulated, every request of one length (`ONE_LENGTH`)
                  "replica_capacity": "replica_capacity", "replicas_to_keep_up": "replica_capacity",
                  **{f"{m}_{p}": f"{m}_{p}" for m in ("ttft", "tpot") for p in ("p50", "p99")},
                  # the replica read as a disaggregated deployment's pools: quantities no scored run measured
                  "prefill_tokens_per_second_per_gpu": "prefill_pool", "decode_tokens_per_second_per_gpu":
                  "decode_pool", "prefill_decode_ratio": "pool_ratio", "kv_transfer_time": "kv_transfer",
                  "kv_transfer_time_across_domains": "kv_transfer",
                  # an offline run's decode step alone, the least gap between a request's tokens: no run times it
                  "decode_step_time": "decode_step"},
    "collective": {"time": "time", "busbw": "time"},
}
#: A quantity whose estimate's span over the part's stated efficiency ranges is another's (`band_span.span_factors`):
#: a replica's capacity moves with the hardware as its throughput does, so either one's span stands for both.
SPANS_AS = {"replica_capacity": "tokens_per_second"}
#: Quantities no published run of any family is scored on, with why (`bands.Band` says it where their band is empty):
#: a disaggregated deployment's pools (`perf.serve.colocation.pool_metrics`, nu79fix). The aggregated families'
#: errors are not theirs: a decode pool runs no prompts, and the scored MoE runs' conditions are not a decode pool's
#: (docs/perf-model.md, "Disaggregated reading").
_POOLS = ("no published run of a disaggregated pool is scored: every scored serving run is aggregated (prefill and "
          "decode on one replica), and SGLang's published DeepSeek-R1 pool rates on GB200 NVL72 (lmsys.org/blog/"
          "2025-09-25-gb200-part-2) state no decode batch, so they are held out; the aggregated tokens/s band does "
          "not carry over (docs/perf-model.md, Disaggregated reading)")
UNSCORED: dict[str, str] = {"decode_step": "no published run's decode step alone is scored: a benchmark times a "
                                           "request's gaps (TPOT), which in an offline run hold the other requests' "
                                           "prompts as well, and its tokens/s, made of both",
                            "prefill_pool": _POOLS, "decode_pool": _POOLS, "pool_ratio": _POOLS,
                            "kv_transfer": "no published KV transfer time is scored, and the figure is a lower bound "
                                           "(bytes / link bandwidth; NIXL's or Mooncake's efficiency over NVLink or "
                                           "RDMA unsourced)"}
#: The job kind of each family.
KINDS = {"dense-training": "training", "moe-training": "training", "offline-serving": "inference",
         "serving-under-load": "inference", "moe-offline-serving": "inference", "moe-serving-under-load": "inference",
         "collectives": "collective"}


class ContextTokens(NamedTuple):
    """What a job's attention reads per token (`band_lookup.context_of`), each measure compared on its own (`past`).

    A prompt token's attention reads the prompt before it, half the prompt on average; an output token's the prompt
    and the output before it, the prompt + half the output on average (`decode`); a training token's, half its
    sequence (`prompt`, decode 0). The family's longest of each (`band_table.CONTEXT`) may be two runs'.
    """

    prompt: int  # a serving request's prompt tokens, a training sequence's
    decode: int  # a serving request's decode context, prompt + output // 2 tokens (0: training)


#: How far past its family's longest scored context (`band_table.CONTEXT`) a job keeps the family's band, said to be
#: measured on shorter runs (`context_words`), a fraction of that context, in each measure of it (`ContextTokens`);
#: past it the job has no band (unmeasured at this context). A stated choice, not fitted: no error was consulted
#: (servetidy42; before, newuser104's Llama 3.1 405B rows at 9,429 + 656 tokens, 1 past 9,429 + 655, got no band).
#: What it bounds: attention is what grows with the context, per token, where every other cost per token (the weights'
#: GEMMs, and their reads at a given batch) does not. A prompt 10 % longer has 21 % more prompt attention (it grows
#: with the prompt's square) but 10 % more of the rest too, so 10 % more per token; an output token reads 10 % more
#: KV cache at a decode context 10 % longer. So where the job's prompt (a training sequence) and decode context are
#: each at most 1 + m times the family's longest, each phase's ratio r of attention to the rest per token is at most
#: 1 + m times what it is at that longest context, and its share s = r / (1 + r) at most s (1 + m) / (1 + m s): at
#: most (sqrt(1 + m) - 1)^2 / m = 2.4 points more (m = 0.10; largest at s = (sqrt(1 + m) - 1) / m = 0.49). The bound
#: needs both measures, each against its own longest: an input + output margin let DeepSeek-R1 at 4,000 + 900
#: tokens keep the MoE offline band (longest 804 + 3,736), its prompt 5x any scored one (review63), and one per
#: prompt and per output does not hold the decode: serving under load's longest prompt is 9,429 (+ 655) and longest
#: output 2,000 (500 +), so 10,371 + 2,200 is within both while its decode context, 11,471, is 18 % past 9,756.
#: Before (servetidy42, review63), the words said "21 % more per prompt token" and 4.8 points, taking that 21 % as
#: the ratio's growth.
CONTEXT_MARGIN = 0.10
#: How a band kept past its family's longest context starts its reason (`context_words`, `Band.caveat`).
SHORTER = "measured on shorter runs"


def past(family_: str, context: ContextTokens | None) -> tuple[str, int, int] | None:
    """The measure of `context` furthest past its family's longest (`CONTEXT`): (measure, the job's, longest).

    The measure is `prompt`, `sequence` (a training job's prompt) or `decode`; None where none is past.
    """
    longest = CONTEXT.get(family_)
    if context is None or longest is None:
        return None
    names = ("sequence" if KINDS[family_] == "training" else "prompt", "decode")
    over = [(mine / most, name, mine, most) for name, mine, most in zip(names, context, longest, strict=True)
            if most and mine > most]
    return max(over)[1:] if over else None


#: Each measure of a context (`past`), as its words name the job's and the longest.
_MEASURES = {"prompt": ("{:,}-token prompt", "prompt"), "sequence": ("{:,}-token sequence", "sequence"),
             "decode": ("decode context of {:,} tokens (its prompt + half its output, what an output token's "
                        "attention reads on average)", "decode context")}


def context_words(family_words: str, measure: str, context: int, longest: int) -> str:
    """Why a job past its family's longest context (`past`, `CONTEXT_MARGIN`) keeps the band, or has none, in words."""
    mine, noun = _MEASURES[measure]
    said = f"the job's {mine.format(context)} is past the {longest:,} of the longest {noun} of a published " \
           f"{family_words} measurement scored"
    furthest = longest * (1 + CONTEXT_MARGIN)
    margin = f"the {CONTEXT_MARGIN:.0%} (to {math.floor(furthest):,} tokens) a band is kept past it"
    if context > furthest:
        return (f"no band: unmeasured at this context; {said}, beyond {margin}, and no shorter context's band is "
                "borrowed (not provided)")
    return (f"{SHORTER}: {said}, within {margin}, where attention is a larger share of the cost than "
            "in any of them (docs/perf-model.md, Bands by context)")


#: The families whose latency bands are kept per load bin, and the quantities binned (`load_bin`).
LOAD_FAMILIES = ("serving-under-load", "moe-serving-under-load")
LOAD_QUANTITIES = ("ttft", "tpot", *(f"{m}_{p}" for m in ("ttft", "tpot") for p in ("p50", "p99")))
#: The load bins' edges, as fractions of the replica's capacity: stated choices, not fitted. A queue magnifies a
#: relative error in its service time by about 1 / (1 - load) in its latency (M/M/1: latency = service time /
#: (1 - load), Kleinrock, Queueing Systems vol. 1, 1975, eq. 3.26), so the edges are where that magnification is 2
#: (load 0.5) and about 6.7 (load 0.85, the edge the lead's issue 20 named): errors seen in one bin are not those of
#: another.
LIGHT, NEAR_CAPACITY = 0.5, 0.85
#: How each load bin is shown.
LOAD_BINS = {"light": f"at light load (load < {LIGHT:g})",
             "moderate": f"at moderate load ({LIGHT:g} <= load < {NEAR_CAPACITY:g})",
             "near-capacity": f"near capacity (load >= {NEAR_CAPACITY:g})"}


#: The arrival of a serving run under load, by how it is shown: an open loop at a Poisson rate, a closed loop.
ARRIVALS = {"poisson": "under Poisson arrivals at a rate", "closed": "at a fixed concurrency (a closed loop)"}


def arrival_of(scenario: str) -> str:
    """The arrival (`ARRIVALS`) of a simulated serving run of `scenario`: `concurrency` is closed, `server` Poisson."""
    return "closed" if scenario == "concurrency" else "poisson"


def load_bin(load: float) -> str:
    """The load bin of a run at `load`, its requests per second over its replica's capacity (`LOAD_BINS`)."""
    return "near-capacity" if load >= NEAR_CAPACITY else "moderate" if load >= LIGHT else "light"


#: The load bins in the order of their loads.
BIN_ORDER = tuple(LOAD_BINS)


def bins_between(first: str, last: str) -> str:
    """The name of the load bins from `first` to `last` (`bin_words`): one bin's own, or `moderate..near-capacity`."""
    return first if first == last else f"{first}..{last}"


def one_bin(key: str) -> bool:
    """Whether a table key (`table_key`) or bin name holds one load bin, not a run of bins (`bins_between`)."""
    return ".." not in key


def bin_words(name: str) -> str:
    """A load bin, or bins from one to another (`bins_between`), in words."""
    first, _, last = name.partition("..")
    if not last:
        return LOAD_BINS[first]
    low = {"moderate": LIGHT, "near-capacity": NEAR_CAPACITY}.get(first)
    high = {"light": LIGHT, "moderate": NEAR_CAPACITY}.get(last)
    edges = ("any load" if low is None and high is None else f"load >= {low:g}" if high is None else
             f"load < {high:g}" if low is None else f"{low:g} <= load < {high:g}")
    return f"at {first.replace('-', ' ')} to {last.replace('-', ' ')} load ({edges})"


def reached(family_: str, quantity: str, load: float | None, arrival: str, capacity_high: float) -> float | None:
    """The highest load an open loop's run may be at, over its replica's capacity band (None: not binned).

    An open loop's load is its arrival rate over its replica's capacity (`perf.serve.run.ServingRun.load`), so a
    capacity the model over-predicts by e puts it at load x (1 + e): at the capacity band's low end, the offline
    family's highest error on the capacity, its runs scored at one length as the capacity is (`ONE_LENGTH`),
    `capacity_high` (nu68fix: MLPerf v5.1's Llama 3.1 8B Server row, load 0.70 by the model, +26.9 % on the same
    system's Offline throughput, ran at 999.47 / 1,060.23 = 0.94 of its measured capacity). A closed loop's
    concurrency, not a rate, sets its load: its own.
    """
    if family_ not in LOAD_FAMILIES or quantity not in LOAD_QUANTITIES or load is None:
        return None
    return load * (1 + max(capacity_high, 0.0)) if arrival == "poisson" else load


def table_key(family_: str, quantity: str, load: float | None, arrival: str = "poisson",
              reach: float | None = None) -> str:
    """The table key of `quantity` in `family_`; a binned one's has its load bin and arrival: `ttft@light@closed`.

    With `reach` (`reached`), the bins from `load`'s to `reach`'s: `ttft_p99@moderate..near-capacity@poisson`.
    """
    if family_ in LOAD_FAMILIES and quantity in LOAD_QUANTITIES and load is not None:
        last = load_bin(max(load, reach if reach is not None else load))
        return f"{quantity}@{bins_between(load_bin(load), last)}@{arrival}"
    return quantity


def single_keys(key: str) -> list[str]:
    """The one-bin table keys of a run of bins' key (`ttft@light..moderate@poisson`: its light and moderate keys)."""
    if one_bin(key):
        return [key]
    quantity, bins, arrival = key.split("@")
    first, last = bins.split("..")
    return [f"{quantity}@{b}@{arrival}" for b in BIN_ORDER[BIN_ORDER.index(first):BIN_ORDER.index(last) + 1]]


def table_keys(family_: str, quantity: str, load: float | None, arrival: str = "poisson") -> list[str]:
    """Every table key a measurement at `load` counts under: its bin's (`table_key`) and each run of bins holding it."""
    key = table_key(family_, quantity, load, arrival)
    if "@" not in key:
        return [key]
    at = BIN_ORDER.index(key.split("@")[1])
    return [f"{quantity}@{bins_between(BIN_ORDER[i], BIN_ORDER[j])}@{arrival}"
            for i in range(at + 1) for j in range(at, len(BIN_ORDER))]


def family(kind: str, moe: bool = False, scenario: str = "offline") -> str:
    """The family of a job: its kind, whether its model has experts, and a serving job's scenario.

    A MoE model's serving is a family of its own, as its training is: routing, expert GEMMs of a few tokens each and
    the expert layout are terms no dense run exercises (MoE training's band is -87.8 % to +3.0 % where dense
    training's is -38.1 % to +16.6 %, docs/accuracy.md), so a dense model's serving errors do not say what a MoE
    model's is.
    """
    if kind == "training":
        return "moe-training" if moe else "dense-training"
    if kind == "inference":
        return ("moe-" if moe else "") + ("offline-serving" if scenario == "offline" else "serving-under-load")
    return "collectives"


def at_engine_cap(inference: Inference | None) -> bool:
    """Whether a serving job is a closed loop that keeps at least its engine's stated cap in flight (nu60fix).

    The cap is what the job states of its engine, as `serving_limits.engine_cap` reads it: `max_batch_size`
    sequences, or `max_num_tokens` decode tokens where fewer, per scheduling rank (tp ranks under attention DP, else
    one). A closed loop at or above it runs its replica at that cap the whole run, as an offline run does (every
    request queued at once, the engine full): `trtllm-bench throughput` at maximum load is scored offline
    (tests/perf/data/trtllm-perf-overview.yaml), and TensorRT-LLM's DeepSeek-R1 max-throughput runs set concurrency
    to max_batch_size x 8 attention-DP ranks (7,168 = 896 x 8; tests/perf/data/heldout-trtllm-r1.yaml). Read from
    the job as stated, so that a case's family is known before it is scored; a closed loop past the KV cache's
    capacity with no stated cap is not recognised (docs/accuracy.md, Error bands).
    """
    if inference is None or inference.scenario != "concurrency" or inference.max_batch_size is None:
        return False
    if not isinstance(inference.batch, int) or (inference.attention_dp and inference.tp is None):
        return False
    ranks = inference.tp if inference.attention_dp and inference.tp else 1
    return inference.batch >= min(inference.max_batch_size, inference.max_num_tokens) * ranks


#: A simulated run's figures of its replica full (`perf.serve.run.capacity_metrics`): a closed loop holding as many
#: requests as the replica admits, which is what an offline run measures, so they carry the offline family's band.
CAPACITY_METRICS = ("replica_capacity", "replicas_to_keep_up")
#: How the offline family's runs are scored for the capacity's band (quantity `replica_capacity`; docs/gen_bands.py)
#: and an open loop's reach (`reached`): as the capacity is simulated, every request `input_len` + `output_len`
#: tokens (`perf.serve.scheduler` gives a simulated run no spread of lengths). Their own tokens/s band is scored with
#: the outputs' spread each row states (`output_len_cv`), which the simulated capacity cannot take: lengths40, the
#: DeepSeek-R1 Offline rows read +102.2 % and +115.2 % with MLPerf's dataset spread (CV 1.25) but +145.2 % and
#: +159.3 % at one length, so a band from the first applied to a capacity computed the second way put newuser33's
#: B200 Server run's reach at 0.49 (light load) where the same rows, scored as its capacity is, put it at 0.59.
ONE_LENGTH = "scored as a simulated run is, every request of one length (a run's stated spread of outputs dropped)"
#: The families of offline serving runs, whose runs are also scored at one length (`ONE_LENGTH`).
OFFLINE_FAMILIES = ("offline-serving", "moe-offline-serving")


def row_quantity(family_: str, quantity: str, simulated: bool) -> str:
    """The quantity whose row of `family_` bands `quantity` (its own, but for a simulated run's throughput).

    A simulated run's throughput in an offline family (a closed loop at its engine's cap, `quantity_family`) takes the
    runs scored at one length, as it is simulated (`ONE_LENGTH`), the row a replica capacity's band is.
    """
    return "replica_capacity" if simulated and quantity == "tokens_per_second" and family_ in OFFLINE_FAMILIES \
        else quantity


def quantity_family(family_: str, metric: str, capacity: bool) -> str:
    """The family `metric` of a job in `family_` takes its band from: a capacity run's throughput takes the offline one.

    A closed loop at its engine's cap (`at_engine_cap`) serves at the replica's capacity, which is what an offline
    run measures, so its tokens/s and what is made from it (`QUANTITIES`: cost and energy per token) carry the
    offline family's band; its latencies stay in its own family's load bins (a queue's, which no offline run has).
    So do `CAPACITY_METRICS` in any run under load: they are the replica's figures when full.
    """
    if (capacity or metric in CAPACITY_METRICS) and family_ in LOAD_FAMILIES and \
            QUANTITIES["inference"].get(metric) in ("tokens_per_second", "replica_capacity"):
        return family_.replace("serving-under-load", "offline-serving")
    return family_


def run_scenario(scenario: str, arrival_rate: object | None) -> str:
    """The scenario a serving job's figures come from, which picks its band's family (`family`).

    `server` without an `arrival_rate` simulates nothing and reports the offline closed form (docs/perf-model.md,
    Scenarios), so its figures carry the offline family's band, not that of the simulated runs: Llama 3.1 70B FP8 at
    TP 8 on DGX B200, 2,048 + 128 tokens, read TPOT 83.01 ms "band 74.97 to 380.8 ms ... on 20 serving under load
    measurements", where the offline family has no TPOT measurement at all (newuser19).
    """
    return "offline" if scenario == "server" and arrival_rate is None else scenario
