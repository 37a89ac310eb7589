"""`archgen diff --pair BASE_ID=HEAD_ID`: an object of HEAD compared as an object of BASE that bears another id.

A vendor answering our RFQ names its racks and clusters its own way (`odm-gb300-nvl72` for our `gb300-nvl72`): the
diff matched objects by path, so every object of the proposal was added, every one of ours removed, and our
requirements read "absent" on the proposal's side (newuser84). A pair renames HEAD's object paths to BASE's where
a path's id (each part after a kind: `rack/<id>`, `cluster/<id>/fabric/<id>`) is the pair's HEAD id, before the two
runs are compared; the report names the pairs. An id no object of its side bears is a `UsageError` that lists the
ids that side has.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from archgen.errors import UsageError

Pairs = tuple[tuple[str, str], ...]


def parse_pairs(given: Iterable[str], form: str = "BASE_ID=HEAD_ID") -> Pairs:
    """`--pair` arguments as (BASE id, HEAD id), each `BASE_ID=HEAD_ID` (`form`), in the order given, each once."""
    out: dict[tuple[str, str], None] = {}
    for arg in given:
        base, eq, head = arg.partition("=")
        if not eq or not base.strip() or not head.strip() or "=" in head:
            raise UsageError(f"--pair {arg}: expected {form}, e.g. --pair gb300-nvl72=odm-gb300-nvl72")
        out[(base.strip(), head.strip())] = None
    return tuple(out)


def ids(paths: Collection[str]) -> set[str]:
    """The ids the object paths bear: each part after a kind (`rack/x` → x; `cluster/c/fabric/f` → c and f)."""
    return {part for p in paths for part in p.split("/")[1::2]}


def renamer(pairs: Pairs, base: Collection[str], head: Collection[str],
            sides: tuple[str, str] = ("BASE", "HEAD")) -> Callable[[str], str]:
    """The function naming a HEAD object path as BASE names it; each pair's ids checked against the sides' objects.

    `sides`: the two sides' names in an error (`gap --reference`: REFERENCE and PROPOSAL).
    """
    known = {sides[0]: ids(base), sides[1]: ids(head)}
    heads = [h for _, h in pairs]
    for b, h in pairs:
        for side, one in ((sides[0], b), (sides[1], h)):
            if one not in known[side]:
                raise UsageError(f"--pair {b}={h}: {side} has no object '{one}'; its ids: "
                                 + ", ".join(sorted(known[side])))
        if heads.count(h) > 1:
            raise UsageError(f"--pair {b}={h}: {sides[1]}'s '{h}' is paired twice; pair each id once")
    to_base = {h: b for b, h in pairs}

    def rename(path: str) -> str:
        parts = path.split("/")
        return "/".join(to_base.get(part, part) if i % 2 else part for i, part in enumerate(parts))
    return rename


def pairs_json(pairs: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The pairs as the JSON report gives them."""
    return [{"base": b, "head": h} for b, h in pairs]
