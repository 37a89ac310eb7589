"""The library API: `run(paths)` performs the stages in order. Stages are added here and nowhere else.

The checks, the workload estimates, cost and the growth series are imported by the stages that run them, so that a
command that stops before them (`archgen validate`, `archgen estimate`) does not import them (issue 25).
"""

from __future__ import annotations

import filecmp
import os
import stat
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from archgen.analyse.operations import Operations
from archgen.build import Design, build
from archgen.cache import Memo
from archgen.catalog_walk import RACY_S, catalog_files
from archgen.errors import WorkloadError
from archgen.load import SourceDocument, load_paths, shipped_catalog
from archgen.model import Cluster, Facility
from archgen.model.workload import Model, Workload
from archgen.path_links import inside
from archgen.snapshot import derived, validated
from archgen.spec_files import roots
from archgen.topology import ScaleOutPath
from archgen.units import Q
from archgen.validate import Specs, entry, validate

if TYPE_CHECKING:
    from archgen import checks
    from archgen.analyse.network import ClusterAnalysis
    from archgen.analyse.rack import RackAnalysis
    from archgen.analyse.scaling import Scaling
    from archgen.as_of import AsOf
    from archgen.checks.judgement import Judgement
    from archgen.perf.workload.job_on_cluster import JobOnCluster
    from archgen.perf.workload.results import WorkloadResult


@dataclass(frozen=True)
class Run:
    """Everything one run of the pipeline produced."""

    specs: Specs
    design: Design
    racks: dict[str, RackAnalysis]
    metrics: dict[str, dict[str, Q]]
    findings: list[checks.Finding]
    clusters: dict[str, ClusterAnalysis] = field(default_factory=dict)
    workloads: dict[str, WorkloadResult] = field(default_factory=dict)
    operations: Operations = field(default_factory=Operations)  # reliability and cost (analyse.operations_stage)
    scaling: dict[str, Scaling] = field(default_factory=dict)  # by cluster path, when asked for (documents)
    requirements: tuple[Judgement, ...] = ()  # every requirement of the design, judged once
    as_of: AsOf | None = None  # the date waivers' `expires` was judged on, where a waiver states one (`as_of`)

    @property
    def errors(self) -> list[checks.Finding]:
        """Unwaived error findings."""
        return [f for f in self.findings if f.severity == "error" and not f.waived]


class Analysed(NamedTuple):
    """What `analyse_paths` gives: the stages before workloads and checks, which `judged(*analysed)` takes."""

    specs: Specs
    design: Design
    racks: dict[str, RackAnalysis]        # by rack path
    clusters: dict[str, ClusterAnalysis]  # by cluster path


def real_paths(files: Iterable[str]) -> dict[str, Path]:
    """`Path(f).resolve()` of each file, each folder resolved once.

    A file that is no link is its folder's real path and its name: the hundred catalog files share a dozen folders,
    and `resolve` walks every component of each (issue 25, start-up). The folders are keyed by their text, not by a
    `Path` made and hashed for each file (suite38).
    """
    folders: dict[str, Path] = {}
    out: dict[str, Path] = {}
    for f in files:
        if os.path.islink(f):
            out[f] = Path(f).resolve()
        else:
            folder, name = os.path.split(f)
            real = folders.get(folder)
            if real is None:
                real = folders[folder] = Path(folder).resolve()
            out[f] = real / name
    return out


def load(paths: Sequence[str | Path], catalog: Path | None = None) -> tuple[list[SourceDocument],
                                                                           list[SourceDocument]]:
    """Load the user's specs and the library: the shipped catalog, or `catalog` in its place; each file once.

    A catalog file reached by walking a directory above the catalog (`archgen check specs/` in a checkout) is the
    library's, as if not named; one named inside the catalog (a file or folder of it) is the user's. `archgen diff`
    gives `catalog`: a revision's own `specs/catalog` stands for the shipped one (`commands.diff.spec_source`).
    A copy of the catalog in a project (`cp -r specs/ project/`) is the library's where unchanged (`_shipped_copies`).
    """
    docs = load_paths(paths)
    catalog = shipped_catalog() if catalog is None else catalog
    if not catalog.is_dir():
        return docs, []
    resolved = catalog.resolve()
    roots = {catalog, resolved}
    named = [r for r in (Path(p).resolve() for p in paths) if any(inside(r, c) for c in roots)]
    real = real_paths({d.file for d in docs})   # each file resolved once
    walked = [d for d in docs if any(inside(real[d.file], r) for r in roots)
              and not any(inside(real[d.file], n) for n in named)]
    skipped = {id(d) for d in walked} | _shipped_copies(docs, real, paths, resolved)
    mine = [d for d in docs if id(d) not in skipped]
    # a catalog file resolves inside the resolved catalog, so only a user file there can be one already loaded
    loaded = {r for r in real.values() if inside(r, resolved)}
    files = catalog_files(catalog)     # found once: each file vetted (links out of the tree refused) and resolved
    if loaded:
        reals = real_paths(str(f) for f in files)
        files = [f for f in files if reals[str(f)] not in loaded]
    return mine, walked + _catalog_documents(files)


