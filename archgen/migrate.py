"""Renamed spec keys and metrics moved to their new names before validation, each with a warning.

`migrate` takes one loaded document and returns it with every old key of its kind moved to the new one (the value
and the source positions under it, so a schema error in a moved value is still reported at the line the user wrote),
a `RenamedKey` notice per move (reported as SPC003, a warning, by the check runner and `archgen validate`) and a
located problem per key given under both names (an error: which one is meant cannot be guessed). Keys are renamed
in `archgen.model.renamed`; a metric renamed in `archgen.metric.RENAMED` is a value: a `metric:` key anywhere in the
document (a requirement's, a sweep objective's) that names the old one is given the new name, with the same notice.

`required` takes a document's optional top-level `requires_archgen` (`'>=X.Y.Z'`, the oldest archgen it was written
for) off before validation, and refuses the document, at that line with the running version, where this archgen is
older or the text is no such requirement (docs/upgrading.md, "A version key").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from archgen import __version__
from archgen.cache import Memo
from archgen.errors import Location, SpecProblem
from archgen.load import SourceDocument, shared
from archgen.metric import RENAMED as RENAMED_METRICS
from archgen.model.moved import release
from archgen.model.renamed import RENAMED

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class RenamedKey:
    """A key a document gave under its old name: where, the document, the old and new paths, the release."""

    location: Location | None
    owner: str
    old: str
    new: str
    since: str
    what: str = ""  # "metric " for a renamed metric named as a value; a key's notice names no kind

    @property
    def text(self) -> str:
        """The notice in words."""
        return f"{self.what}'{self.old}' was renamed '{self.new}' in {self.since}; the old name still works, for now"

    @property
    def hint(self) -> str:
        """What to write instead."""
        return f"write '{self.new}' instead of '{self.old}'"


#: The loaded documents (`load.shared`: the same object for a file read again unchanged, and never changed) found
#: with nothing to migrate, each with the renamed metrics it was searched for: a process that runs the pipeline again
#: (the tests, the fuzz, a sweep) walked all the data of the catalog's ~100 documents in every run for old metric
#: names, 5 % of a run on specs/racks. A kind with renamed keys is migrated every time.
UNMOVED = Memo[tuple[SourceDocument, tuple[str, ...]]](2048)


def migrate(doc: SourceDocument) -> tuple[SourceDocument, list[RenamedKey], list[SpecProblem]]:
    """`doc` with its kind's renamed keys moved to their new names, the notices, and the keys given twice."""
    renames = RENAMED.get(doc.kind, ())
    if not renames:
        loaded, metrics = shared(doc), tuple(RENAMED_METRICS)
        known = UNMOVED.get(id(doc)) if loaded else None
        if known is not None and known[0] is doc and known[1] == metrics:
            return doc, [], []
        if next(_metric_values(doc.data), None) is None:
            if loaded:
                UNMOVED.put(id(doc), (doc, metrics))
            return doc, [], []
    data: dict[str, Any] = copy.deepcopy(doc.data)
    positions = dict(doc.positions)
    notices: list[RenamedKey] = []
    problems: list[SpecProblem] = []
    for r in renames:
        for old, new in list(_matches(data, r.old.split("."), r.new.split("."))):
            where, old_s, new_s = doc.locate(old), _dotted(old), _dotted(new)
            if _has(data, new) or not _room(data, new):
                problems.append(SpecProblem(where, old_s, f"'{old_s}' was renamed '{new_s}' in {r.since}, and "
                                            f"'{new_s}' is given too", hint=f"remove '{old_s}'"))
                continue
            value = _at(data, old[:-1]).pop(old[-1])
            _put(data, new, value)
            positions.update({new + key[len(old):]: pos for key, pos in doc.positions.items()
                              if key[:len(old)] == old})
            notices.append(RenamedKey(where, doc.id, old_s, new_s, r.since))
    moved = replace(doc, data=data, positions=positions)
    for at in list(_metric_values(data)):
        old_name = _at(data, at)
        new_name, since = RENAMED_METRICS[old_name]
        _put(data, at, new_name)
        notices.append(RenamedKey(moved.locate(at), doc.id, old_name, new_name, since, what="metric "))
    return moved, notices, problems


