"""What a design's document says about itself: customer, number, revision, approvals, authors, readers, prices.

`Rack.document` and `Cluster.document` carry it; the renderer prints it in the document-control table
(docs/rendering.md). Every field is optional: a missing one is printed as "not stated", never invented.
`show_prices` says whether the customer edition may show unit prices (`archgen.render.edition`).
"""

import datetime

from pydantic import Field

from archgen.model.spec import Spec


class Approval(Spec):
    """One sign-off of the document's release: who approved it, in what role, on what day."""

    name: str = Field(min_length=1, description="Who approved the release, e.g. 'A. Manager (Example Cloud)'.")
    role: str = Field("", description="In what role, e.g. 'release manager' or 'customer facility lead'.")
    date: datetime.date = Field(description=(
        "The day of the approval, as YYYY-MM-DD, e.g. 2026-12-01; a date that is no day is an error at its line."))
    revision: str = Field("", description=(
        "The revision of the document this approval signs off, e.g. 'B'. An approval of another revision than the "
        "document's `revision` is printed in the 'Approvals of other revisions' row, not as this revision's; "
        "unstated where the document states a revision, it approves no revision: that row says 'approval names no "
        "revision' beside it (a warning, SPC006)."))

    def text(self, current: str = "") -> str:
        """The approval as the document-control table prints it: 'A. Manager (release manager, 2026-12-01)'.

        Its revision is named unless it is `current`, the document's own: 'C. Manager (2026-12-01, revision A)', or
        'approval names no revision' where the approval names none and the document states one.
        """
        named = "" if self.revision == current else f"revision {self.revision}" if self.revision else \
            "approval names no revision" if current else ""
        return f"{self.name} ({', '.join(x for x in (self.role, self.date.isoformat(), named) if x)})"


class DocumentInfo(Spec):
    """Document control of the design's rendered document."""

    customer: str = Field("", description="Who the document is written for, e.g. 'Example Cloud Inc.'.")
    number: str = Field("", description="Document number; default AG-RACK-<ID> or AG-CLUSTER-<ID>.")
    revision: str = Field("", description=(
        "The design's revision, e.g. 'B' or '1.2'; default: the last commit of the design's spec files in their "
        "git repository (with '+uncommitted' when they differ from it)."))
    answers: dict[str, str] = Field(default_factory=dict, description=(
        "The revision of each of our Requirements documents this design answers, by the document's id, e.g. "
        "{gb300-hall: B}: a partner's proposal states the release it answers, and `archgen gap` fails one that "
        "answers another revision than the one it is judged against."))
    approvals: list[Approval] = Field(default_factory=list, description=(
        "Who approved which revision for release, in what role and on what day, e.g. [{name: A. Manager, role: "
        "release manager, date: 2026-12-01, revision: B}]: those of this `revision` are printed in the "
        "document-control table's 'Approved by' row in the order given (none: 'not approved: no approval names "
        "revision B'), those of other revisions in an 'Approvals of other revisions' row. Unstated: no row (the "
        "document says nothing of an approval)."))
    authors: list[str] = Field(default_factory=list, description="Authors, e.g. ['A. Engineer (Example ODM)'].")
    audience: str = Field("", description="Who reads it, e.g. 'customer data-centre and network teams'.")
    confidentiality: str = Field("", description="Confidentiality marking printed on every page, e.g. "
                                                 "'Confidential: customer and partner only'.")
    show_prices: bool = Field(False, description=(
        "Whether the customer edition may show unit prices and capex by part (the capex table's Unit price and "
        "Total, the capex-by-kind chart). Default false: it shows the totals (capex, TCO, cost per "
        "accelerator-hour and per token) and says the unit prices are withheld. The internal edition shows them "
        "always."))

    def approvals_of(self) -> tuple[list[Approval], list[Approval]]:
        """(this revision's approvals, those of other revisions), each in the spec's order.

        An approval is this revision's where it names the stated `revision`; without a stated revision every approval
        is (nothing to judge it by). A revision B copied from A with A's approval has none of its own, and neither has
        one whose approvals name no revision (all written before approvals could name one: diffpolish; SPC006).
        """
        this = [a for a in self.approvals if not self.revision or a.revision == self.revision]
        return this, [a for a in self.approvals if a not in this]

    def approval_text(self) -> str:
        """Who approved this revision, as the document-control table's 'Approved by' row reads; "" without approvals."""
        if not self.approvals:
            return ""
        this, _ = self.approvals_of()
        return "; ".join(a.text(self.revision) for a in this) if this else \
            f"not approved: no approval names revision {self.revision}"
