"""REF: references between specs resolve to documents of the right kind."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.errors import a_or_an, did_you_mean


@check("REF001", "references.unknown")
def unknown_reference(ctx: Context) -> Iterator[Violation]:
    """A reference names no document.

    Fix: correct the id, or add the part to the catalog (`archgen catalog list` shows the ids).
    """
    known = sorted(ctx.design.specs.items)
    for u in ctx.design.unresolved:
        if not u.found:
            yield Violation(u.subject, u.owner, u.path, f"'{u.ref}' names no document (expected {a_or_an(u.expected)})"
                                                        f"{did_you_mean(u.ref, known, lead='; ')}")


@check("REF002", "references.kind")
def wrong_kind(ctx: Context) -> Iterator[Violation]:
    """A reference names a document of the wrong kind.

    Fix: point the reference at a document of the kind the field expects.
    """
    for u in ctx.design.unresolved:
        if u.found:
            yield Violation(u.subject, u.owner, u.path,
                            f"'{u.ref}' is {a_or_an(u.found)}, expected {a_or_an(u.expected)}")