#: The optional top-level key by which a document names the oldest archgen it was written for.
REQUIRES = "requires_archgen"
_AT_LEAST = re.compile(r">=\s*(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class StatedVersion:
    """A document's `requires_archgen`: where, the document, and the release it states ('0.1.0')."""

    location: Location | None
    owner: str
    version: str


def required(doc: SourceDocument, version: str = __version__
             ) -> tuple[SourceDocument, list[SpecProblem], StatedVersion | None]:
    """`doc` without `requires_archgen`, an error where `version` is older or the value no `>=X.Y.Z`, the version.

    The version is the one the document states, where this archgen meets it (SPC005 lists the defaults moved since).
    Only `>=` and three numbers: the one thing a spec can say is the oldest archgen that reads it as meant. A
    running version's pre-release or local suffix (`0.2.0.dev1`, `0.2.0+g1a2b`) counts as its release.
    """
    if REQUIRES not in doc.data:
        return doc, [], None
    value = doc.data[REQUIRES]
    rest = replace(doc, data={k: v for k, v in doc.data.items() if k != REQUIRES})
    where = doc.locate((REQUIRES,))
    form = _AT_LEAST.fullmatch(value.strip()) if isinstance(value, str) else None
    if form is None:
        return rest, [SpecProblem(where, REQUIRES, "not a version requirement", value, "'>=X.Y.Z' (quoted), the "
                                  f"oldest archgen the spec is written for, e.g. '>={version}'")], None
    need = (int(form[1]), int(form[2]), int(form[3]))
    if release(version) >= need:
        return rest, [], StatedVersion(where, doc.id, ".".join(map(str, need)))
    shown = ".".join(map(str, need))
    return rest, [SpecProblem(where, REQUIRES, f"this spec requires archgen {shown} or later; this is archgen "
                              f"{version}", hint=f"install archgen {shown} or later (a spec read by an older archgen "
                              "would take defaults it predates; docs/upgrading.md)")], None


def _metric_values(node: object, at: Path = ()) -> Iterator[Path]:
    """The path of every `metric:` key under `node` whose value is a renamed metric's old name."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if key == "metric" and isinstance(value, str) and value in RENAMED_METRICS:
            yield (*at, key)
        else:
            yield from _metric_values(value, (*at, key))


def _matches(node: object, old: list[str], new: list[str], at: Path = (), items: tuple[int, ...] = ()
             ) -> Iterator[tuple[Path, Path]]:
    """(old path, new path) of every place `old` occurs under `node`, list indices in place of each '*'."""
    if not old:
        rest = iter(items)
        yield at, tuple(next(rest) if part == "*" else part for part in new)
        return
    head = old[0]
    if head == "*":
        if isinstance(node, list):
            for i, item in enumerate(node):
                yield from _matches(item, old[1:], new, (*at, i), (*items, i))
    elif isinstance(node, dict) and head in node:
        yield from _matches(node[head], old[1:], new, (*at, head), items)


def _at(data: object, path: Path) -> Any:
    node: Any = data
    for step in path:
        node = node[step]
    return node


def _has(data: object, path: Path) -> bool:
    node: Any = data
    for step in path:
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            return False
    return True


def _room(data: object, path: Path) -> bool:
    """Whether every step above the new key is a mapping, or absent (a scalar there leaves no place for it)."""
    node: Any = data
    for step in path[:-1]:
        if isinstance(node, list) and isinstance(step, int):
            node = node[step]
        elif isinstance(node, dict):
            if step not in node:
                return True
            node = node[step]
        else:
            return False
    return isinstance(node, dict)


def _put(data: dict[str, Any], path: Path, value: object) -> None:
    node: Any = data
    for step in path[:-1]:
        node = node[step] if isinstance(step, int) else node.setdefault(step, {})
    node[path[-1]] = value


def _dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)
