"""The memory a training workload's own requirements leave its layout search (newuser88).

The search takes the fastest layout that fits the part's memory, and the model reserves nothing for the caching
allocator's fragmentation or kernel workspaces (`perf.hw.reserve`), so the layout it returns may leave a few MB: Llama
3.1 405B BF16 on 1,024 H100 searched to tp 8, pp 16 with 0.009 GB of 85.5 GB left. A performance engineer states the
margin a run needs as a requirement on the workload, `memory_headroom >= 10 GB` or `memory_per_gpu <= 70 GB`; before,
the search ignored it, returned the same layout and judged the requirement "not met" where other layouts met it.
Now every search of the workload (the estimate's layout search, `--search-plan`, a sweep's points) keeps to the
tightest of those targets where some layout can, and searches the whole memory where none can (`searched_within`).
As the targets are judged, across the memory's range over the caching allocator's waste (memband41), the search
takes first a layout that keeps within them at the range's high end (`memory_headroom >= 0 GB` included: at the
model's figure it bounds nothing, at the high end it does), and only where none does the best at the model's figure,
saying so (memfit41: `>= 0 GB` on the GB300 405B job picked 5.2 GB free, -214.4 GB at the high end, at risk).
Every memory target bound to the workload bounds it, wherever it is written (memreq42): its own, and those a
`Requirements` document or a cluster states on it (`subject: workload/<id>`, or a glob matching it; `build` binds them:
`build.Design.elsewhere`), which before were judged but did not bound the search. A sweep's own requirements are
judged on its points, not searched.
A strict target is honoured (tidy34; review51 found `<` and `>` bounded as `<=` and `>=`): `memory_per_gpu < 70 GB`
keeps to the largest float below 70 GB, so a layout at exactly 70 GB, which would not meet it, is not kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from archgen.model.requirements import Requirement
from archgen.model.workload import Workload
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.reserve import ALLOCATOR_WASTE_HIGH, holds_reserve

#: The search result type `searched_within` passes through (a layout search's or a plan search's).
R = TypeVar("R")


@dataclass(frozen=True)
class MemoryLimit:
    """The most memory per accelerator a searched layout may take (B), and the requirements that bound it.

    `by` names every memory target of the workload (`bounded_by`), not only the tightest, which sets `limit`: a
    layout within it keeps within them all. `limit` may be the part's whole memory or more (`memory_headroom >= 0
    GB`): it then bounds the range's high end alone, which must fit the part too (`high_end`).
    """

    limit: float
    capacity: float
    by: str        # "REQ-MEM-1 (memory_headroom >= 10 GB), REQ-MEM-2 (memory_per_gpu <= 150 GB)"

    @property
    def high_end(self) -> float:
        """What the allocator range's high end may take: the limit, or the part's memory where that is less."""
        return min(self.limit, self.capacity)

    def room(self, limit: float) -> str:
        """`limit` in words, against the part's memory."""
        return (f"at most {limit / 1e9:.1f} GB of {self.capacity / 1e9:.1f} GB per accelerator" if limit > 0
                else f"more than the {self.capacity / 1e9:.1f} GB per accelerator the part has")

    def kept(self) -> str:
        """The note's words where a layout keeps within the limit at the model's figure."""
        return f"kept within {self.by}: {self.room(self.limit)}"

    def kept_high(self) -> str:
        """The note's words where a layout keeps within it at the allocator range's high end."""
        return (f"kept within {self.by} at the allocator range's high end ({self.room(self.high_end)}, with "
                f"{ALLOCATOR_WASTE_HIGH:.0%} of the memory the caching allocator reserves holding no tensor)")

    def model_figure(self) -> str:
        """The note's words where none keeps within it at the high end, and the best at the model's figure is kept."""
        cut = f", kept within {self.room(self.limit)}" if self.limit < self.capacity else ""
        return (f"no layout fits at the allocator range's high end within {self.by}; best at the model's figure "
                f"chosen{cut}")

    def missed(self, high: bool = False) -> str:
        """The note's words where no layout keeps within it (`high`: at the range's high end either)."""
        either = ", at the allocator range's high end or at the model's figure," if high else ""
        return f"no layout keeps within {self.by} ({self.room(self.limit)}){either} so the whole memory was searched"


def memory_limit(workload: Workload, capacity: float, elsewhere: Sequence[Requirement] = ()) -> MemoryLimit | None:
    """The limit the workload's `memory_headroom` (>=, >) and `memory_per_gpu` (<=, <) targets set on `capacity`.

    Its own targets, then `elsewhere`: those other documents state on it (`build.Design.elsewhere`). None where
    neither states one (B). A strict target's limit is the largest float below its bound: the search keeps
    a layout whose memory is at most the limit (`fits`: `<=`). A limit of the part's whole memory or more bounds only
    the allocator range's high end (`searched_within`).
    """
    found = [(_below(capacity - b if headroom else b, strict), by)
             for headroom, strict, b, by in _bounding(workload, elsewhere)]
    if not found:
        return None
    return MemoryLimit(min(v for v, _ in found), capacity, ", ".join(by for _, by in found))


def bounded_by(workload: Workload, elsewhere: Sequence[Requirement] = ()) -> tuple[str, ...]:
    """The workload's requirements that bound its layout search by memory, each in words (none: empty).

    Its own, then `elsewhere`'s (`memory_limit`).
    """
    return tuple(by for *_, by in _bounding(workload, elsewhere))


def _below(bound: float, strict: bool) -> float:
    """`bound`, or the largest float below it for a strict target (`< 70 GB` keeps no layout of exactly 70 GB)."""
    return math.nextafter(bound, -math.inf) if strict else bound


def _bounding(workload: Workload, elsewhere: Sequence[Requirement]) -> list[tuple[bool, bool, float, str]]:
    """Each memory target bound to the workload: (a headroom target, a strict one, its bound in B, "REQ (target)").

    Its own (`binding.workload_requirements` binds each to it, whatever `subject` it writes), then `elsewhere`.
    """
    out = []
    for req in (*workload.requirements, *elsewhere):
        op, limit = req.target.op, req.target.limit
        if not limit.is_compatible_with("B"):
            continue
        headroom = req.metric == "memory_headroom" and op in (">=", ">")
        bound = float(limit.to("B").magnitude)
        if headroom or req.metric == "memory_per_gpu" and op in ("<=", "<"):
            out.append((headroom, op in ("<", ">"), bound, f"{req.id} ({req.metric} {req.target})"))
    return out


def searched_within(limit: MemoryLimit | None, hw: Hardware, search: Callable[[Hardware], R],
                    found: Callable[[R], bool]) -> tuple[R, str]:
    """`search(hw)` within `limit`, as the requirements are judged (memband41): at the range's high end first.

    Where the part holds a runtime reserve (`reserve.holds_reserve`: its memory has a range), first on `hw` with its
    memory cut to `limit.high_end` and each layout's memory taken at the allocator range's high end (`fit_waste`):
    a layout found there meets the targets at the range's worst end. Where none does (or the memory has no range),
    the best at the model's figure within `limit`; where none does either, on `hw` whole. With the note's words
    (`MemoryLimit`; "" without a limit, or where one of the part's whole memory bounds nothing at the model's figure
    on a part without a range). The memory only decides which layouts fit: no time depends on it.
    `training_estimate` times the chosen layout again on `hw` itself; the plan search (`plan.plan_for_workload`) keeps
    the search's estimate, whose `capacity` is then the limit: what it shows of it (step, MFU, memory per
    accelerator) the limit does not move.
    """
    if limit is None:
        return search(hw), ""
    ranged = holds_reserve(hw.vendor)
    if ranged:
        res = search(replace(hw, hbm_capacity=max(limit.high_end, 0.0), fit_waste=ALLOCATOR_WASTE_HIGH))
        if found(res):
            return res, limit.kept_high()
    if limit.limit >= limit.capacity:   # `memory_headroom >= 0 GB`: at the model's figure, fitting already keeps it
        return search(hw), limit.model_figure() if ranged else ""
    res = search(replace(hw, hbm_capacity=max(limit.limit, 0.0)))
    if found(res):
        return res, limit.model_figure() if ranged else limit.kept()
    return search(hw), limit.missed(ranged)
