"""`archgen checks`: every check ID with its severity and summary."""

from __future__ import annotations

from archgen.checks import REGISTRY, RESERVED


def checks() -> tuple[str, int]:
    """One line per check, registered ones then those reserved for problems found before the checks run."""
    lines = [f"{cid:8} {c.severity:8} {c.summary}" for cid, c in sorted(REGISTRY.items())]
    lines += [f"{cid:8} {'error':8} {summary}" for cid, summary in sorted(RESERVED.items())]
    return "".join(f"{line}\n" for line in lines), 0
