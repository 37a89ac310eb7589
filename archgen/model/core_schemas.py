"""Each spec model's pydantic schema built once, leaves first, so that the kinds that share a model share its schema.

Every spec model defers its schema to its first validation (`Spec.model_config`: `defer_build`), so a command
builds only the schemas of the kinds it reads. A kind's schema then holds the schemas of the models nested in it;
pydantic reuses a nested model's schema only when that model has been built itself, and builds it again inside
each kind otherwise: `Waiver` sixteen times, `Price` and `FailureRate` nine, `LinkChoice` eight, for the shipped
specs (issue 25). `build(kinds)` builds, before the first validation, each model nested in more than one of them,
the innermost first; each kind then takes those by reference. The schemas, and so every validation and error,
are the same.
"""

import typing
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel

_built: set[type[BaseModel]] = set()


def nested_models(annotation: object) -> list[type[BaseModel]]:
    """The models in a field's annotation (through unions, lists, mappings and `Annotated`), depth first, once each."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return list(dict.fromkeys(m for arg in typing.get_args(annotation) for m in nested_models(arg)))


def shared(kinds: Iterable[type[BaseModel]]) -> list[type[BaseModel]]:
    """The models nested in more than one of `kinds` (at any depth), each after the models nested in it."""
    order: list[type[BaseModel]] = []      # every model under `kinds`, the innermost first
    inside: dict[type[BaseModel], set[type[BaseModel]]] = {}

    def visit(cls: type[BaseModel]) -> set[type[BaseModel]]:
        if cls not in inside:
            inside[cls] = found = set()
            direct = {m for f in cls.model_fields.values() for m in nested_models(f.annotation)}
            for model in sorted(direct, key=lambda m: m.__qualname__):
                found |= {model, *visit(model)}
            order.append(cls)
        return inside[cls]

    uses = Counter(m for kind in kinds for m in visit(kind))
    return [m for m in order if uses[m] > 1]


def build(kinds: Iterable[type[BaseModel]]) -> None:
    """Build the schemas of the models shared under `kinds`, innermost first; once per process and kind."""
    todo = set(kinds) - _built
    if not todo:
        return
    _built.update(todo)
    for model in shared(sorted(todo, key=lambda m: m.__qualname__)):
        model.model_rebuild(raise_errors=False)  # a model that cannot be built yet is built inside its kind
