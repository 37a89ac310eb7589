"""Documents made in code (a notebook, a script): validated as a spec file's are, every mistake an `ArchgenError`.

A spec file's documents are validated by `validate.validate`, which reports each schema and unit problem at its
file:line. A document a caller makes in code has no file: `document` validates it the same way and raises the same
problems, with the same messages, as one `ValidateError` located at the document itself ("workload 'x' (made in
code)"), so that ``except ArchgenError`` catches it as it catches every other mistake (pydantic's own
`model_validate` raises pydantic's `ValidationError`). `variant` makes a changed copy and validates it: pydantic's
`model_copy(update=...)` checks nothing (``accelerators=-3`` passes it; newuser43's trial).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from archgen.errors import UsageError, ValidateError
from archgen.load import SourceDocument
from archgen.model import Document
from archgen.validate import D
from archgen.validation_problems import problems_from


def document(kind: type[D], data: Mapping[str, Any]) -> D:
    """A `kind` document (`Workload`, `Cluster`, ...) from `data`, validated as the same mapping in a spec file is.

    `data` is what a spec file holds (quantities as text such as ``"400 Gb/s"``, or pint quantities), or a dump of a
    document; `kind` may be left out of it. ``model_dump(by_alias=True, exclude_unset=True)`` reads back for every
    kind (`variant` uses it); a plain ``model_dump()`` does for a workload, not for a rack (its cooling ``class`` is
    dumped as ``class_``) or a cluster (its scale-up ``links_per_peer`` default dumped as stated). A schema or unit
    error is a `ValidateError` listing every problem, each located at the document (it has no file line); a `kind`
    that is no document class, or `data` that is no mapping, a `UsageError`.
    """
    if not (isinstance(kind, type) and issubclass(kind, Document) and "kind" in kind.model_fields):
        raise UsageError(f"in_code.document: kind: expected a document class such as Workload or Cluster, got {kind!r}")
    if not isinstance(data, Mapping):
        raise UsageError(f"in_code.document: data: expected a mapping of the document's fields (a spec file's or a "
                         f"dump's), got {type(data).__name__}")
    raw = dict(data)
    raw.setdefault("kind", kind.model_fields["kind"].default)
    where = f"{kind.__name__.lower()} '{raw.get('id', '')}' (made in code)"
    try:
        return kind.model_validate(raw)
    except ValidationError as exc:
        raise ValidateError(problems_from(exc, SourceDocument(where, raw, {}), kind)) from None


def variant(doc: D, changes: Mapping[str, Any] | None = None, /, **fields: Any) -> D:
    """`doc` with `changes` (and `fields`), validated as a spec file is (`document`): pydantic's `model_copy` is not.

    A mapping merges into the document's own, key by key (``{"training": {"global_batch": 512}}`` changes the batch
    alone); any other value, a list included, replaces the field. A document or model given as a value is read from
    its dump, so it is validated too. What the document did not state stays unstated (a default is not written in).
    A `doc` that is no document, or `changes` that are no mapping, is a `UsageError`.
    """
    if not isinstance(doc, Document):
        raise UsageError(f"in_code.variant: expected a document (a Workload, a Cluster, ...), got {type(doc).__name__}")
    if changes is not None and not isinstance(changes, Mapping):
        raise UsageError(f"in_code.variant: changes: expected a mapping of fields to values, got "
                         f"{type(changes).__name__}")
    base = doc.model_dump(by_alias=True, exclude_unset=True)
    return document(type(doc), _merged(base, {**(changes or {}), **fields}))


def _merged(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in changes.items():
        if isinstance(value, BaseModel):
            value = value.model_dump(by_alias=True, exclude_unset=True)
        out[key] = _merged(out[key], value) if isinstance(value, Mapping) and isinstance(out.get(key), Mapping) \
            else value
    return out
