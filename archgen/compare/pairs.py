"""`archgen diff --pair BASE_ID=HEAD_ID`: an object of HEAD compared as an object of BASE that bears another id.

A vendor answering our RFQ names its racks and clusters its own way (`odm-gb300-nvl72` for our `gb300-nvl72`): the
diff matched objects by path, so every object of the proposal was added, every one of ours removed, and our
requirements read "absent" on the proposal's side (newuser84). A pair renames HEAD's object paths to BASE's where
a path's id (each part after a kind: `rack/<id>`, `cluster/<id>/fabric/<id>`) is the pair's HEAD id, before the two
runs are compared; the report names the pairs. An id no object of its side bears is a `UsageError` that lists the
ids that side has; an object path given for one (`rack/<id>`) is told the id it holds. Several pairs may be kept in
a file, `--pairs FILE` (`read_pairs`): one mapping, `pairs:`, of BASE (our, the reference's) id to HEAD (the
vendor's, the proposal's) id.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

import yaml

from archgen.errors import Location, UsageError
from archgen.yaml_guard import read_text

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


def read_pairs(path: Path, form: str = "BASE_ID=HEAD_ID") -> list[str]:
    """The pairs of a `--pairs` file as `--pair` arguments (`form`), in the file's order.

    The file is one mapping, `pairs:`, of BASE id to HEAD id (`gb300-nvl72: odm-gb300-nvl72`); anything else is a
    `UsageError` at its file:line:column, saying what was expected.
    """
    name = str(path)
    base, head = form.split("=")
    expected = f"a mapping 'pairs:' of {base} to {head}, e.g. 'pairs: {{gb300-nvl72: odm-gb300-nvl72}}'"

    def at(node: yaml.Node | None) -> Location:
        mark = node.start_mark if node is not None else None
        return Location(name, mark.line + 1, mark.column + 1) if mark is not None else Location(name)

    try:
        root = yaml.compose(read_text(path), Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = Location(name, mark.line + 1, mark.column + 1) if mark is not None else Location(name)
        raise UsageError(f"--pairs: not YAML ({getattr(exc, 'problem', None) or exc}); expected {expected}",
                         where) from None
    keys = [k.value for k, _ in root.value] if isinstance(root, yaml.MappingNode) else []
    if keys != ["pairs"] or not isinstance(root.value[0][1], yaml.MappingNode):
        node = root.value[0][1] if keys == ["pairs"] else root
        raise UsageError(f"--pairs: expected {expected}" + (f", got key(s) {', '.join(map(str, keys))}"
                                                             if keys and keys != ["pairs"] else ""), at(node))
    out, seen = [], set()
    for k, v in root.value[0][1].value:
        for node in (k, v):
            if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip() or "=" in str(node.value):
                raise UsageError(f"--pairs: expected an id on each side of a pair, as '{base}: {head}'", at(node))
        if k.value in seen:
            raise UsageError(f"--pairs: {base} '{k.value}' is paired twice; pair each id once", at(k))
        seen.add(k.value)
        out.append(f"{k.value}={v.value}")
    return out


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
            if one not in known[side] and "/" in one and (tail := one.rsplit("/", 1)[-1]) in known[side]:
                # an object path, as the reports print them (newuser101: rack/gb200-nvl72 met a list of 180 ids)
                raise UsageError(f"--pair {b}={h}: '{one}' is an object path; a pair names ids: '{tail}'")
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
