"""Resolve references and expand counts into a frozen `Design` with stable object paths.

`build` binds each rack (`build.racks`), each cluster with its fabrics (`build.clusters`, `build.fabrics`) and the
requirements to the objects they name (`archgen.binding`); every reference goes through `build.refs.resolve`, and
those that resolve to nothing are kept for the REF checks. The later stages import the design's types from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from archgen.binding import BoundRequirement, bind, workload_requirements
from archgen.build.clusters import MAX_RACKS, ClusterDesign, RackInstance, bind_cluster
from archgen.build.fabrics import BoundFabric, BoundTier, LinkOption
from archgen.build.racks import Placed, RackDesign, bind_rack
from archgen.build.refs import Unresolved, resolve
from archgen.model import NIC, Accelerator, Cluster, FailureRates, Rack, System
from archgen.model.reliability import DEFAULT_RATES
from archgen.model.requirements import Requirements
from archgen.model.sweep import Sweep
from archgen.model.workload import Model, Workload
from archgen.validate import Specs

#: What the stages after `build` read: the design and its parts (the submodules are how it is built).
__all__ = ["Design", "build", "object_paths", "ClusterDesign", "RackInstance", "MAX_RACKS", "bind_cluster",
           "BoundFabric", "BoundTier", "LinkOption", "Placed", "RackDesign", "Unresolved"]


@dataclass(frozen=True)
class Design:
    """The derived design: racks, clusters, requirements and anything that could not be resolved."""

    specs: Specs
    racks: tuple[RackDesign, ...]
    requirements: tuple[BoundRequirement, ...]
    unresolved: tuple[Unresolved, ...]
    clusters: tuple[ClusterDesign, ...] = ()
    #: Each workload's own requirements, bound to it; the pipeline judges them on its estimate (not the REQ checks).
    workload_requirements: tuple[BoundRequirement, ...] = ()

    def requirements_of(self, subject: str) -> tuple[BoundRequirement, ...]:
        """Every requirement bound to the object `subject`, one per id, as `check` judges them.

        A workload's own come first, then those of `Requirements` documents and clusters that name it (by a glob too).
        Two different requirements under one id are REQ003's error; the first one stated is kept here.
        """
        kept: dict[str, BoundRequirement] = {}
        for b in (*self.workload_requirements, *self.requirements):
            if b.subject == subject:
                kept.setdefault(b.req.id, b)
        return tuple(kept.values())

    def elsewhere(self, workload: str) -> tuple[BoundRequirement, ...]:
        """The requirements bound to workload `workload` by other documents than its own, as `requirements_of`.

        A `Requirements` document's or a cluster's (`subject: workload/<id>`, or a glob matching it): `check` judges
        them on the workload, and its memory targets bound its layout search as its own do
        (`perf.workload.memory_limit`).
        """
        return tuple(b for b in self.requirements_of(f"workload/{workload}") if b.owner != workload)

    def resting_on(self, subject: str) -> list[Unresolved]:
        """The unresolved references the object `subject` rests on: its figures are computed without what they name.

        A rack rests on its own references (a placed part that does not resolve leaves its power, weight and space
        out); a cluster, and each of its fabrics, on its own, on its rack types' and on those of the parts placed in
        them (a NIC that does not resolve leaves its ports out); a workload on its own and its cluster's (its cost,
        power and network figures are its cluster's); any other object on its own. The error cascade folds an
        object's findings under them (`checks.cascade`), and a requirement on it is not provided
        (`checks.judgement.resting_on`, `perf.workload.results.judge_workloads`): one rule for both.
        """
        if not self.unresolved or not subject:
            return []
        root = "/".join(subject.split("/")[:2])
        kind, _, ident = root.partition("/")
        owners, roots = {ident}, {subject, root}
        if kind == "workload":
            w = self.specs.get(ident)
            if isinstance(w, Workload) and w.cluster:
                kind, ident, root = "cluster", w.cluster, f"cluster/{w.cluster}"
                owners.add(ident)
                roots.add(root)
        if kind == "cluster":
            for c in self.clusters:
                if c.path == root:
                    owners |= set(c.rack_counts)
                    owners |= {item.part.id for r in c.rack_types.values() for item in r.items}
                    owners |= self._rate_chain(c.spec)
        return [u for u in self.unresolved if u.owner in owners or u.subject in roots]

    def _rate_chain(self, cluster: Cluster) -> set[str]:
        """The ids of the `FailureRates` sets a cluster's failures come from: its set and, through `base`, theirs."""
        chain: set[str] = set()
        rates = self.specs.get(cluster.failure_rates or DEFAULT_RATES)
        while isinstance(rates, FailureRates) and rates.id not in chain:
            chain.add(rates.id)
            rates = self.specs.get(rates.base) if rates.base else None
        return chain

    def rests_note(self, subject: str) -> str:
        """Why `subject`'s figures are not known (`resting_on`), naming each reference once; "" where none.

        A phrase to follow the subject: "rests on unresolved reference(s) 'q340' (Switch)".
        """
        missing = self.resting_on(subject)
        refs = ", ".join(sorted({f"'{u.ref}' ({u.expected})" for u in missing}))
        return f"rests on unresolved reference(s) {refs}" if missing else ""