#: `_catalog_documents`' loads: {the files: (each file's inode, size, mtime and ctime in ns, their documents)}.
_LOADED_CATALOG = Memo[tuple[list[tuple[int, int, int, int]], list[SourceDocument]]](16)


def _catalog_documents(files: list[Path]) -> list[SourceDocument]:
    """`load_paths(files, found=True)`, not read again while no file of them has changed since it was loaded.

    A pipeline run read and hashed each of the catalog's 100 files again (`load.cached`: 3.4 ms a run, a quarter of a
    run on specs/racks) to find the documents `load.LOADED` held. A write changes a file's ctime, which no one can set;
    the documents are kept only where every file is a regular file (not a link, whose target could change alone) that
    last changed `catalog_walk.RACY_S` or more before it was read (a file system's clock ticks: a write in the read's
    tick could leave its times as read), and are given back only while each file has the same inode, size and times.
    The documents are `load_file`'s own, the same objects as `load.LOADED` gives (read only).
    """
    key = tuple(files)
    known = _LOADED_CATALOG.get(key)
    if known is not None and _file_stats(files) == known[0]:
        return list(known[1])
    start = time.time()
    stats = _file_stats(files)
    docs = load_paths(files, found=True)
    if stats is not None and stats == _file_stats(files) and \
            all(max(m, c) < (start - RACY_S) * 1e9 for _, _, m, c in stats):
        _LOADED_CATALOG.put(key, (stats, docs))
    return docs


def _file_stats(files: list[Path]) -> list[tuple[int, int, int, int]] | None:
    """Each file's inode, size, mtime and ctime in ns; None where one is not a regular file or is gone."""
    out = []
    for f in files:
        try:
            st = os.lstat(f)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        out.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return out


def _shipped_copies(docs: Iterable[SourceDocument], real: dict[str, Path], paths: Sequence[str | Path],
                    catalog: Path) -> set[int]:
    """The documents (by `id`) of files that are unchanged copies of the shipped catalog's, reached by walking.

    A project started by copying the repository's `specs/` holds `specs/catalog`: loaded as the project's own, its
    racks joined the design as the project's (a library rack joins only where named), and the GB300 NVL72 at
    142 kW failed the example hall's 132 kW busway budget, an error absent in the repository (newuser32's and
    newuser34's trials). A file under a folder named `catalog`, reached by walking a folder above it, that is
    byte for byte the shipped catalog's file at the same path below `catalog/` is the library's, as the repository's
    own catalog is when walked. An edited copy stays the project's, and CAT007 names what it changes; a file named
    itself, or walked from the copy's `catalog/` folder named, is the project's.
    """
    named = [Path(p).resolve() for p in paths]
    same: dict[Path, bool] = {}
    out = set()
    for d in docs:
        file = real[d.file]
        parts = file.parts
        if "catalog" not in parts[:-1] or inside(file, catalog):
            continue
        at = len(parts) - 2 - parts[-2::-1].index("catalog")     # the innermost `catalog` folder above the file
        folder = Path(*parts[:at + 1])
        if not any(folder != n and inside(folder, n) for n in named):
            continue
        if file not in same:
            shipped = catalog.joinpath(*parts[at + 1:])
            same[file] = shipped.is_file() and filecmp.cmp(file, shipped, shallow=False)
        if same[file]:
            out.add(id(d))
    return out


def analyse_paths(paths: Sequence[str | Path] | str | Path, catalog: Path | None = None, *,
                  proposals: Sequence[str | Path] = ()) -> Analysed:
    """Load → validate → build → analyse racks and clusters: the stages before workloads and checks (`load`).

    `proposals`: the folders the files of `paths` were found under, where they are files (`built`).
    """
    specs, design = built(paths, catalog, proposals=proposals)   # located YAML → typed models → references bound,
    return analysed(specs, design)                 # counts expanded


