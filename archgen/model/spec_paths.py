"""Following a validation error's path through the spec models: lists, nested models and discriminated unions.

`archgen.validate` reads pydantic's `loc` with these to point at the user's YAML (the union's tag dropped:
`untagged`) and to offer the keys allowed where an unknown key stands (`fields_at`, the tagged member's keys).
"""

import re
import types
import typing

from pydantic import BaseModel

from archgen.model import core_schemas


def fields_at(cls: type[BaseModel], loc: tuple) -> list[str]:
    """Allowed keys of the model reached by following `loc` from `cls` (for 'did you mean').

    `loc` keeps pydantic's tag after a discriminated-union item (fabrics.0.torus): the keys are that member's, not
    the union's first (a torus fabric's dims and ocs, not a fat tree's tiers).
    """
    model = _model_at(cls, loc)
    return sorted((f.alias or n) for n, f in model.model_fields.items()) if model else []


def word_hint(cls: type[BaseModel], loc: tuple) -> str:
    """What a missing required key at `loc` means, where it takes a word as well as a number (a case's `batch`: 'max').

    Its description, which names the word (servetidy42: a case without `batch` read only "missing required key
    'batch'", not that `max` is taken); '' for any other key.
    """
    model = _model_at(cls, loc[:-1])
    field = next((f for n, f in model.model_fields.items() if (f.alias or n) == loc[-1]), None) if model else None
    members = _members_shallow(field.annotation) if field is not None else []
    words = [m for m in members if typing.get_origin(m) is typing.Literal]
    if field is None or not field.description or not words or len(words) == len(members):
        return ""
    return f"'{loc[-1]}' is {field.description[0].lower()}{field.description[1:]}"


def owners_below(cls: type[BaseModel], loc: tuple, key: str) -> list[str]:
    """The keys at `loc` whose value is one nested model (not a list or mapping of them) that has `key` as a key.

    So that an unknown key written one level too high is pointed to where it goes: a Workload's `training.tp` is
    `training.parallelism.tp` (newuser88).
    """
    model = _model_at(cls, loc)
    if model is None:
        return []
    out = []
    for name, f in model.model_fields.items():
        members = [m for m in _members_shallow(f.annotation) if m is not type(None)]
        if len(members) == 1 and isinstance(members[0], type) and issubclass(members[0], BaseModel) and \
                any(key in (n, g.alias) for n, g in members[0].model_fields.items()):
            out.append(f.alias or name)
    return sorted(out)


def _members_shallow(tp: object) -> list[object]:
    """`tp` less `Annotated` and an optional's None; a list, tuple, set or mapping stays as it is."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _members_shallow(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(tp) for m in _members_shallow(arg)]
    return [tp]


def _model_at(cls: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The model reached by following `loc` from `cls` (`fields_at`), or None."""
    current: object = cls
    for part in loc:
        model = _model_of(current)
        if model is None:
            return None
        if isinstance(part, int):
            current = _item_of(current)
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None and (member := _tagged(current, part)) is not None:
            current = member
            continue
        if field is None:
            return None
        current = field.annotation
    return _model_of(current)


