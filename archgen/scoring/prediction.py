"""What a validation case's prediction was made from, kept beside its values so that no later stage makes it again.

`scoring.cases.predicted` makes a `Prediction`; `scoring.scores.score_cases` keeps it with each scored case, and
`estimate --cases` reads it for what it says after the scores (`scoring.case_memory`: whether the stated layout fits,
what caps a simulated serving case's requests in flight, and whether that cap binds at the stated load). Split from
`scoring.cases` for its size.
"""

from dataclasses import dataclass
from functools import cached_property

from archgen.perf.hw.hardware import Hardware
from archgen.perf.serve.inference import InferenceEstimate, ServeJob, estimate_inference
from archgen.perf.serve.run import ServingRun
from archgen.perf.train.training import TrainingEstimate


@dataclass(frozen=True)
class Footprint:
    """What a case's stated layout holds by the model, on its hardware `hw` (`case_memory` judges whether it fits).

    A training case's estimate at its layout (`training`), or a serving case's job on `tp` accelerators per replica
    (`job`, `cases.serve_job`) and that replica holding as many sequences as it admits (`replica`).
    """

    hw: Hardware
    training: TrainingEstimate | None = None
    job: ServeJob | None = None
    tp: int = 1

    @cached_property
    def replica(self) -> InferenceEstimate | None:
        """A serving job's replica at batch None (`estimate_inference`: its `max_batch` and `kv_batch`), else None.

        Made when first read, and once: a case's predictions over what it leaves unstated never read it.
        """
        return None if self.job is None else estimate_inference(self.hw, self.job, self.tp, None)


@dataclass(frozen=True)
class Prediction:
    """A case's predicted values (SI, `cases.predict`) with what they were made from, each made once.

    `footprint` is None for a collective; `run` is a simulated serving case's run (None where the case is not
    simulated, or no sequence fits): `estimate --cases` reads both after the scores (`case_memory.unfit_reason`,
    `admission_cap`) rather than estimating or simulating the case again.
    """

    values: dict[str, float]
    footprint: Footprint | None = None
    run: ServingRun | None = None

    def made_on(self, hw: Hardware) -> bool:
        """Whether this prediction was made on `hw` (equal hardware; a collective's keeps none, so never).

        A range over what a case leaves unstated reuses it at the end whose inputs are the case's own
        (`scoring.unstated`): the case itself on equal hardware, where the model would make the same prediction again.
        """
        return self.footprint is not None and self.footprint.hw == hw