def analysed(specs: Specs, design: Design) -> Analysed:
    """Racks and clusters of a built design analysed (`analyse_paths`' stages after `built`).

    A sweep's fabric axis analyses the specs again with a cluster copied at each level (`commands.sweep_fabric`).
    """
    from archgen.analyse.cabling import analyse_clusters
    from archgen.analyse.conversion import at_feeds
    from archgen.analyse.optics import optics_by_rack
    from archgen.analyse.rack import analyse
    racks = analyse(design)                        # space, power, cooling per rack
    clusters = analyse_clusters(design, racks)     # fabrics, scale-up domains, cabling and BOM per cluster
    optics = {path: watts for path, watts in optics_by_rack(clusters).items() if watts.m}
    held = {path: watts for path, watts in optics_by_rack(clusters, held=True).items() if watts.m}
    racks |= analyse(design, optics, only=optics.keys() | held.keys(), known=racks, held=held)  # power and cooling
    # again where racks hold optics beyond their parts (their space and BOM kept)
    clusters = at_feeds(clusters)                  # IT power at the feeds: power-shelf losses added
    return Analysed(specs, design, racks, clusters)


def references(paths: Sequence[str | Path]) -> tuple[Specs, list[checks.Finding]]:
    """Load → validate → build, then the REF checks, renamed keys and unnamed approvals: what `archgen validate` says.

    SPC003 (a key under a name since renamed), SPC006 (an approval naming no revision in a document that states one).
    """
    from archgen.checks import Context, register
    from archgen.checks.cascade import run_checks
    specs, design = built(paths)
    register(("REF",))                             # not the other checks, nor the model and analyses they read
    return specs, run_checks(Context(design, {}, {}), ("REF", "SPC003", "SPC006"))


def scale_out_paths(clusters: dict[str, ClusterAnalysis]) -> dict[str, ScaleOutPath]:
    """Each cluster's sized compute fabric, by cluster id, as the performance model takes it.

    With its multi-rack scale-up domain's longest trunk run (`ScaleOutPath.trunk_run`), whose flight time the second
    switch hop takes (nu83fix).
    """
    from archgen.analyse.cabling import longest_trunk
    return {c.cluster.spec.id: replace(c.scale_out, trunk_run=longest_trunk(c.cluster))
            for c in clusters.values() if c.scale_out}


def built(paths: Sequence[str | Path] | str | Path, catalog: Path | None = None, *,
          proposals: Sequence[str | Path] = ()) -> tuple[Specs, Design]:
    """Load → validate → build (`catalog`: the library in place of the shipped catalog, as `load` takes it).

    `paths` are spec folders or files; one given alone (``built("specs")``) is that one, not its characters ('s:
    no such file or directory' before: a notebook's first call, docs/python-api.md).

    YAML with source positions (unreadable files raise), typed models (schema and unit errors raise, all at once),
    references bound (unresolved ones kept for REF001/REF002) and counts expanded. The console script reads the
    validated specs back from its cache where the input is unchanged (`archgen.snapshot`).

    `proposals`: the folders named on the command line where `paths` are the spec files found under them (`archgen
    gap` runs a proposal's files): each is a proposal whose `Prices` lists price its clusters (`Specs.roots`,
    `analyse.price_scope`); by default each of `paths` is, a file standing for its own folder.
    """
    paths = [paths] if isinstance(paths, (str, Path)) else paths
    folders = roots(proposals or paths)
    specs = validated(paths, lambda: replace(validate(*load(paths, catalog)), roots=folders), catalog, folders)
    return specs, build(specs)


