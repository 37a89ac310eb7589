"""What a sweep's reports read of all its points, gathered chunk by chunk where the points are evaluated.

A worker that evaluates a chunk of a sweep's points (`commands.workers`) also tallies them (`chunk`): the points by
outcome, each requirement met and not met, the reasons points could not run, the columns the plot reads of the points
that fit, and the chunk's own Pareto front and best points. `merge` joins the chunks, in point order, into the sweep's
`Result`, the same as `points.summarise` of all the rows:

- the front of the sweep is the front of the chunks' fronts: a point that some point dominates is dominated by a point
  of that point's chunk front too (domination is transitive), and a point no point dominates is on its chunk's front;
- the best point on an objective is the best of the chunks' best points, the first on ties as over all points;
- counts add up; the plot's columns are concatenated in point order.

The rows themselves travel back from a worker pickled (`packed`: their fields), and are unpickled only when something
reads a row other than a front or best point (`Rows`): the document, `front.csv` and the command's summary do not,
`points.csv` is written by the workers. The parent process is left the merging, the document and the plot.
"""

from __future__ import annotations

import bisect
import pickle
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np

from archgen.model.sweep_axes import CATEGORICAL
from archgen.perf.explore.front import best, pareto
from archgen.perf.explore.hardware_scope import as_catalogued, assumed, own_chip  # noqa: F401 (re-exported)
from archgen.perf.explore.points import Result, objectives, requirements
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.vectorised import evaluate

#: What a chunk keeps of its rows (`chunk`).
Keep = Literal["list", "pickle", "none"]


def categories(problem: SweepProblem) -> list[str]:
    """The categorical axes that vary in the sweep (more than one level), in axis order."""
    return [a for a in problem.axes if a in CATEGORICAL and len(problem.axes[a]) > 1]


def catalogued(row: PointRow, problem: SweepProblem | None = None) -> bool:
    """Whether a point runs on its hardware as catalogued: every hardware axis at its catalogued value (`assumed`)."""
    return not assumed(row.values, problem)


@dataclass(frozen=True)
class Fitting:
    """Columns of the points that fit (status "ok"), in point order: what the plot reads of them."""

    values: dict[str, np.ndarray]    # objective metric -> SI value (NaN where a row lacks it)
    present: dict[str, np.ndarray]   # objective metric -> whether a row has it
    feasible: np.ndarray             # bool
    catalogued: np.ndarray           # bool: every hardware axis as catalogued (`catalogued`)
    group: np.ndarray                # index in `groups`
    groups: tuple[tuple, ...]        # each combination of the categorical axes' values, in order of first point


@dataclass(frozen=True)
class Tally:
    """A sweep's (or a chunk's) points by outcome, requirements judged and reasons, and the plot's columns."""

    points: int
    invalid: int
    fitting: int
    feasible: int
    met: dict[str, tuple[int, int]]      # requirement id -> (points that meet it, points that do not)
    reasons: dict[tuple[str, str], int]  # (status, reason) -> points: not "ok", or "ok" with a SHALL not provided
    fit: Fitting
    at_risk: dict[str, int] = field(default_factory=dict)  # requirement id -> points met but at risk (PointRow)
    #: what bound the batch of serving points that fit (`PointRow.batch_bound`) -> points, in order of first point
    batch_bounds: dict[str, int] = field(default_factory=dict)
    #: of the points that fit (at the model's figure), those whose memory has a range and those that fit at its high
    #: end too (`PointRow.fits_high_end`)
    ranged: int = 0
    fitting_high: int = 0


