"""The fields a spec document differs from the shipped catalog entry it replaces in (CAT007's finding), and `once`.

Moved out of `checks/catalog.py`, which keeps CAT007's `@check` and docstring; `once`, the per-part checks' memo,
moved with it so that `checks/catalog_bounds.py` (CAT013, CAT014), which `checks/catalog.py` imports, shares it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from archgen.cache import Memo
from archgen.checks.registry import Violation
from archgen.units import parse_quantity

#: The per-part checks' violations by (check, the documents read): a part validated from a loaded file is the same
#: frozen object in every run of a process (`validate.VALIDATED`), and each run judged all of the catalog's parts
#: again (about 1.4 ms of a check case's pipeline run, most of it pint's conversions, pipe31).
_JUDGED = Memo[tuple[tuple[object, ...], tuple[Violation, ...]]](4096)


def once(check_id: str, judge: Callable[..., Iterator[Violation]], *read: object) -> tuple[Violation, ...]:
    """`judge(*read)`'s violations, judged once a process for the same objects `read` (frozen documents, or None)."""
    key = (check_id, *map(id, read))
    known = _JUDGED.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], read, strict=True)):
        return known[1]
    return _JUDGED.put(key, (read, tuple(judge(*read))))[1]   # the objects kept: no other takes their `id`


#: The longest value CAT007 quotes beside the field it names.
MAX_QUOTED = 40


def differing(shipped: Any, given: Any, at: str = "") -> list[tuple[str, Any, Any]]:
    """The fields of `given` that differ from `shipped` (plain YAML data): (key path, shipped value, given value).

    Mappings are compared key by key and lists item by item (an item named by its `id` where it has one, as
    `load.SourceDocument.key` names it); a key on one side only has `None` on the other. Two values that both read
    as quantities are equal when they are the same quantity.
    """
    if isinstance(shipped, dict) and isinstance(given, dict):
        out: list[tuple[str, Any, Any]] = []
        for k in sorted(set(shipped) | set(given), key=str):
            out += differing(shipped.get(k), given.get(k), f"{at}.{k}" if at else str(k))
        return out
    if isinstance(shipped, list) and isinstance(given, list) and len(shipped) == len(given):
        out = []
        for i, (a, b) in enumerate(zip(shipped, given, strict=True)):
            name = a.get("id") if isinstance(a, dict) and isinstance(b, dict) and a.get("id") == b.get("id") else None
            out += differing(a, b, f"{at}[{name if isinstance(name, str) and name else i}]")
        return out
    return [] if _same(shipped, given) else [(at, shipped, given)]


def unless_default(fields: list[tuple[str, Any, Any]], doc: Any, shipped: Any) -> list[tuple[str, Any, Any]]:
    """`fields` less each key given on one side only whose value the other side takes by default.

    Both documents are read as the model reads them (`doc`'s class, defaults filled in) and compared at the key's path;
    where the shipped data does not read (it always does: it is the catalog's), every field is kept.
    """
    if all(a is not None and b is not None for _, a, b in fields):
        return fields
    try:
        read = (type(doc).model_validate(shipped).model_dump(by_alias=True), doc.model_dump(by_alias=True))
    except ValueError:
        return fields
    return [(path, a, b) for path, a, b in fields
            if a is not None and b is not None or not _same_read(*(_at(r, path) for r in read))]


def _at(data: Any, path: str) -> Any:
    """The value at `differing`'s key path (`a.b[id].c`, `slots[0]`) of model-dumped `data`; None where absent."""
    for key, item in re.findall(r"([^.\[\]]+)|\[([^\]]+)\]", path):
        if key:
            data = data.get(key) if isinstance(data, dict) else None
        elif isinstance(data, list):
            named = [x for x in data if isinstance(x, dict) and x.get("id") == item]
            data = named[0] if named else data[int(item)] if item.isdigit() and int(item) < len(data) else None
        else:
            data = None
    return data


def _same_read(a: Any, b: Any) -> bool:
    """Two model-read values are the same: equal, or quantities of one dimension equal after conversion."""
    if a is None or b is None:
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _same(a: Any, b: Any) -> bool:
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str):
        try:
            qa, qb = parse_quantity(a), parse_quantity(b)
        except ValueError:
            return False
        return bool(qa.dimensionality == qb.dimensionality and abs(qa - qb.to(qa.units)) <= abs(qa) * 1e-12)
    return False


def short(value: Any) -> bool:
    """A value short enough to quote: absent, or no mapping or list and at most `MAX_QUOTED` characters."""
    return value is None or not isinstance(value, dict | list) and len(str(value)) <= MAX_QUOTED


def quoted(value: Any) -> str:
    """A value as CAT007 quotes it; one given on the other side only is "(not given)"."""
    return "(not given)" if value is None else str(value)