def untagged(cls: type[BaseModel], loc: tuple) -> tuple:
    """`loc` less the tags pydantic puts after a discriminated-union item: fabrics.0.fat-tree.x → fabrics.0.x.

    A tag is dropped only where it is not a key of the model at that point and is a value of the union's
    discriminator, so the path matches the user's YAML (and its line, and the keys offered by "did you mean").
    """
    out: list = []
    current: object = cls
    for part in loc:
        if isinstance(part, int):
            out.append(part)
            current = _item_of(current)
            continue
        model = _model_of(current)
        field = None if model is None else next(
            (f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None and part in _tags(current):
            continue
        out.append(part)
        current = field.annotation if field else None
    return tuple(out)


def _tags(tp: object) -> set[str]:
    """Discriminator values of an ``Annotated[A | B, Field(discriminator=...)]`` type; empty for any other type."""
    key = next((m.discriminator for m in getattr(tp, "__metadata__", ()) if getattr(m, "discriminator", None)), None)
    if not isinstance(key, str):
        return set()
    base = typing.get_args(tp)[0]
    tags: set[str] = set()
    for member in typing.get_args(base) or (base,):
        field = member.model_fields.get(key) if isinstance(member, type) and issubclass(member, BaseModel) else None
        if field is not None:
            tags.update(v for v in typing.get_args(field.annotation) if isinstance(v, str))
    return tags


def _tagged(tp: object, tag: object) -> type[BaseModel] | None:
    """The member of a discriminated union (`_tags`) whose discriminator takes `tag`, or None."""
    if not isinstance(tag, str) or tag not in _tags(tp):
        return None
    key = next(m.discriminator for m in getattr(tp, "__metadata__", ()) if getattr(m, "discriminator", None))
    base = typing.get_args(tp)[0]
    return next((m for m in typing.get_args(base) or (base,) if isinstance(m, type) and issubclass(m, BaseModel)
                 and (f := m.model_fields.get(key)) is not None and tag in typing.get_args(f.annotation)), None)


def _model_of(tp: object) -> type[BaseModel] | None:
    """The first model in an annotation (`core_schemas.nested_models`), or None."""
    return next(iter(core_schemas.nested_models(tp)), None)


def _item_of(tp: object) -> object:
    origin = typing.get_origin(tp)
    if origin in (list, tuple, set) or isinstance(tp, types.GenericAlias):
        return typing.get_args(tp)[0] if typing.get_args(tp) else tp
    for arg in typing.get_args(tp):
        if typing.get_origin(arg) in (list, tuple):
            return typing.get_args(arg)[0]
    return tp


def names_a_field(cls: type[BaseModel], dotted: str) -> bool:
    """Whether `dotted` ('power.max', 'peak.fp8', 'ports.speed') names a field of `cls` or one nested in it.

    Each name is a key of the model reached so far (through lists, optionals and unions: any member that has it) or
    of a mapping (one of its `Literal` keys where it has them, any key otherwise); a name past a plain value fails.
    A `Part`'s `unconfirmed:` list is read with it, so that a misspelt field is refused rather than marking nothing.
    """
    current: list[object] = [cls]
    for name in dotted.split("."):
        current = [t for tp in current for member in _members(tp) for t in _step(member, name)]
        if not current:
            return False
    return True


def _members(tp: object) -> list[object]:
    """The types a value of `tp` may be: `Annotated`, optionals and unions unwrapped, a list's or tuple's item."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated or origin in (list, tuple, set):
        return _members(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(tp) if arg is not type(None) for m in _members(arg)]
    return [tp]


def _step(tp: object, name: str) -> list[object]:
    """The annotations `name` reaches from a model's or a mapping's type `tp` (none from any other type)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [f.annotation for n, f in tp.model_fields.items() if name in (n, f.alias)]
    if typing.get_origin(tp) is dict:
        key, value = typing.get_args(tp)
        literals = [v for k in _members(key) if typing.get_origin(k) is typing.Literal for v in typing.get_args(k)]
        return [value] if not literals or name in literals else []
    return []


#: What a field's description says its value is per, where its first clause says so plainly: 'Line rate per port, e.g.',
#: 'Output per PSU', 'Line rate of one fabric port', 'Maximum power of one machine'. A longer phrase ('per data type',
#: 'per second arriving') or one after a colon or a bracket is not read: the part the field is in is named instead.
_PER_STATED = re.compile(r"^[^.:;(]*?\b(?:per|of one(?: [a-z]+)?) ([A-Za-z][\w-]*)(?= ?[,.;:()]| per\b|$)")


def quantity_hint(cls: type[BaseModel], loc: tuple, kind: str, ctx: dict) -> str:
    """The hint of a quantity error at `loc` (pydantic's, tags kept) of a `cls` document, said of its field.

    A unit that says what the value is per ('700 W/GPU', `archgen.quantity_text.per_item`) is told what the field
    is per: the 'per <word>' or 'of one <word>' its description states, else the part the field is in (the
    innermost model with a `kind`). A range ('10-12 kW') is told the field's range form where it has one: a sibling
    `<field>_range`, or a `*_range` whose description names the field (Link's `power_range` for `power_per_end`).
    """
    model, name, part, key = None, None, "item", None
    current: object = cls
    for step in loc:
        found = _model_of(current)
        if isinstance(step, int):
            current = _item_of(current)
        elif found is not None and (field := found.model_fields.get(str(step))) is not None:
            model, name, current, key = found, str(step), field.annotation, None
            part = found.__name__ if "kind" in found.model_fields else part
        elif (member := _tagged(current, step)) is not None:
            current = member
        else:   # a mapping's key (gemm.fp8): its value's type
            args = typing.get_args(_members(current)[0])
            current, key = (args[-1] if args else None), step
    if model is None or name is None:
        return str(ctx.get("hint", ""))
    if kind == "quantity_per_item":
        stated = _PER_STATED.match(model.model_fields[name].description or "")
        what = stated[1] if stated else part
        return f"write '{ctx['plain']}' if that is one {what}'s value: the field is per {what}"
    ranges = [n for n, f in model.model_fields.items() if n.endswith("_range") and n != name
              and (n == f"{name}_range" or f"`{name}`" in (f.description or ""))]
    if kind == "quantity_range" and ranges:
        ends = f"[{ctx['low']}, {ctx['high']}]"
        return f"state one value here, and the low and high in `{ranges[0]}`: {f'{{{key}: {ends}}}' if key else ends}"
    return str(ctx.get("hint", ""))
