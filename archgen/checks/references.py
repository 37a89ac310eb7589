"""REF: references between specs resolve to documents of the right kind."""

from __future__ import annotations

import re
from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.errors import a_or_an, did_you_mean
from archgen.validate import CATALOG_KINDS


@check("REF001", "references.unknown")
def unknown_reference(ctx: Context) -> Iterator[Violation]:
    """A reference names no document.

    The "did you mean" looks at the ids of the kind expected in the specs and the whole shipped library (models and
    racks a design does not use yet); with no close id the message names the command that lists the ids of that
    kind.

    Fix: correct the id, or add the part to the catalog (`archgen catalog list --kind <Kind>` shows the ids); a
    waiver of REF001 is refused, since the objects that hold the reference are analysed without it.
    """
    specs = ctx.design.specs
    kind_of = {**{k: d.kind for k, (d, _) in specs.shelf.items()}, **{k: d.kind for k, d in specs.items.items()}}
    for u in ctx.design.unresolved:
        if not u.found:
            expected = re.split(r", | or ", u.expected)
            kinds = [k for k in expected if k in CATALOG_KINDS]
            known = sorted(k for k, kind in kind_of.items() if kind in expected)  # an id of the kind wanted
            hint = did_you_mean(u.ref, known, lead="; ") or \
                (f"; `archgen catalog list --kind {kinds[0]}` lists the ids" if kinds else "")
            yield Violation(u.subject, u.owner, u.path,
                            f"'{u.ref}' names no document (expected {a_or_an(u.expected)}){hint}")


@check("REF002", "references.kind")
def wrong_kind(ctx: Context) -> Iterator[Violation]:
    """A reference names a document of the wrong kind.

    Fix: point the reference at a document of the kind the field expects; a waiver of REF002 is refused.
    """
    for u in ctx.design.unresolved:
        if u.found:
            yield Violation(u.subject, u.owner, u.path,
                            f"'{u.ref}' is {a_or_an(u.found)}, expected {a_or_an(u.expected)}")
