"""Requirements bound to the objects they judge: a subject, or every object a glob subject matches (`build`).

A rack's requirements bind to the rack, a cluster's to the cluster or (by `subject`) its fabrics, a `Requirements`
document's to its subjects, and a workload's own to the workload (`workload/<id>`): `build` binds them all, and the
pipeline judges a workload's (`perf.workload.results.judge_workloads`) where the REQ checks judge the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from archgen.model.requirements import Requirement
from archgen.model.workload import Workload


@dataclass(frozen=True)
class BoundRequirement:
    """A requirement with the object it applies to and where it is written.

    A requirement whose subject is a glob (`pattern`, e.g. ``rack/*``) is bound once per object it matches; one that
    matches nothing is kept once with an empty `subject`, for REQ002.
    """

    req: Requirement
    subject: str
    owner: str
    path: tuple
    pattern: str = ""


def is_pattern(subject: str) -> bool:
    """Whether a requirement's subject is a glob (``*``, ``?`` or ``[...]``; ids never contain these)."""
    return any(c in subject for c in "*?[")


def matches(pattern: str, path: str) -> bool:
    """Whether an object path matches a glob, segment by segment.

    ``*`` does not cross ``/``, as in a shell: ``rack/*`` matches ``rack/a``, ``cluster/*`` matches ``cluster/c`` but
    not its fabric ``cluster/c/fabric/f``, and ``cluster/*/fabric/*`` matches every fabric. Case-sensitive.
    """
    parts, names = pattern.split("/"), path.split("/")
    return len(parts) == len(names) and all(fnmatchcase(n, p) for p, n in zip(parts, names, strict=True))


def bind(req: Requirement, subject: str, owner: str, path: tuple, objects: tuple[str, ...]) -> list[BoundRequirement]:
    """The requirement bound to its subject, or to every object its glob matches (or once, unmatched)."""
    if not is_pattern(subject):
        return [BoundRequirement(req, subject, owner, path)]
    found = [o for o in objects if matches(subject, o)]
    return [BoundRequirement(req, o, owner, path, subject) for o in found] or [
        BoundRequirement(req, "", owner, path, subject)]


def workload_requirements(workloads: Iterable[Workload]) -> tuple[BoundRequirement, ...]:
    """Each workload's own requirements, bound to it (`workload/<id>`) where it writes them (`requirements`, i)."""
    return tuple(BoundRequirement(q, f"workload/{w.id}", w.id, ("requirements", i))
                 for w in workloads for i, q in enumerate(w.requirements))
