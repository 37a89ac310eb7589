"""`record.quick_init`: a frozen dataclass built in one step is the same frozen dataclass (issue 25)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from archgen.errors import InternalError
from archgen.perf.hw.memory import TrainingMemory
from archgen.perf.hw.record import quick_init
from archgen.perf.train.training import TrainingEstimate


@quick_init
@dataclasses.dataclass(frozen=True)
class _Point:
    x: float
    y: float = 2.0
    tags: tuple[str, ...] = dataclasses.field(default=())


def test_same_values_defaults_and_keywords() -> None:
    p = _Point(1.0)
    assert (p.x, p.y, p.tags) == (1.0, 2.0, ())
    assert _Point(1.0, y=3.0, tags=("a",)) == _Point(x=1.0, y=3.0, tags=("a",))
    assert dataclasses.astuple(_Point(1.0, 3.0)) == (1.0, 3.0, ())


def test_stays_frozen_and_a_dataclass() -> None:
    p = _Point(1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2.0  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(p)] == ["x", "y", "tags"]
    assert dataclasses.replace(p, y=5.0) == _Point(1.0, 5.0)
    assert hash(p) == hash(_Point(1.0))
    assert pickle.loads(pickle.dumps(p)) == p


def test_signature_errors_as_the_generated_init() -> None:
    with pytest.raises(TypeError):
        _Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Point(1.0, z=3.0)  # type: ignore[call-arg]


def test_refuses_what_it_does_not_support() -> None:
    @dataclasses.dataclass(frozen=True)
    class Factory:
        x: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass
    class Mutable:
        x: float

    for cls in (Factory, Mutable):
        with pytest.raises(InternalError):
            quick_init(cls)


def test_result_types_use_it() -> None:
    m = TrainingMemory(1.0, 2.0, 3.0, 4.0)
    assert m.total == 10.0 and m.host == 0.0
    assert "notes" in {f.name for f in dataclasses.fields(TrainingEstimate)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.weights = 0.0  # type: ignore[misc]
