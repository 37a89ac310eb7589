"""References between documents resolved, and those that name no document or one of the wrong kind.

`resolve` is the one lookup every binding of `archgen.build` goes through: a reference that does not resolve is kept
as an `Unresolved` for the REF checks (`checks.references`) and the cascade that silences what follows from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.validate import D, Specs


@dataclass(frozen=True)
class Unresolved:
    """A reference that names no document, or one of the wrong kind."""

    subject: str
    owner: str
    ref: str
    path: tuple
    expected: str
    found: str = ""


def resolve(specs: Specs, owner: str, ref: str | None, kinds: tuple[type[D], ...], path: tuple,
            unresolved: list[Unresolved], subject: str = "") -> D | None:
    """The document `ref` names if it is one of `kinds`; else None, and an `Unresolved` (at `path` of `owner`) added."""
    if ref is None:
        return None
    found = specs.get(ref)
    if isinstance(found, kinds):
        return found
    names = [k.__name__ for k in kinds]
    expected = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    unresolved.append(Unresolved(subject or f"part/{owner}", owner, ref, path, expected,
                                 type(found).__name__ if found else ""))
    return None
