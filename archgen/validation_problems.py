"""pydantic's validation errors as located problems: one `SpecProblem` per error, at file:line:col, in the user's words.

`problems_from` maps each error to the key of the document it is about (less pydantic's wrapper steps and the
members of an untagged union), and words it: an unknown key with "did you mean", a missing one, a value against
what was expected, an empty value called empty, a bound's value as written. `archgen.validate`, the case files
(`scoring.cases`), the catalog and documents made in code all report through it (split from `archgen.validate` for
its size).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from pydantic import BaseModel, ValidationError

from archgen.errors import SpecProblem, did_you_mean, excerpt, odd_character
from archgen.load import SourceDocument as Source
from archgen.model.spec_paths import fields_at, owners_below, quantity_hint, untagged, word_hint


def problems_from(exc: ValidationError, doc: Source, cls: type[BaseModel], prefix: tuple = ()) -> list[SpecProblem]:
    """One located problem per error of validating `cls` from the node of `doc` at `prefix` (default: the root)."""
    errors = (_one_branch(doc, prefix, err) for err in exc.errors(include_url=False))
    out: list[SpecProblem] = []
    for p in (_problem(doc, cls, err, prefix) for err in errors if err is not None):
        last = out[-1] if out else None
        if last and p.expected and last.expected and not (p.message or last.message) and \
                (p.location, p.path, repr(p.value)) == (last.location, last.path, repr(last.value)):
            out[-1] = replace(last, expected=f"{last.expected} or {p.expected}")  # a union's members: one problem
        else:
            out.append(p)
    return out


#: The labels pydantic puts in an error's location for the scalar members of a union without a discriminator.
_SCALAR_BRANCH = re.compile(r"^(constrained-)?(str|int|float|bool)$")


def _one_branch(doc: Source, prefix: tuple, err: Mapping) -> Mapping | None:
    """`err` less the member label of a union without a discriminator, or None where it is the other member's.

    A link option is a Link id or `{a, b}`: pydantic reports a bad one against both members, as
    `links.access.0.LinkChoice.b` and `links.access.0.constrained-str`. Only the member of the value's own type (a
    mapping: the model) is reported, at the user's path.
    """
    node: object = doc.data
    for p in prefix:
        node = _child(node, p)
    loc = tuple(err["loc"])
    for i, part in enumerate(loc):
        if isinstance(node, dict) and part in node or isinstance(node, list) and isinstance(part, int):
            node = _child(node, part)
            continue
        scalar = isinstance(part, str) and bool(_SCALAR_BRANCH.match(part))
        if scalar or isinstance(part, str) and part[:1].isupper() and "[" not in part:
            if scalar == isinstance(node, dict):
                return None
            return {**err, "loc": loc[:i] + loc[i + 1:]}
    return err


def _problem(doc: Source, cls: type[BaseModel], err: Mapping, prefix: tuple) -> SpecProblem:
    """`_described`'s problem of `err`; an empty value called empty, a bound's value as written ('150 %', not 1.5)."""
    problem = _described(doc, cls, err, prefix)
    if err["type"] in ("missing", "extra_forbidden", "value_error"):
        return problem
    written = _written(doc, problem.path)
    if err.get("input", ...) is None and written is None:   # `max:` with nothing after it, which YAML reads as null
        return replace(problem, message=f"empty value{': ' if problem.message else ''}{problem.message}",
                       hint=problem.hint or ("YAML reads a key or '-' with nothing after it as null: write the "
                                             "value, or leave the entry out"))
    bounds = ("greater_than", "greater_than_equal", "less_than_equal", "less_than")
    return replace(problem, value=written) if isinstance(written, str) and err["type"] in bounds else problem  # '150 %'


def _written(doc: Source, path: str) -> object:
    """The value at the dotted `path` of `doc` as the file gives it (None for an empty one), or `...` if absent."""
    node: object = doc.data
    for step in path.split("."):
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return ...
    return node


def _described(doc: Source, cls: type[BaseModel], err: Mapping, prefix: tuple) -> SpecProblem:
    raw = _unwrapped(doc, prefix, err["loc"])   # with the tag of a discriminated union's member (fabrics.0.torus)
    rel = untagged(cls, raw)
    loc = prefix + rel
    path = ".".join(str(p) for p in loc)
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "extra_forbidden":
        allowed = fields_at(cls, raw[:-1])   # the keys of the union's member the document names
        hint = _one_level_down(cls, raw[:-1], loc, str(loc[-1])) or did_you_mean(loc[-1], allowed) or (
            f"allowed keys: {', '.join(allowed)}" if allowed else "")
        if re.match(r"\d+(?:\.\d+)?(?:\s|$)", str(loc[-1])):   # {count: 1,024}: YAML reads a key 024
            hint = ("a comma inside {...} separates entries, so a number written with a thousands separator "
                    "(1,800 GB/s) is split in two there: write it without the comma")
        return SpecProblem(doc.locate(loc), path, f"unknown key '{excerpt(str(loc[-1]))}'", hint=hint)
    if kind == "missing":
        return SpecProblem(doc.locate(loc[:-1]), path, f"missing required key '{loc[-1]}'", hint=word_hint(cls, raw))
    if kind.startswith("quantity_") or kind == "target":
        return SpecProblem(doc.locate(loc), path, err["msg"], hint=quantity_hint(cls, raw, kind, ctx))
    if kind in ("ratio", "expected"):  # the model's message says what was expected (archgen.model.cluster._ratio)
        return SpecProblem(doc.locate(loc), path, "", value=_shown(value), expected=str(err["msg"]))
    expected = _EXPECTED.get(kind)
    if expected:
        hint = did_you_mean(value, re.findall(r"'([^']*)'", str(ctx.get("expected", "")))) \
            if kind == "literal_error" and isinstance(value, str) else ""
        odd = odd_character(value, ctx.get("pattern"))   # a look-alike or the case: its code point and position
        return SpecProblem(doc.locate(loc), path, odd, value=_shown(value), expected=expected.format(**ctx), hint=hint)
    if kind == "value_error":  # a model validator's own message says what is wrong; the input is the whole mapping
        error = ctx.get("error")
        field = getattr(error, "field", ())  # a FieldError names the key it is about
        if field:
            loc = (loc[:-1] if getattr(error, "beside", False) else loc) + field  # beside: from the field's model
            path = ".".join(str(p) for p in loc)
        return SpecProblem(doc.locate(loc), path, str(err["msg"]).removeprefix("Value error, "))
    return SpecProblem(doc.locate(loc), path, f"{err['msg']}, got {_short(value)}")


def _one_level_down(cls: type[BaseModel], raw: tuple, loc: tuple, key: str) -> str:
    """Where an unknown `key` goes when a model one level down has it: `training.tp` is `training.parallelism.tp`.

    Before (newuser88), a layout written flat under a Workload's `training:`, as the validation-case files write
    it, got the 27 keys of `training` listed, and `micro_batch` "did you mean 'global_batch'?".
    """
    owners = owners_below(cls, raw, key)
    if not owners:
        return ""
    parent = ".".join(str(p) for p in loc[:-1])
    where = " or ".join(f"'{parent + '.' if parent else ''}{o}'" for o in owners)
    here = f"'{parent}'" if parent else "the document's top level"
    return f"'{key}' is a key of {where}, not of {here}: write it there, e.g. {owners[0]}: {{{key}: ...}}"


_EXPECTED = {
    "greater_than": "a number greater than {gt}",
    "greater_than_equal": "a number of at least {ge}",
    "less_than_equal": "a number of at most {le}",
    "less_than": "a number less than {lt}",
    "int_parsing": "a whole number",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "literal_error": "one of {expected}",
    "string_pattern_mismatch": "a string matching {pattern}",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "dict_type": "a mapping",
    "list_type": "a list",
    "too_short": "at least {min_length} item(s)",
    "string_too_short": "at least {min_length} character(s)",
    "string_too_long": "at most {max_length} characters",
}


def _shown(value: object) -> object:
    """The value as a problem shows it: a scalar or an empty list or mapping as is, any other by its type name."""
    return value if not isinstance(value, dict | list) or not value else type(value).__name__


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _unwrapped(doc: Source, prefix: tuple, loc: tuple) -> tuple:
    """`loc` less pydantic's wrapper steps ('function-after[...]'), which hold '['.

    A key of the user's YAML that holds '[' (found by the fuzz: `s!!x [true] ource`) is a step, not a wrapper.
    """
    node: object = doc.data
    for p in prefix:
        node = _child(node, p)
    out = []
    for p in loc:
        if isinstance(p, str) and "[" in p and not (isinstance(node, dict) and p in node):
            continue
        out.append(p)
        node = _child(node, p)
    return tuple(out)


def _child(node: object, step: object) -> object:
    if isinstance(node, dict):
        return node.get(step)
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        return node[step]
    return None
