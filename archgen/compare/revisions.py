"""The released revisions two runs state, for `archgen diff`: each document's revision BASE → HEAD.

A rack's or cluster's `document.revision` (with its `document.number`) and a Requirements document's `revision` are
what a partner quotes ("HS-GB300-SU-0001 revision B"). A `RevisionChange` is one document of both sides whose stated
revision differs, or whose spec changed while it still states BASE's revision: a release made from HEAD would carry
the old revision on new content (newuser86's trial: the comment named two folders, and no line named the revisions).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.model import Cluster, Rack
from archgen.model.requirements import Requirements
from archgen.pipeline import Run
from archgen.waivers import object_path


@dataclass(frozen=True)
class RevisionChange:
    """One document's stated revision in BASE and HEAD ("" where not stated); `number` is HEAD's document number."""

    object: str
    number: str
    base: str
    head: str
    #: Who approved HEAD's revision (`DocumentInfo.approval_text`: "not approved: no approval names revision B" where
    #: the approvals name only others); "" where HEAD's document states no approvals, or is a Requirements document.
    approval: str = ""

    @property
    def changed(self) -> bool:
        """The stated revision differs; False: the spec changed under the revision BASE states."""
        return self.base != self.head


def revision_changes(base: Run, head: Run) -> tuple[RevisionChange, ...]:
    """The documents of both runs whose stated revision differs, or that changed under an unchanged one, by path."""
    out = []
    for doc_id in sorted(set(base.specs.items) & set(head.specs.items)):
        old, new = base.specs.items[doc_id], head.specs.items[doc_id]
        stated = (Rack, Cluster, Requirements)
        if type(old) is not type(new) or not isinstance(new, stated) or not isinstance(old, stated):
            continue
        was, now = _revision(old), _revision(new)
        if was != now or (now and _content(old) != _content(new)):
            number, approval = (new.document.number, new.document.approval_text()) if isinstance(new, (Rack, Cluster)) \
                else ("", "")
            out.append(RevisionChange(object_path(new), number, was, now, approval))
    return tuple(sorted(out, key=lambda c: c.object))


def prices_shown(base: Run, head: Run) -> tuple[str, ...]:
    """The racks and clusters both runs hold whose `document.show_prices` is true in each, by object path.

    Their customer editions show unit prices and capex by part in both revisions, so a partner's change list may show
    the figures resting on them (`output.diff_customer`); where one revision withholds them, the change list does too:
    a capex change over a count change would tell the previous revision's unit price, which its edition withheld.
    """
    def shown(run: Run) -> set[str]:
        return {object_path(d) for d in run.specs.items.values()
                if isinstance(d, (Rack, Cluster)) and d.document.show_prices}
    return tuple(sorted(shown(base) & shown(head)))


def _revision(doc: Rack | Cluster | Requirements) -> str:
    return doc.revision if isinstance(doc, Requirements) else doc.document.revision


def _content(doc: Rack | Cluster | Requirements) -> str:
    """The document's spec as JSON, its revision left out: what a new revision is owed for."""
    blank = doc.model_copy(update={"revision": ""}) if isinstance(doc, Requirements) else \
        doc.model_copy(update={"document": doc.document.model_copy(update={"revision": ""})})
    return blank.model_dump_json()
