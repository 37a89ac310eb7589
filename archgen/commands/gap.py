"""`archgen gap PROPOSAL --against REQUIREMENTS`: the proposal and our requirements run together and judged."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

from archgen.as_of import AsOf, given
from archgen.commands.common import REPORT_FORMATS
from archgen.commands.render import foreign_requirements
from archgen.compare.gap import Gap, judge_proposal, merge
from archgen.compare.pairs import Pairs, parse_pairs, read_pairs, renamer
from archgen.errors import UsageError
from archgen.load import find_files, load_paths, shipped_catalog
from archgen.output import gap as output
from archgen.pipeline import run
from archgen.render import AUDIENCES


def report(proposal: Sequence[str | Path], against: Sequence[str | Path], fmt: str = "md",
           audience: str = "internal", as_of: str | None = None, reference: Sequence[str | Path] = (),
           pair: Sequence[str] = (), pairs_file: Path | None = None) -> tuple[str, int]:
    """The gap report in `fmt` for `audience`; exit code 1 when a SHALL requirement fails or the proposal errs.

    `pair`: `--pair REFERENCE_ID=PROPOSAL_ID` arguments; `pairs_file`: `--pairs FILE`, read before them.

    The customer `audience` names no path of ours (`output.gap`); the proposal has error findings when it errs.
    """
    if fmt not in REPORT_FORMATS:
        raise UsageError(f"unknown format '{fmt}'; expected md or json")
    if audience not in AUDIENCES:
        raise UsageError(f"unknown audience '{audience}'; expected {' or '.join(AUDIENCES)}")
    form = "REFERENCE_ID=PROPOSAL_ID"
    pairs = parse_pairs((*(read_pairs(pairs_file, form) if pairs_file else ()), *pair), form)
    if pairs and not reference:
        raise UsageError("--pair needs --reference: it pairs an id of the reference design with one of the proposal")
    result = gap(proposal, against, given(as_of), reference, pairs)
    text = output.to_json(result, audience) if fmt == "json" else output.markdown(result, audience)
    return text, 1 if result.failing else 0


#: The kinds `--against` takes: our requirements, and our site (the hall every proposal is to stand in).
AGAINST_KINDS = ("Requirements", "Facility")


def gap(proposal: Sequence[str | Path], against: Sequence[str | Path], as_of: AsOf | None = None,
        reference: Sequence[str | Path] = (), pairs: Pairs = ()) -> Gap:
    """Run the proposal with our requirements and judge every requirement on the proposal's objects.

    `against` holds our `Requirements` documents and, where a site is ours, its `Facility` (`AGAINST_KINDS`); racks,
    clusters and parts go into `proposal`; a file under both belongs to `against`. Each PROPOSAL path that holds a
    cluster is a design of its own (`designs`): it runs with the paths that hold none (shared parts) and `against`,
    so two vendors' folders that each override the same library facility do not collide, and one's requirements
    never judge the other's objects; the reports are merged (`compare.gap.merge`). A missing path, no Requirements
    document, another kind among them, or a proposal without spec files is a `UsageError`; unreadable YAML raises
    `UnreadableError`, and schema errors in either side `ValidateError`, as in `archgen check`.
    """
    ours = find_files(against)
    if not ours:
        raise UsageError(f"--against {_names(against)}: no .yaml/.yml files")
    docs = load_paths(ours)
    others = [d for d in docs if d.kind not in AGAINST_KINDS]
    if others:
        d = others[0]
        raise UsageError(f"--against takes only Requirements documents and our site's Facility, found kind "
                         f"'{d.kind}' (id '{d.id}'); give racks, clusters and parts as PROPOSAL", d.locate(("kind",)))
    owners = {d.id for d in docs if d.kind == "Requirements"}
    if not owners:
        raise UsageError(f"--against {_names(against)}: no Requirements document")
    mine = {f.resolve() for f in ours}
    given = find_files(proposal)
    theirs = [f for f in given if f.resolve() not in mine]
    if not theirs:
        raise UsageError(f"{_names(proposal)}: " + (
            "no .yaml/.yml files in the proposal" if not given else
            f"every spec file of the proposal is also under --against {_names(against)}, which holds our "
            "requirements; give the vendor's racks, clusters and parts as PROPOSAL"))
    parts = []
    for paths, files in designs(proposal, mine):
        result = run([*_unwalked(files, proposal), *ours], as_of=as_of, proposals=[*paths, *against])
        judged = judge_proposal(result, owners, {f.resolve() for f in files},
                                tuple(str(p) for p in proposal), tuple(str(p) for p in against),
                                written_for=mine & {f.resolve() for f in given})   # ours under PROPOSAL: our design
        # a proposal's own requirements (not ours) whose globs reach another path's objects: say so, as render does
        notes = foreign_requirements(result, [Path(p) for p in paths], skip=frozenset(mine), given="PROPOSAL",
                                     advice="run gap on each proposal on its own to keep them apart")
        parts.append((replace(judged, notes=(*judged.notes, *notes)), frozenset(result.metrics)))
    merged = merge(parts)
    return with_reference(merged, gap(reference, against, as_of), pairs) if reference else merged


def with_reference(g: Gap, ref: Gap, pairs: Pairs = ()) -> Gap:
    """`g` with each row's `reference`: the reference design's value for the same requirement and object.

    `ref` is the reference design judged against the same requirements (`--reference`). A row pairs with the
    reference's row of the same requirement id and object path, the proposal's ids named as the reference names
    them (`pairs`: (reference id, proposal id), `compare.pairs.renamer`, as `diff --pair`), newuser84.
    """
    alias = renamer(pairs, {*ref.objects, *(r.subject for r in ref.rows)},   # a library rack is judged, not held
                    {*g.objects, *(r.subject for r in g.rows)}, ("REFERENCE", "PROPOSAL"))
    values = {(r.requirement.id, r.subject): r.value for r in ref.rows}
    rows = tuple(replace(r, reference=values.get((r.requirement.id, alias(r.subject)))) for r in g.rows)
    return replace(g, rows=rows, reference=ref.proposal)


def designs(proposal: Sequence[str | Path], mine: Collection[Path]) -> list[tuple[list[str | Path], list[Path]]]:
    """The designs the PROPOSAL paths make: (their paths, their spec files less `mine`), each run on its own.

    Each path that holds a Cluster document is a design of its own, with every path that holds none (shared parts, a
    hall given as PROPOSAL); where at most one path holds a cluster, all paths are one design, as `check` reads them.
    """
    files = {p: [f for f in find_files([p]) if f.resolve() not in mine] for p in proposal}
    held = [p for p, fs in files.items() if any(d.kind == "Cluster" for d in load_paths(fs, found=True))]
    if len(held) < 2:
        return [(list(proposal), _once([f for fs in files.values() for f in fs]))]
    shared = [p for p in proposal if p not in held]
    return [([p, *shared], _once([*files[p], *(f for q in shared for f in files[q])])) for p in held]


def _once(files: list[Path]) -> list[Path]:
    """`files`, each once (a file under two paths given)."""
    return list({f.resolve(): f for f in reversed(files)}.values())[::-1]


def _unwalked(files: list[Path], proposal: Sequence[str | Path]) -> list[Path]:
    """`files` less those of the shipped catalog reached by walking a folder above it (`specs/`).

    Those are the library's, which `pipeline.load` adds as it does for `archgen check specs/` (a library rack or
    model joins only where a spec names it). A proposal path inside the catalog keeps its files.
    """
    catalog = shipped_catalog().resolve()
    inside = [Path(p).resolve() for p in proposal if Path(p).resolve().is_relative_to(catalog)]
    return [f for f in files if not f.resolve().is_relative_to(catalog)
            or any(f.resolve().is_relative_to(n) for n in inside)]


def _names(paths: Sequence[str | Path]) -> str:
    return " ".join(str(p) for p in paths)
