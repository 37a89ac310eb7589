"""An open item of a document, kept as its parts: subject, finding and the design team's instruction.

Its value is the text the internal edition prints (`layout`'s first form); `public` is what the customer edition
prints, by the layout's second form, which has no place for the instruction: an item built here cannot carry the
team's instruction into a customer's document, whatever its wording (docs/rendering.md, Document control and
editions). A plain string among a document's open items has no instruction and reads the same in both editions.

A check's finding is worded the same way (`Worded`): its internal text with its `public` one, the customer's words a
check gives the same fact in (`checks.registry.Violation.public`), so that the customer edition prints what the check
wrote for a customer rather than rewording the team's text after the fact.
"""

from __future__ import annotations

#: How an item's parts read in each edition: (internal, customer). The customer form never holds {instruction}.
LAYOUTS = {
    "then": ("{subject}: {finding}; {instruction}.", "{subject}: {finding}."),
    "to": ("{subject}: {instruction}.", "{subject}."),
    "aside": ("{subject} ({instruction}): {finding}.", "{subject}: {finding}."),
    "check": ("{subject} ({check}; {instruction}): {finding}.", "{subject} ({check}): {finding}."),
    "confirm": ("{instruction} {subject}: {finding}.", "{subject}: figures not confirmed from a public source: "
                                                       "{finding}."),
}


class OpenItem(str):
    """An open item: the internal edition's text, with its `subject`, `finding`, `instruction` and `public` text."""

    subject: str
    finding: str
    instruction: str
    check: str
    public: str

    def __new__(cls, layout: str, subject: str, finding: str = "", instruction: str = "",
                check: str = "") -> OpenItem:
        """The item laid out as `LAYOUTS[layout]` says, in the internal edition's words (its `public` the other)."""
        internal, public = LAYOUTS[layout]
        parts = {"subject": subject, "finding": finding, "instruction": instruction, "check": check}
        item = super().__new__(cls, internal.format(**parts))
        item.subject, item.finding, item.instruction, item.check = subject, finding, instruction, check
        item.public = public.format(**{k: customer_text(v) for k, v in parts.items()})   # a `Worded` part's too
        return item


class Worded(str):
    """A text of a document in the internal edition's words (its value), with the customer edition's (`public`)."""

    public: str

    def __new__(cls, text: str, public: str) -> Worded:
        """`text` as the internal edition prints it, `public` as the customer edition does."""
        item = super().__new__(cls, text)
        item.public = public
        return item

    def __reduce__(self) -> tuple:
        """Pickled with both texts (`str`'s own keeps the value only)."""
        return (Worded, (str(self), self.public))


def customer_text(item: str) -> str:
    """What the customer edition prints for an open item or worded text: its `public` text, a plain string as it is."""
    return item.public if isinstance(item, (OpenItem, Worded)) else item


def worded(template: str, *parts: str) -> str:
    """`template` formatted with `parts`: a `Worded` whose customer text takes each part's own, where any part has one.

    The one way a text built from worded parts keeps the customer's words (a withheld figure's reason, `analyse.
    operations_stage._withhold`, read by `archgen gap --audience customer` as a check's finding is); a plain string
    where no part is worded.
    """
    text, said = template.format(*parts), template.format(*map(customer_text, parts))
    return text if said == text else Worded(text, said)
