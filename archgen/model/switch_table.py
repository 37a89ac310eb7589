"""The table of training switches' row: `TrainingSwitch`, read from a model field that carries its `ByStack`.

Split from `archgen.model.switches`, which declares the switches (one field each) and builds the table `SWITCHES`
from them with `rows`; this module holds what a row is and what it allows, whatever the switch.
"""

import functools
import typing
from dataclasses import dataclass

from archgen.model.spec import Spec
from archgen.model.stack_profiles import ByStack

#: The smallest `ddp_bucket_size` the model times: one million parameters, a 1,024 x 1,024 weight matrix (below it a
#: bucket is a tensor or two, which the count parameters / bucket does not follow; see
#: `whole_tensor_bucket`).
MIN_BUCKET = 1_000_000


@dataclass(frozen=True)
class TrainingSwitch:
    """One row of the table: a switch's name, type, allowed values, description and value under each profile."""

    name: str
    annotation: object
    description: str
    by_stack: ByStack

    @property
    def values(self) -> tuple[object, ...]:
        """The named values it may take (a count, as `ddp_bucket_size` takes, is not among them: `allows`)."""
        return _named(self.annotation)

    def allows(self, value: object) -> bool:
        """Whether it may take `value`: a named value, or a count of at least `MIN_BUCKET` where it takes an int."""
        return value in _named(self.annotation) or (_counts(self.annotation) and isinstance(value, int)
                                                    and not isinstance(value, bool) and value >= MIN_BUCKET)

    def default(self, stack: str) -> object:
        """Its value under `stack`."""
        return self.by_stack.setting(stack)[0]

    def source(self, stack: str) -> str:
        """Where its value under `stack` is read."""
        return self.by_stack.setting(stack)[1]


@functools.cache
def _named(annotation: object) -> tuple[object, ...]:
    """The named values of a switch's type (`TrainingSwitch.values`), read once per type.

    Every training estimate checks each of its ~20 switches against them (`stacks.resolve`), where
    `typing.get_args` costs a few microseconds a call.
    """
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return (False, True) if args == [bool] else tuple(v for a in args for v in typing.get_args(a))


@functools.cache
def _counts(annotation: object) -> bool:
    """Whether a switch of this type takes a count (an int) beside its named values (`TrainingSwitch.allows`)."""
    return int in typing.get_args(annotation)


def rows(*models: type[Spec]) -> dict[str, TrainingSwitch]:
    """The rows of `models`' fields that carry a `ByStack` (their value under each profile), in declaration order."""
    return {name: TrainingSwitch(name, info.annotation, info.description or "", meta[0]) for model in models
            for name, info in model.model_fields.items()
            if (meta := [m for m in info.metadata if isinstance(m, ByStack)])}


def as_written(value: object) -> str:
    """A switch's value as a spec writes it (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def whole_tensor_bucket(value: object) -> object:
    """A stated DDP bucket (`ddp_bucket_size`) is a count of at least `MIN_BUCKET` parameters (not true or false).

    The model times ceil(parameters / bucket) collectives (`exposure.dp_exposure`), which holds where a bucket
    spans many weight tensors; Megatron-core closes one only at a tensor's end (param_and_grad_buffer.py), so a
    smaller bucket is one tensor each (MLPerf v5.0 NeMo's default of 200, Cisco's 64): refused, not timed.
    """
    if isinstance(value, bool) or (isinstance(value, int | float) and value < MIN_BUCKET):
        raise ValueError(f"expected a number of parameters of at least {MIN_BUCKET:,} (Megatron-core "
                         f"bucket_size, such as 134217728; a smaller bucket closes at every weight tensor, "
                         f"which the model does not count) or 'default', got {as_written(value)}")
    return value