def cluster_network(design: Design, ids: Collection[str]) -> tuple[dict[str, ScaleOutPath],
                                                                    dict[str, tuple[tuple[str, str], ...]]]:
    """The sized compute fabric of the clusters `ids` only, and the network problems found sizing them, by cluster id.

    What `archgen estimate` needs of a design: those clusters' racks and networks analysed; no cabling, BOM or other
    cluster (issue 25). The problems are (check id, message) of the cluster, its scale-up domain and its fabrics, as
    `archgen check` reports them, so that an estimate on a design `check` refuses can say so. The console script
    keeps both beside its validated specs (`snapshot.derived`). One id given alone (``"su"``) is that cluster (a
    string's characters were taken as ids, and matched any cluster id holding them); an id that names no cluster is
    a `UsageError` with "did you mean" (`validate.entry`), not an empty result.
    """
    ids = {ids} if isinstance(ids, str) else set(ids)
    for cid in sorted(ids):
        entry(design.specs.items, cid, Cluster)

    def sized() -> dict:
        from archgen.analyse.network import analyse_cluster
        from archgen.analyse.rack import analyse
        chosen = [c for c in design.clusters if c.spec.id in ids]
        racks = analyse(design, only={f"rack/{rid}" for c in chosen for rid in c.rack_types})
        analysed = {c.path: analyse_cluster(design, c, racks) for c in chosen}
        problems = {a.cluster.spec.id: tuple((p.check, p.message) for p in (
            *a.problems, *(a.scale_up.problems if a.scale_up is not None else ()),
            *(p for fa in a.fabrics for p in fa.problems))) for a in analysed.values()}
        return {"paths": scale_out_paths(analysed), "problems": problems}

    got = derived(design.specs, "cluster_network\0" + "\0".join(sorted(ids)), dict, sized)
    return got["paths"], got["problems"]


def job_on_cluster(specs: Specs, design: Design, workload: str, cluster: str | None = None) -> JobOnCluster:
    """`workload` of the specs on `cluster` (default the one it names), as `archgen estimate` runs it.

    Its `estimate()` is what `archgen estimate` prints, notes and requirements judged (`perf.workload.job_on_cluster`):
    the cluster's network sized (`cluster_network`), a note where the job runs on another cluster than its own and
    where `check` refuses network figures it reads, every requirement bound to the workload (those `check` judges),
    and whether `check` gives the job an energy (its hall's `cost:`: `energy_note`). An unknown id is a `UsageError`
    with "did you mean" (`validate.entry`); one naming no cluster (none given) or an unknown model: `WorkloadError`.
    """
    from archgen.applicable import not_applicable
    from archgen.perf.workload.cluster import machine
    from archgen.perf.workload.job_on_cluster import JobOnCluster, input_errors, other_cluster_note, site_note
    job = entry(specs.items, workload, Workload)
    if cluster is None and job.cluster is None:
        raise WorkloadError(workload, "names no cluster; give one to run it on (`cluster=`; the CLI's --cluster)")
    spec = entry(specs.items, cluster or job.cluster or "", Cluster)
    found = specs.items.get(job.model) if job.model else None
    model = found if isinstance(found, Model) else None
    if job.collective is None and model is None:
        raise WorkloadError(workload, f"runs model '{job.model}', which is not in the specs")
    scale_out, problems = cluster_network(design, {spec.id})       # that cluster only; no checks
    on = machine(spec, specs.items, scale_out.get(spec.id))
    notes = (other_cluster_note(job, spec.id), input_errors(spec, problems.get(spec.id, ())), site_note(spec))
    bound = tuple(b.req for b in design.workload_requirements if b.owner == job.id)
    found = specs.items.get(spec.facility) if spec.facility else None
    hall = found if isinstance(found, Facility) else None   # `check` computes the job's energy from its `cost:`
    no_energy = "" if hall is not None and hall.cost is not None else \
        f"cluster '{spec.id}' names no `facility:`" if not spec.facility else \
        f"facility '{spec.facility}' is not in the specs" if hall is None else \
        f"facility '{spec.facility}' gives no `cost:` (its annual PUE, `cost.energy.pue`, turns IT energy into the " \
        "hall's)"
    return JobOnCluster(job, model, on, bound, tuple(n for n in notes if n), design.rests_note(f"cluster/{spec.id}"),
                        no_energy, tuple(b.req for b in design.elsewhere(job.id) if not not_applicable(b, design)))


def run(paths: Sequence[str | Path] | str | Path, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), *,
        scaling: bool | Collection[str] = False, catalog: Path | None = None, as_of: AsOf | None = None,
        proposals: Sequence[str | Path] = ()) -> Run:
    """Load → validate → build → analyse (racks, clusters, workloads) → check.

    `scaling` also re-analyses each cluster (True), or each cluster whose id it holds, at 1, 2, 4, ... times its
    layout (`analyse.scaling`): only documents show that growth series, and it costs more than the rest of a run
    (1.4 s for the shipped SuperPOD), so `archgen render` asks for it, for the clusters it renders, and
    `archgen check` does not. `catalog` stands for the shipped catalog (`load`). `as_of`: `--as-of`, the date
    waivers' `expires` is judged on (else SOURCE_DATE_EPOCH, else today: `as_of.resolve`). `proposals`: the
    folders whose files `paths` are, each a proposal priced by its own `Prices` lists (`built`).
    """
    return judged(*analyse_paths(paths, catalog, proposals=proposals), select, ignore, scaling=scaling, as_of=as_of)


