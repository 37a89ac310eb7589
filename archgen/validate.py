"""Raw documents → typed, frozen models; every problem mapped to file:line:col, all collected, raised once."""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import ValidationError

from archgen.cache import Memo
from archgen.errors import Location, SpecProblem, UsageError, ValidateError, did_you_mean
from archgen.load import SourceDocument as Source
from archgen.load import shared
from archgen.migrate import RenamedKey, StatedVersion, migrate, required
from archgen.model import KINDS, Document, Facility, Part, core_schemas
from archgen.model.rack import unconfirmed_figures
from archgen.model.system import with_nic_power
from archgen.startup import resume_gc
from archgen.validation_problems import problems_from

#: A kind of document: what `entry`, `in_code.document` and `build.refs.resolve` return is of the kind they are given.
D = TypeVar("D", bound=Document)


@dataclass(frozen=True)
class Specs:
    """Every validated document by id, with the source each came from."""

    items: Mapping[str, Document]
    sources: Mapping[str, Source]
    #: The library's models and racks no spec names (`LIBRARY_KINDS`): validated and listed, never analysed.
    shelf: Mapping[str, tuple[Document, Source]] = field(default_factory=dict)
    renamed: tuple[RenamedKey, ...] = ()  # keys given under a name since renamed (`model.renamed`): SPC003
    #: The folders they were loaded from, resolved (`spec_files.roots`): a proposal each (`analyse.price_scope`).
    roots: tuple[str, ...] = ()
    #: The shipped catalog's document that a spec document of the same id replaced, by id (CAT007 compares them).
    replaced: Mapping[str, Source] = field(default_factory=dict)
    #: The archgen each document states it was written for (`requires_archgen`): SPC005 names defaults moved since.
    versions: tuple[StatedVersion, ...] = ()
    #: The ids of the shipped catalog's documents among the items, those no spec document replaced (CAT014 bounds a
    #: part's figures by the catalog's largest).
    library: frozenset[str] = frozenset()

    def get(self, ref: str) -> Document | None:
        """The document with id `ref`, or None."""
        return self.items.get(ref)

    def entry(self, ref: str, kind: type[D] = Document) -> D:  # type: ignore[assignment]
        """The document `ref` of `kind` (a model class: `Accelerator`, `Model`, ...), the shelf's library included.

        The one look-up for a caller holding the specs (a notebook, `archgen estimate`): an id that names nothing of
        that kind is a `UsageError` with "did you mean" and the ids of the kind (`entry`), not a `KeyError`.
        """
        return entry({**{k: d for k, (d, _) in self.shelf.items()}, **self.items}, ref, kind)

    #: `of`'s answers by class: the items are never changed once validated, and a pipeline run asked for the same
    #: classes some 40 times, each sorting and testing every document again (about 5 % of a check case's run, pipe31).
    #: Every item, sorted once, is kept as `object`'s answer, which each class's filters (fuzzpipe37).
    _of: dict[type, tuple[Document, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def of(self, cls: type) -> list:
        """All documents of a model class, sorted by id (a new list each call)."""
        known = self._of.get(cls)
        if known is None:
            every = self._of.get(object)
            if every is None:
                every = self._of[object] = tuple(d for _, d in sorted(self.items.items()))
            fits = {t: issubclass(t, cls) for t in set(map(type, every))}  # a few classes, not every item
            known = self._of[cls] = tuple(d for d in every if fits[type(d)])
        return list(known)

    def locate(self, ref: str, path: Iterable[str | int] = ()) -> Location | None:
        """Source location of a field of document `ref` (the deepest existing prefix of `path`)."""
        src = self.sources.get(ref)
        return src.locate(tuple(path)) if src else None

    def place(self, subject: str) -> Location | None:
        """Where object `subject` is stated (a document's start, a fabric's entry in its cluster); None for no document.

        A requirement's findings name it beside the requirement's own place (`Finding.judged`: SARIF, newuser107).
        """
        kind, _, rest = subject.partition("/")
        doc_id, _, fabric = rest.partition("/fabric/")
        doc = self.items.get(doc_id)
        if doc is None or type(doc).__name__.lower() != kind:
            return None
        fabrics = [f.id for f in getattr(doc, "fabrics", ())]
        return self.locate(doc_id, ("fabrics", fabrics.index(fabric)) if fabric in fabrics else ())

    def key(self, ref: str, path: Sequence[str | int] = ()) -> str:
        """A field of document `ref` as a key path that no unrelated edit moves (`load.SourceDocument.key`)."""
        src = self.sources.get(ref)
        return src.key(tuple(path)) if src else ".".join(str(p) for p in path)


def entry(items: Mapping[str, Document], ref: str, kind: type[D] = Document) -> D:  # type: ignore[assignment]
    """The document `ref` of `kind` in `items`, or a `UsageError` naming the ids of that kind with "did you mean".

    `kind` must be a document class (`Accelerator`, `Model`, ...): None or a kind's name is a `UsageError` too.
    """
    if not (isinstance(kind, type) and issubclass(kind, Document)):
        raise UsageError(f"entry: kind: expected a document class such as Accelerator or Model (from archgen.model), "
                         f"got {type(kind).__name__} {kind!r}")
    found = items.get(ref) if isinstance(ref, str) else None   # a list or None names no document (not a TypeError)
    if isinstance(found, kind):
        return found
    ids = sorted(k for k, v in items.items() if isinstance(v, kind))
    name = "document" if kind is Document else kind.__name__.lower()
    raise UsageError(f"no {name} '{ref}' in the specs{did_you_mean(ref, ids, lead='; ')} "
                     f"({name}s: {', '.join(ids) or 'none'})")


#: Kinds of the shipped library (`specs/catalog/models/`, `specs/catalog/racks/`) that join a design only when one
#: of its documents names them: a catalog rack is analysed, and a model estimated, only where a spec uses it.
LIBRARY_KINDS = ("Model", "Rack")

#: Kinds the catalog ships beside its parts, facilities and library: the published failure-rate sets a cluster
#: names in `failure_rates` (`specs/catalog/reliability/`; newuser103: `catalog show` gave one, `catalog list`
#: refused the kind, so choosing a set meant reading the files).
RATE_KINDS = ("FailureRates",)

#: Kinds `archgen catalog` lists: every part kind, facilities, which ship in the catalog like parts, the library and
#: the rate sets.
CATALOG_KINDS = tuple(sorted(name for name, cls in KINDS.items() if issubclass(cls, Part | Facility)
                             or name in LIBRARY_KINDS + RATE_KINDS))


def catalog_entries(specs: Specs, vendors: Iterable[str] = (), kinds: Iterable[str] = (),
                    unconfirmed: bool = False, asics: Iterable[str] = ()) -> list[Document]:
    """The parts, facilities, models, racks and rate sets of `specs` and its shelf (by id) of the vendors, kinds, ASICs.

    They come from any of `vendors`, are of any of `kinds` and are built on any of `asics`.
    Vendors and kinds match case-insensitively; an empty selection keeps all. One that names no vendor of any entry
    or no catalog kind is a usage error with "did you mean". An ASIC ("Tomahawk 5", "spectrum-4") matches the
    entries whose `asic` holds it as whole words (so "Spectrum" is not "Spectrum-4"); one that matches none is a
    usage error naming the ASICs there are. `unconfirmed` keeps only entries with unconfirmed figures.
    """
    entries = sorted([d for d in specs.of(Document) if isinstance(d, Part | Facility)
                      or d.kind in LIBRARY_KINDS + RATE_KINDS]
                     + [d for d, _ in specs.shelf.values()], key=lambda d: d.id)
    known_vendors = sorted({v for d in entries if (v := getattr(d, "vendor", ""))})
    want_vendors = {_known(v, known_vendors, "vendor") for v in vendors}
    want_kinds = {_known(k, CATALOG_KINDS, "kind") for k in kinds}
    chips = [_asic(a, sorted({c for d in entries if (c := getattr(d, "asic", ""))})) for a in asics]
    return [d for d in entries
            if (not want_vendors or getattr(d, "vendor", "").lower() in want_vendors)
            and (not want_kinds or d.kind.lower() in want_kinds)
            and (not chips or any(c.search(getattr(d, "asic", "")) for c in chips))
            and (not unconfirmed or unconfirmed_figures(d))]


def _asic(name: str, known: list[str]) -> re.Pattern[str]:
    """A whole-word, case-insensitive pattern for an ASIC name; one that no entry's `asic` holds is a usage error."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name.strip())}(?![\w-])", re.IGNORECASE)
    if not name.strip() or not any(pattern.search(k) for k in known):
        hint = did_you_mean(name, known, cutoff=0.4, lead="; ") or f"; the catalog's: {'; '.join(known)}"
        raise UsageError(f"no catalog part has ASIC '{name}'{hint}")
    return pattern


def _known(name: str, known: Iterable[str], what: str) -> str:
    """`name` lower-cased when it is one of `known` (case-insensitively), else a usage error naming them."""
    by_lower = {k.lower(): k for k in known}
    if name.lower() in by_lower:
        return name.lower()
    hint = did_you_mean(name, known, lead="; ") or f"; one of: {', '.join(known)}"
    raise UsageError(f"no catalog {what} '{name}'{hint}")


def validate(docs: list[Source], library: Sequence[Source] = ()) -> Specs:
    """Validate user documents and the shipped `library` catalog; user ids shadow library ids."""
    items: dict[str, Document] = {}
    sources: dict[str, Source] = {}
    problems: list[SpecProblem] = []
    user_ids = {d.id for d in docs}
    every = [d for d in library if d.id not in user_ids] + list(docs)
    unused = {id(d) for d in _unused_library(every, {id(d) for d in library})}
    core_schemas.build({KINDS[k] for d in every if isinstance(k := d.data.get("kind"), str) and k in KINDS})
    shelf: dict[str, tuple[Document, Source]] = {}
    renamed: list[RenamedKey] = []
    versions: list[StatedVersion] = []
    read = _library_read(library)
    model: Document | None
    for raw in every:
        if (known := read.get(id(raw))) is not None:   # as the branch below reads it, read before
            doc, stated, model, same = known
            versions.extend([stated] if stated else [])
            raw = raw if same else doc
        else:
            raw, too_new, stated = required(raw)  # `requires_archgen` off; an error where this archgen is older
            problems.extend(too_new)
            versions.extend([stated] if stated else [])
            if too_new:
                continue
            doc, moved, twice = migrate(raw)      # renamed keys under their new names (a warning each)
            renamed.extend(moved)
            problems.extend(twice)
            model = None if twice else _validate_one(doc, problems)
            if model is None:
                continue
        if id(raw) in unused:
            shelf.setdefault(model.id, (model, doc))
            continue
        if model.id in items:
            first = sources[model.id].locate(("id",))
            problems.append(SpecProblem(doc.locate(("id",)), "id", f"duplicate id '{model.id}'",
                                        hint=f"already defined at {first}; ids must be unique across all specs"))
            continue
        items[model.id], sources[model.id] = model, doc
    if problems:
        raise ValidateError(problems)
    resume_gc()  # a command's start-up ends here: the collector back on (`archgen.startup`)
    return Specs(with_nic_power(items), sources, {k: v for k, v in shelf.items() if k not in items}, tuple(renamed),
                 replaced={d.id: d for d in library if d.id in user_ids and d.id in items},
                 versions=tuple(v for v in versions if v.owner in items),
                 library=frozenset(d.id for d in library if d.id not in user_ids and d.id in items))


def scoped(specs: Specs, cluster: str) -> Specs:
    """`specs` less the clusters, racks, halls, workloads and sweeps that cannot change cluster `cluster`'s findings.

    What is left analyses and checks the cluster as the whole specs do (a sweep's fabric axis runs it at each level,
    `commands.sweep_fabric`). The references are the names `_unused_library` follows (an id among a document's
    string values). Joined are the cluster and, in turn, each cluster, rack or hall (`Facility`) that names one
    joined or that one joined names: the racks it places and the other clusters placing them (a rack's optics are
    every cluster's), its halls and the clusters standing in them or listed as `deployed` (a hall's headrooms and
    totals are theirs); halls naming one utility connection (`feeds.shared_utility.id`, the halls' own id: PWR011
    sums them) join as if they named each other. Kept with them: the workloads that run on the cluster (its
    checkpoints, storage and jobs' power are theirs), each sweep all of whose clusters and workloads are kept, and
    every part, model, failure-rate set, requirement and price list (each read alone, by what names it). A document
    with no source (made in code, its names unknown) is kept.
    """
    from archgen.model import Cluster, Rack, Sweep, Workload
    joins = (Cluster, Rack, Facility)
    names = {i: ((_names([specs.sources[i]]) & specs.items.keys()) - {i}) | _connection(d)
             for i, d in specs.items.items()
             if isinstance(d, (*joins, Workload, Sweep)) and i in specs.sources}   # one with no source: kept
    named_by: dict[str, set[str]] = {}
    for i, them in names.items():
        for n in them:
            named_by.setdefault(n, set()).add(i)
    joined, todo = {cluster}, [cluster]
    while todo:
        i = todo.pop()
        for j in names.get(i, set()) | named_by.get(i, set()):
            if j not in joined and (j not in specs.items or isinstance(specs.items[j], joins)):   # or a connection
                joined.add(j)
                todo.append(j)
    joined |= {i for i in named_by.get(cluster, ()) if isinstance(specs.items[i], Workload)}
    kept = {i for i, d in specs.items.items() if i not in names or i in joined
            or isinstance(d, Sweep) and all(n in joined or n not in names for n in names[i])}
    return Specs({i: d for i, d in specs.items.items() if i in kept},
                 {i: s for i, s in specs.sources.items() if i in kept},
                 specs.shelf, tuple(r for r in specs.renamed if r.owner in kept), specs.roots,
                 {i: s for i, s in specs.replaced.items() if i in kept},
                 tuple(v for v in specs.versions if v.owner in kept), specs.library & kept)


def _connection(doc: Document) -> set[str]:
    """The utility connection a hall shares with others (`scoped`), as a name no document id can be; else none."""
    shared = doc.feeds.shared_utility if isinstance(doc, Facility) and doc.feeds is not None else None
    return {f"utility connection {shared.id}"} if shared is not None else set()


#: `_library_read`'s answers, by the library's documents (their `id()`s, and the documents themselves kept).
LIBRARY = Memo[tuple[tuple[Source, ...], dict[int, tuple[Source, StatedVersion | None, Document, bool]]]](8)


def _library_read(library: Sequence[Source]) -> dict[int, tuple[Source, StatedVersion | None, Document, bool]]:
    """What `validate` reads of each of the library's documents, by its `id()`, where all are loaded ones (`shared`).

    For each: the document as validated (`required`, then `migrate`), the version it states, its model, and whether
    the first is the loaded one itself. Empty where any is not loaded (no one can tell whether it changed) or reads
    with a problem or a renamed key (those are found afresh, located as before). The catalog's ~100 documents are
    the same objects in every run of a process: each run asked four memos for each of them (fuzzpipe37).
    """
    key = tuple(map(id, library))
    known = LIBRARY.get(key)
    if known is not None and all(map(operator.is_, known[0], library)):
        return known[1]
    if not all(map(shared, library)):
        return {}
    out = {}
    for loaded in library:
        raw, too_new, stated = required(loaded)
        doc, moved, twice = migrate(raw) if not too_new else (raw, [], [])
        found: list[SpecProblem] = []
        model = None if too_new or moved or twice else _validate_one(doc, found)
        if model is None or found:
            return {}
        out[id(loaded)] = (doc, stated, model, raw is loaded)
    return LIBRARY.put(key, (tuple(library), out))[1]


def _unused_library(docs: list[Source], library: set[int]) -> list[Source]:
    """The library's documents (`id()`s in `library`) of `LIBRARY_KINDS` that no other document names.

    Names are followed: a library document that a spec names counts its own names in turn.
    A document names an id when the id is one of its string values (`model: llama3-70b`, `{rack: gb300-nvl72}`);
    a library document named joins the design, and what it names in turn (a rack's parts are always there).
    """
    lazy = [d for d in docs if d.kind in LIBRARY_KINDS and id(d) in library]
    waiting = {id(d) for d in lazy}
    rest = [d for d in docs if id(d) not in waiting]
    named = set(_names([d for d in rest if id(d) in library])).union(
        *(_names([d]) for d in rest if id(d) not in library))
    while used := [d for d in lazy if d.id in named]:
        lazy = [d for d in lazy if d.id not in named]
        named |= _names(used)
    return lazy


def _names(docs: list[Source]) -> frozenset[str]:
    """`_strings` of the documents' data together, kept in `NAMES` where all are loaded ones (`load.shared`).

    No one changes a loaded document; the library's documents that are not waiting to be named are asked as one group.
    """
    key = tuple(map(id, docs))
    known = NAMES.get(key)
    if known is not None and all(map(operator.is_, known[0], docs)):   # kept only where all were loaded ones
        return known[1]
    names = frozenset().union(*(_strings(d.data) for d in docs))
    return NAMES.put(key, (tuple(docs), names))[1] if all(map(shared, docs)) else names


#: The strings of groups of loaded documents, by the documents: every `pipeline.run` walked all of the catalog's
#: data again, and then joined the ~100 documents' strings again (fuzzpipe37).
NAMES = Memo[tuple[tuple[Source, ...], frozenset[str]]](2048)


def _strings(data: object) -> set[str]:
    """Every string value in plain YAML data (keys excluded)."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(_strings(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(_strings(v) for v in data))
    return set()


def _validate_one(doc: Source, problems: list[SpecProblem]) -> Document | None:
    kind = doc.data.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:  # a mapping or list is no kind either (not hashable)
        hint = (did_you_mean(kind, KINDS) if isinstance(kind, str) else "") or f"one of: {', '.join(sorted(KINDS))}"
        if kind is None and "schema" in doc.data:   # newuser104: a case file among the specs
            hint = _case_file(doc.data["schema"]) or hint
        where = ("kind",) if "kind" in doc.data else ()
        problems.append(SpecProblem(doc.locate(where), "kind", "unknown document kind" if kind else "missing 'kind'",
                                    value=kind, expected="a known kind", hint=hint))
        return None
    cls = KINDS[kind]
    known = VALIDATED.get((cls, id(doc))) if shared(doc) else None
    if known is not None and known[0] is doc:
        return known[1]
    try:
        model = cls.model_validate(doc.data)
    except ValidationError as exc:
        problems.extend(problems_from(exc, doc, cls))
        return None
    if shared(doc):
        VALIDATED.put((cls, id(doc)), (doc, model))
    return model


#: The models of loaded documents (`load.shared`: the same object for a file read again unchanged), by kind and
#: document: a process that runs the pipeline again validates only what changed. A model is frozen; an invalid
#: document is not kept, so its problems are found again, located as before.
VALIDATED = Memo[tuple[Source, Document]](2048)


def _case_file(schema: object) -> str:
    """The hint for a validation-case file read as a spec (its `schema` the cases' own), else "".

    Imported here, not at the top: `check` does not load the case model otherwise (tests/test_startup.py).
    """
    from archgen.model.cases import SCHEMA
    return (f"this is a validation-case file ({SCHEMA}), not a spec: score it with `archgen estimate --cases FILE`, "
            "and keep it out of the spec paths") if schema == SCHEMA else ""
