"""Frozen result types that are quick to build: a frozen dataclass's `__init__` in one step (issue 25).

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__` (CPython's dataclasses.py,
`_field_assign` under `frozen=True`): about 0.1 µs a field, so building a 20-field training estimate cost more than
several of its formulas, once per estimate. `quick_init` gives such a class an `__init__` of the same signature that
stores the fields in the instance's dictionary at once. The class stays what it was: assignment still raises
`dataclasses.FrozenInstanceError`, and `fields`, `replace`, equality, hashing and pickling are the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from archgen.errors import InternalError

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """`cls` (a frozen dataclass of plain fields) with an `__init__` that sets every field at once.

    Fields with a `default_factory` or `init=False`, and a `__post_init__`, are not supported (an `InternalError`, a
    bug in the class it decorates, names them): the result types this serves have none.
    """
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise InternalError(f"quick_init: {cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__"):
        raise InternalError(f"quick_init: {cls.__name__} has a __post_init__")
    fields = dataclasses.fields(cls)
    namespace: dict[str, object] = {"_set": object.__setattr__}
    params = []
    for f in fields:
        if f.default_factory is not dataclasses.MISSING or not f.init:
            raise InternalError(f"quick_init: field {cls.__name__}.{f.name} has a default_factory or init=False")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    values = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
    source = f"def __init__(self, {', '.join(params)}):\n    _set(self, '__dict__', {{{values}}})\n"
    exec(source, namespace)  # noqa: S102 (the source is built from the dataclass's own field names)
    init: Any = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    setattr(cls, "__init__", init)  # noqa: B010 (a method replaced on the class, as dataclasses sets it)
    return cls
