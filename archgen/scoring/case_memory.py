"""Whether a validation case fits in the memory the model counts, and what caps a simulated serving case's batch.

Apart from `scoring.cases` for its size. A case is predicted as stated whether or not it fits (`cases.predict`);
`estimate --cases` lists why it does not (`unfit_reason`) and what admits fewer requests than it states
(`admission_cap`), each from the case's scored `Prediction` (its footprint and its simulated run, made once), and
docs/accuracy.md's `fits` column reads `fits`.
"""

from __future__ import annotations

from archgen.model.cases import Case
from archgen.model.inference import Inference
from archgen.perf.serve.run import ServingRun
from archgen.perf.workload.serving_limits import serving_misfit
from archgen.scoring.prediction import Footprint, Prediction


def fits(case: Case, held: Footprint | None) -> bool | None:
    """Whether a case's stated layout fits by the model (`unfit_reason`; None for a collective, which holds none).

    `held` is the case's `Footprint` (a scored case's `Prediction.footprint`, or `cases.footprint`): a `fits` cell
    reads the scored one, not a second estimate of the case.
    """
    return None if case.collective is not None else unfit_reason(case, held) is None


def unfit_reason(case: Case, held: Footprint | None) -> str | None:
    """Why a case's stated layout does not fit in HBM by the model, where it does not; None where it does.

    `held` is the case's `Footprint` (a scored case's `Prediction.footprint`, or `cases.footprint`; None for a
    collective). The case is still predicted as stated (`predict`): a training layout whose memory exceeds HBM; a
    serving job whose KV cache holds no sequence beside the weights, in any scenario (a simulated one then falls back
    to the closed form, `scheduler.estimate_serving`); or a batch above what the KV cache holds where the closed form
    runs it whole (offline, or server with no arrival rate). A simulated scenario admits at most the KV capacity and
    queues the rest, as engines do: that is no misfit, and `admission_cap` says it. `estimate --cases` says both.
    """
    if held is not None and (est := held.training) is not None:
        return None if bool(est.fits) else (
            f"the stated layout needs {float(est.memory.total) / 1e9:.1f} GB per accelerator, above the "
            f"{float(est.capacity) / 1e9:.1f} GB the model counts on the accelerator")
    inf = case.inference
    if inf is None or held is None or (whole := held.replica) is None:
        return None
    cap = int(float(whole.max_batch))
    if cap < 1:
        return serving_misfit(whole, held.hw)
    if isinstance(inf.batch, str) or inf.batch is None or simulated(inf) or inf.batch <= cap:
        return None
    return f"batch {inf.batch} is above the {cap} sequences the KV cache holds per replica by the model"


def simulated(inf: Inference) -> bool:
    """Whether a serving case runs the scheduler (`scheduler.estimate_serving`), not the offline closed form."""
    return inf.scenario == "concurrency" or (inf.scenario == "server" and inf.arrival_rate is not None)


def admission_cap(case: Case, prediction: Prediction) -> str | None:
    """What caps a simulated serving case's requests in flight below the concurrency (or batch) it states.

    The scheduler admits at most `max_batch` at once (the KV cache, and the engine's `max_batch_size` and token
    budget per scheduling rank: `inference.estimate_inference`, the case's `Footprint.replica`) and queues the rest,
    whose wait TTFT counts; None where the stated figure is admitted whole, the case is not simulated, or nothing fits
    (`unfit_reason`). `prediction` is the case's scored `Prediction`.
    An open loop's stated batch is the engine's limit (MLPerf's NVIDIA configs set TensorRT-LLM's max_batch_size
    from `gpu_batch_size`), not a batch its run reaches: whether the cap binds at the stated arrival rate is the
    simulated run's `max_running` (issue 20, kvcap36), said after it (`_at_load`).
    """
    inf = case.inference
    held = prediction.footprint
    if inf is None or not simulated(inf) or isinstance(inf.batch, str) or inf.batch is None or held is None \
            or (e := held.replica) is None:
        return None
    cap, kv = int(float(e.max_batch)), int(float(e.kv_batch))
    if cap < 1 or inf.batch <= cap:
        return None
    by = (f"the {kv:,} sequences the KV cache holds per replica by the model" if kv <= cap else
          f"the {cap:,} the engine schedules at once per replica (max_batch_size or max_num_tokens; the KV cache "
          f"would hold {kv:,})")
    if inf.scenario == "concurrency":
        return (f"concurrency {inf.batch:,} is above {by}: the replica admits {cap:,} at once and the rest queue, "
                "their wait counted in TTFT")
    return (f"batch {inf.batch:,} (the most it lets in flight) is above {by}: the replica admits at most {cap:,} at "
            f"once, and arrivals beyond them queue, their wait counted in TTFT; {_at_load(prediction.run, cap)}")


def _at_load(run: ServingRun | None, cap: int) -> str:
    """Whether an open loop's admission cap binds: the most requests its simulated `run` holds at once, against `cap`.

    `run` is the one the case was scored from (`Prediction.run`: `scheduler.estimate_serving` at the stated batch,
    arrival rate and replicas), not a second simulation.
    """
    if run is None:
        return "no run to say whether it binds"
    held = f"at the stated arrival rate the simulated replica holds at most {run.max_running:,} at once"
    if not run.stable:
        return f"{held}, and its queue grows for the whole run: the cap binds"
    return f"{held}: the cap binds" if run.max_running >= cap else f"{held}, so the cap does not bind at this load"