def build(specs: Specs) -> Design:
    """Bind references and expand slot counts; unresolved references are kept for the REF checks."""
    unresolved: list[Unresolved] = []
    for system in specs.of(System):
        resolve(specs, system.id, system.accelerator, (Accelerator,), ("accelerator",), unresolved)
        for j, nic in enumerate(system.nics):
            resolve(specs, system.id, nic.part, (NIC,), ("nics", j, "part"), unresolved)
    for rates in specs.of(FailureRates):   # a set's missing classes come from its base (REL004 named a typo only)
        resolve(specs, rates.id, rates.base, (FailureRates,), ("base",), unresolved)
    for w in specs.of(Workload):  # the performance stage estimates the workloads whose references resolve
        resolve(specs, w.id, w.model, (Model,), ("model",), unresolved, f"workload/{w.id}")
        resolve(specs, w.id, w.cluster, (Cluster,), ("cluster",), unresolved, f"workload/{w.id}")
    for s in specs.of(Sweep):  # `archgen sweep` runs them; here only their references are checked
        resolve(specs, s.id, s.workload, (Workload,), ("workload",), unresolved, f"sweep/{s.id}")
        for i, c in enumerate(s.axes.cluster or ()):
            resolve(specs, s.id, c, (Cluster,), ("axes", "cluster", i), unresolved, f"sweep/{s.id}")
        for i, a in enumerate(s.axes.accelerator or ()):
            resolve(specs, s.id, a, (Accelerator,), ("axes", "accelerator", i), unresolved, f"sweep/{s.id}")
    racks = tuple(bind_rack(specs, r, unresolved) for r in specs.of(Rack))
    clusters = tuple(bind_cluster(specs, c, racks, unresolved) for c in specs.of(Cluster))
    objects = object_paths(racks, clusters, specs.of(Workload))
    reqs = [BoundRequirement(q, f"rack/{r.spec.id}", r.spec.id, ("requirements", i))
            for r in racks for i, q in enumerate(r.spec.requirements)]
    for doc in specs.of(Requirements):
        reqs += [b for i, q in enumerate(doc.requirements)
                 for b in bind(q, q.subject, doc.id, ("requirements", i), objects)]
    reqs += [b for c in clusters for i, q in enumerate(c.spec.requirements)
             for b in bind(q, q.subject or c.path, c.spec.id, ("requirements", i), objects)]
    return Design(specs, racks, tuple(reqs), tuple(unresolved), clusters, workload_requirements(specs.of(Workload)))


def object_paths(racks: Iterable[RackDesign], clusters: Iterable[ClusterDesign],
                 workloads: Iterable[Workload]) -> tuple[str, ...]:
    """The objects a requirement can name, sorted: racks, clusters, their fabrics and workloads."""
    paths = [r.path for r in racks] + [f"workload/{w.id}" for w in workloads]
    for c in clusters:
        paths += [c.path] + [f.path for f in c.fabrics]
    return tuple(sorted(paths))