def tally_of(problem: SweepProblem, rows: Sequence[PointRow]) -> Tally:
    """The tally of `rows` (a chunk's or all of a sweep's)."""
    goals = [m for m, _ in objectives(problem.sweep)]
    status = [r.status for r in rows]
    ok = [r for r in rows if r.status == "ok"]
    met = {}
    for q in requirements(problem):
        judged = [r.met.get(q.id) for r in rows]  # a point that does not fit judges what it provides
        met[q.id] = (sum(1 for m in judged if m is True), sum(1 for m in judged if m is False))
    reasons = Counter((r.status, r.reason) for r in rows if r.status != "ok" or r.reason)
    cats = categories(problem)
    keys: list[tuple] = [tuple(r.values[a] for a in cats) for r in ok] if len(cats) > 1 else \
        [(r.values[cats[0]],) for r in ok] if cats else [()] * len(ok)
    groups = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    metrics = [r.metrics for r in ok]
    values, present = {}, {}
    for m in goals:
        present[m] = np.array([m in d for d in metrics], dtype=bool)
        values[m] = np.array([d.get(m, np.nan) for d in metrics], dtype=float)
    plain = [catalogued(r, problem) for r in ok]
    fit = Fitting(values, present, np.array([r.feasible for r in ok], dtype=bool), np.array(plain, dtype=bool),
                  np.array([groups[k] for k in keys], dtype=np.int64), tuple(groups))
    risky = {q.id: sum(1 for r in rows if q.id in r.at_risk) for q in requirements(problem)}
    high = [r.fits_high_end for r in ok]
    return Tally(len(rows), status.count("invalid"), len(ok), sum(1 for r in rows if r.feasible), met,
                 dict(reasons), fit, risky, dict(Counter(r.batch_bound for r in ok if r.batch_bound)),
                 sum(h is not None for h in high), sum(h is True for h in high))


def tally(result: Result) -> Tally:
    """A result's tally: its chunks' where they were tallied as they were evaluated (`Rows`), else counted now."""
    return result.rows.tally if isinstance(result.rows, Rows) else tally_of(result.problem, result.rows)


def _joined(problem: SweepProblem, tallies: Sequence[Tally]) -> Tally:
    """The tallies of consecutive chunks as one."""
    if len(tallies) == 1:
        return tallies[0]
    goals = [m for m, _ in objectives(problem.sweep)]
    reasons: Counter[tuple[str, str]] = Counter()
    for t in tallies:
        reasons.update(t.reasons)
    at: dict[tuple, int] = {}
    group = []
    for t in tallies:
        remap = np.asarray([at.setdefault(k, len(at)) for k in t.fit.groups], dtype=np.int64)
        group.append(remap[t.fit.group] if len(t.fit.group) else t.fit.group)
    fits = [t.fit for t in tallies]
    fit = Fitting({m: np.concatenate([f.values[m] for f in fits]) for m in goals},
                  {m: np.concatenate([f.present[m] for f in fits]) for m in goals},
                  np.concatenate([f.feasible for f in fits]), np.concatenate([f.catalogued for f in fits]),
                  np.concatenate(group), tuple(at))
    met = {q: (sum(t.met[q][0] for t in tallies), sum(t.met[q][1] for t in tallies)) for q in tallies[0].met}
    risky = {q: sum(t.at_risk.get(q, 0) for t in tallies) for q in tallies[0].met}
    bounds: Counter[str] = Counter()
    for t in tallies:
        bounds.update(t.batch_bounds)
    return Tally(sum(t.points for t in tallies), sum(t.invalid for t in tallies), sum(t.fitting for t in tallies),
                 sum(t.feasible for t in tallies), met, dict(reasons), fit, risky, dict(bounds),
                 sum(t.ranged for t in tallies), sum(t.fitting_high for t in tallies))


@dataclass(frozen=True)
class Chunk:
    """A chunk of a sweep's points, evaluated: its rows (or their pickle), its tally, its front and best points."""

    start: int                       # position of its first row in the sweep's rows
    size: int
    rows: list[PointRow] | bytes | None  # None: not kept (`chunk`)
    tally: Tally
    front: list[int]                 # positions in the sweep's rows
    best: dict[str, int | None]      # objective metric -> position in the sweep's rows
    kept: dict[int, PointRow] = field(default_factory=dict)  # the rows of `front` and `best`, by position


def chunk(problem: SweepProblem, rows: list[PointRow], start: int, keep: Keep = "list") -> Chunk:
    """`rows`, from position `start` of the sweep, tallied.

    `keep`: the rows themselves ("list"), pickled to travel back from a worker ("pickle"), or not at all ("none":
    they are evaluated again if something reads one, other than a front or best point).
    """
    goals = objectives(problem.sweep)
    front = [start + i for i in pareto(rows, goals)]
    top = {m: best(rows, m, up) for m, up in goals}
    bests = {m: None if i is None else start + i for m, i in top.items()}
    kept = {i: rows[i - start] for i in sorted({*front, *(i for i in bests.values() if i is not None)})}
    kept_rows = rows if keep == "list" else packed(rows) if keep == "pickle" else None
    return Chunk(start, len(rows), kept_rows,
                 tally_of(problem, rows), front, bests, kept)