def judged(specs: Specs, design: Design, racks: dict[str, RackAnalysis], clusters: dict[str, ClusterAnalysis],
           select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), *,
           scaling: bool | Collection[str] = False, as_of: AsOf | None = None) -> Run:
    """The stages of `run` after `analyse_paths` (whose result it takes): workloads, operations, checks, growth.

    `archgen sweep` needs only the analysed clusters to start its workers, and runs these stages while they evaluate
    (`commands.sweep.evaluate_sweeps`). The console script keeps the workload estimates (`snapshot.derived`).
    """
    from archgen import checks
    from archgen.analyse.facility import hall_headrooms, headroom_ends
    from archgen.analyse.hall_totals import add_total_inputs, hall_totals
    from archgen.analyse.operations_stage import analyse_operations
    from archgen.analyse.rack import weight_bounds
    from archgen.analyse.rack_power_inputs import add_job_power_inputs, add_power_inputs
    from archgen.as_of import judging
    from archgen.checks.judgement import even_share_risks, judge_all
    from archgen.perf.workload.results import estimate_workloads, judge_workloads
    metrics = {path: a.metrics for path, a in racks.items()}
    for path, c in clusters.items():               # cluster totals under cluster/<id>, fabrics under .../fabric/<id>
        metrics[path] = c.metrics
        metrics.update({fa.fabric.path: fa.metrics for fa in c.fabrics})
    paths = scale_out_paths(clusters)              # each workload on its cluster's sized fabric, which keys it too
    workloads = derived(specs, f"estimate_workloads\0{paths!r}", dict, lambda: estimate_workloads(specs, paths, design))
    operations, workloads = analyse_operations(design, clusters, workloads)  # failures, goodput, capex, TCO
    add_power_inputs(operations.assumed, racks, clusters, specs)   # a rack's or cluster's power on unconfirmed figures
    operations.unsettled.update(weight_bounds(racks))   # a rack's weight that leaves installed parts out: a lower bound
    add_total_inputs(operations.assumed, clusters)   # a hall's totals on every deployed cluster's
    add_job_power_inputs(operations.assumed, workloads)   # a job's energy on its cluster's average power
    rests = {path: why for path in workloads if (why := design.rests_note(path))}  # a part its cluster lacks
    workloads = judge_workloads(workloads, design.workload_requirements, operations.withheld,  # once, as bound
                                operations.unsettled, operations.assumed, rests)
    metrics.update({path: w.estimate.metrics if w.estimate else {} for path, w in workloads.items()})  # or withheld
    for path, hall in hall_headrooms(clusters).items():   # a hall other clusters name: its headrooms, all of them
        metrics[path] = {k: v for k, v in {**metrics[path], **hall}.items() if v is not None}
    for path, ends in headroom_ends(clusters).items():   # beside another cluster's hall: its unsplit rest decides
        operations.join(path, ends, metrics[path])   # joined to what the cluster holds, none dropped
    for path, totals in hall_totals(clusters).items():   # a hall's `deployed` clusters: its IT and facility power
        metrics[path] = {**metrics[path], **{k: v for k, v in totals.items() if v is not None}}
    requirements = judge_all(design, metrics, operations.withheld, workloads,  # every requirement, judged once
                             operations.unsettled, operations.assumed, even_share_risks(clusters))
    on = judging(specs.items.values(), as_of)      # read only where a waiver states `expires`
    context = checks.Context(design, racks, metrics, clusters, workloads, operations, requirements, on)
    findings = checks.run_checks(context, select, ignore)
    grown = {c.cluster.spec.id for c in clusters.values()} if scaling is True else set(scaling or ())
    series = {}
    if grown:                                      # imported only for a growth series (documents)
        from archgen.analyse.scaling import scaling as grow
        series = {path: grow(design, racks, c.cluster) for path, c in clusters.items() if c.cluster.spec.id in grown}
    return Run(specs, design, racks, metrics, findings, clusters, workloads, operations, series, requirements, on)
