"""Defaults that moved: per document kind, the key whose unstated value now means something else, and since when.

Where a spec leaves a value out, archgen fills it, and some of those defaults have changed, so an unchanged spec gives
other figures after an upgrade (docs/upgrading.md, "Defaults that moved", whose table a test holds to this one). A
document that states the archgen it was written for (`requires_archgen: '>=X.Y.Z'`, `archgen.migrate.required`) and
leaves such a key unstated gets one information finding, SPC005, at that line, listing each move made in a release
after X.Y.Z (`since`), so that a team upgrading sees which of its unstated knobs now mean something else.

A move is dated by the first release that carries it. Every move so far was made inside 0.1.0 (`__version__`,
archgen/__init__.py), so a spec written for 0.1.0 gets none of them: a version cannot tell a spec from before
ad7ab32d from one after. PERF006 names each training job that takes a default stack, whatever its version.
"""

import re
from dataclasses import dataclass

from archgen.model.accelerator import AMD


@dataclass(frozen=True)
class Moved:
    """One default that moved: which documents and jobs, the key that states it, its value before and after."""

    kind: str       # the document kind whose key it is (`archgen.model.KINDS`)
    key: str        # the dotted key that states it; a document that gives it keeps its meaning
    which: str      # which of those documents take it, in words
    before: str
    after: str
    since: str      # the first release that carries the move
    commit: str     # the commit that made it, and its date
    date: str
    vendor: str = ""  # only jobs on an accelerator of this maker (`Accelerator.vendor`); "": every one

    @property
    def text(self) -> str:
        """The move in words: '`training.stack` (every training job): megatron-core-2024 → nemo-2025 in 0.1.0 ...'."""
        return (f"`{self.key}` ({self.which}): {self.before} → {self.after} in {self.since} ({self.commit}, "
                f"{self.date})")


#: Every default that moved, oldest first (docs/upgrading.md, "Defaults that moved", names the same).
MOVED: tuple[Moved, ...] = (
    # a job that names no stack takes the newest profile (issue 20 part 6; PERF006 names each such job)
    Moved("Workload", "training.stack", "every training job", "megatron-core-2024", "nemo-2025", "0.1.0",
          "ad7ab32d", "2026-12-02"),
    # AMD's own profile (AMD-AGI/Primus module defaults) in place of NVIDIA's on an AMD part
    Moved("Workload", "training.stack", "jobs on an AMD part", "nemo-2025", "primus-2025", "0.1.0",
          "4aaec912", "2026-12-05", vendor=AMD),
)


def release(text: str) -> tuple[int, int, int]:
    """A version's release as numbers, compared as such ('0.10.0' > '0.9.0'); a suffix ('.dev1', '+g1a2b') ignored.

    (0, 0, 0) for a text that starts with no three numbers.
    """
    found = re.match(r"(\d+)\.(\d+)\.(\d+)", text.strip())
    return (int(found[1]), int(found[2]), int(found[3])) if found else (0, 0, 0)


def moved_since(kind: str, stated: str, running: str) -> tuple[Moved, ...]:
    """The moves of `kind` made in a release after `stated` and no later than `running`, oldest first."""
    return tuple(m for m in MOVED if m.kind == kind and release(stated) < release(m.since) <= release(running))