def packed(rows: list[PointRow]) -> bytes:
    """`rows` pickled to travel back from a worker (`chunk`): each row's fields, as the dict the row keeps them in.

    Pickling a row object costs its class's reduce protocol, on top of its fields; its fields' dict alone is about a
    third cheaper to pickle (57-61 against 35-45 ms for a 16,680-point layout set of the 10^5-point benchmark sweep,
    best of 7) and half as costly to load (`unpacked`: 74-78 against 150-172 ms).
    """
    return pickle.dumps([row.__dict__ for row in rows], pickle.HIGHEST_PROTOCOL)


def unpacked(data: bytes) -> list[PointRow]:
    """The rows `packed` pickled: each made without its `__init__`, as `pickle` makes one, with the fields it had."""
    new, put = object.__new__, object.__setattr__  # a frozen dataclass refuses its own `__setattr__`
    rows = []
    for fields in pickle.loads(data):  # noqa: S301 pickled by `chunk`, in a worker of this sweep
        row = new(PointRow)
        put(row, "__dict__", fields)
        rows.append(row)
    return rows


def merge(problem: SweepProblem, chunks: Sequence[Chunk]) -> Result:
    """The sweep's result from its chunks in point order: what `points.summarise` gives of all their rows."""
    kept = {i: r for c in chunks for i, r in c.kept.items()}
    cand = [i for c in chunks for i in c.front]
    goals = objectives(problem.sweep)
    front = [cand[j] for j in pareto([kept[i] for i in cand], goals)]
    top: dict[str, int | None] = {}
    for m, up in goals:
        have = [c.best[m] for c in chunks if c.best[m] is not None]
        j = best([kept[i] for i in have if i is not None], m, up)
        top[m] = None if j is None else have[j]
    tally = _joined(problem, [c.tally for c in chunks]) if chunks else tally_of(problem, [])
    return Result(problem, Rows(problem, chunks, kept, tally), front, top)


class Rows(Sequence[PointRow]):
    """A sweep's rows, chunk by chunk; a chunk's pickle is loaded when one of its rows is read, except a kept one.

    A chunk whose rows were not kept is evaluated again, here, when one of its rows is read (the same rows: a point's
    row does not depend on the chunk it is evaluated in).
    """

    def __init__(self, problem: SweepProblem, chunks: Sequence[Chunk], kept: dict[int, PointRow], tally: Tally):
        self._problem = problem
        self._parts: list[Any] = [c.rows for c in chunks]
        self._sizes = [c.size for c in chunks]
        self._starts = [c.start for c in chunks]
        self._size = sum(c.size for c in chunks)
        self.kept = kept
        self.tally = tally

    def __len__(self) -> int:
        return self._size

    def _part(self, k: int) -> list[PointRow]:
        part = self._parts[k]
        if isinstance(part, bytes):
            part = self._parts[k] = unpacked(part)
        elif part is None:
            a = self._starts[k]
            part = self._parts[k] = evaluate(self._problem, a, a + self._sizes[k])
        return part

    @overload
    def __getitem__(self, i: int) -> PointRow: ...

    @overload
    def __getitem__(self, i: slice) -> list[PointRow]: ...

    def __getitem__(self, i: int | slice) -> PointRow | list[PointRow]:
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            return [][i]  # IndexError, as a list raises it: the end of a Sequence, not an error for people
        got = self.kept.get(i)
        if got is not None:
            return got
        k = bisect.bisect_right(self._starts, i) - 1
        return self._part(k)[i - self._starts[k]]

    def __iter__(self) -> Iterator[PointRow]:
        for k in range(len(self._parts)):
            yield from self._part(k)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable caches, compared by value

    def __repr__(self) -> str:
        return f"Rows({self._size} rows in {len(self._parts)} chunks)"
