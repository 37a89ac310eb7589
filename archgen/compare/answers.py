"""Which release of our requirements a proposal answers (`DocumentInfo.answers`), beside the one it is judged against.

A program releases revisions of its requirements to partners (`Requirements.revision`: A, then B with a rack
budget cut). Each partner's proposal names the revision it answers in a rack's or cluster's `document.answers`
(`{gb300-hall: B}`); `archgen gap` judges it against the revision given as `--against`. An `Answer` per Requirements
document that states a revision: the revisions the proposal says it answers and the objects saying so. One that
answers another revision answers a superseded (or not yet released) release: its figures were chosen against other
targets, so the report fails (newuser86's trial: an ODM's proposal to revision A was judged against B in silence).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from archgen.validate import Specs
from archgen.waivers import object_path


@dataclass(frozen=True)
class Answer:
    """One of our Requirements documents with a revision, and what the proposal says it answers of it."""

    requirements: str                 # the Requirements document's id
    released: str                     # its `revision`, the one judged
    answered: tuple[str, ...] = ()    # the revisions the proposal's documents name for it, sorted; () for none
    objects: tuple[str, ...] = ()     # the proposal's objects that name one

    @property
    def current(self) -> bool | None:
        """True where the proposal answers the revision judged alone; False where another; None where it names none."""
        return None if not self.answered else self.answered == (self.released,)

    def text(self, public: bool = False) -> str:
        """The report's sentence; `public` (the partner's edition) leaves out which objects name the revision."""
        if self.current is None:
            how = "" if public else " (a rack's or cluster's document.answers)"
            return f"It states no revision of {self.requirements} it answers{how}; judged against revision " \
                f"{self.released}."
        said = " and ".join(self.answered)
        if self.current:
            return f"It answers revision {said} of {self.requirements}, the revision judged."
        where = "" if public else f" ({', '.join(self.objects)})"
        return (f"It answers revision {said} of {self.requirements}{where}, not revision {self.released}, the one "
                f"judged: it answers a superseded release, and its rows are judged against {self.released}.")


def answers(specs: Specs, owners: Collection[str], files: Collection[Path]) -> tuple[Answer, ...]:
    """An `Answer` for each of the `owners` (our Requirements ids) that states a revision.

    What the proposal answers is read from its racks and clusters (those of `files`, resolved) that state
    `document.answers`.
    """
    stated: dict[str, dict[str, str]] = {}
    for doc_id, doc in sorted(specs.items.items()):
        info = getattr(doc, "document", None)
        if info is not None and info.answers and Path(specs.sources[doc_id].file).resolve() in files:
            stated[object_path(doc)] = info.answers
    out = []
    for owner in sorted(owners):
        released = getattr(specs.get(owner), "revision", "")
        if released:
            said = {o: a[owner] for o, a in stated.items() if owner in a}
            out.append(Answer(owner, released, tuple(sorted(set(said.values()))), tuple(sorted(said))))
    return tuple(out)


def merged(parts: Iterable[tuple[Answer, ...]]) -> tuple[Answer, ...]:
    """The answers of several designs' reports as one (`compare.gap.merge`): revisions and objects together."""
    by: dict[tuple[str, str], Answer] = {}
    for a in (a for p in parts for a in p):
        seen = by.get((a.requirements, a.released), Answer(a.requirements, a.released))
        by[(a.requirements, a.released)] = Answer(a.requirements, a.released,
                                                  tuple(sorted({*seen.answered, *a.answered})),
                                                  tuple(sorted({*seen.objects, *a.objects})))
    return tuple(by[k] for k in sorted(by))
