"""What a design's document says about itself: customer, document number, revision, authors, readers, confidentiality.

`Rack.document` and `Cluster.document` carry it; the renderer prints it in the document-control table
(docs/rendering.md). Every field is optional: a missing one is printed as "not stated", never invented.
"""

from __future__ import annotations

from pydantic import Field

from archgen.model.spec import Spec


class DocumentInfo(Spec):
    """Document control of the design's rendered document."""

    customer: str = Field("", description="Who the document is written for, e.g. 'Example Cloud Inc.'.")
    number: str = Field("", description="Document number; default AG-RACK-<ID> or AG-CLUSTER-<ID>.")
    revision: str = Field("", description=(
        "The design's revision, e.g. 'B' or '1.2'; default: the last commit of the design's spec files in their "
        "git repository (with '+uncommitted' when they differ from it)."))
    authors: list[str] = Field(default_factory=list, description="Authors, e.g. ['A. Engineer (Example ODM)'].")
    audience: str = Field("", description="Who reads it, e.g. 'customer data-centre and network teams'.")
    confidentiality: str = Field("", description="Confidentiality marking printed on every page, e.g. "
                                                 "'Confidential: customer and partner only'.")
