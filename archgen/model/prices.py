"""A price list: prices of catalog parts and racks that a project or a vendor's proposal supplies.

A `Prices` document overlays the catalog: a part or rack it names takes its price from the list instead of its own
`price:` (docs/reliability.md, Cost), so a quote prices a design without copying the parts it prices.
"""

from typing import Literal

from pydantic import Field

from archgen.model.cost import Price
from archgen.model.spec import Document, Id


class Prices(Document):
    """Prices by part or rack id, each with its currency, date, basis and source; they override the parts' own."""

    kind: Literal["Prices"] = "Prices"
    prices: dict[Id, Price] = Field(description=(
        "Price of one unit by the id of a catalog part (system, switch, link, NIC, CDU, shelf, PDU) or a rack (the "
        "empty rack: enclosure and busbar; the parts placed in it and its liquid fittings are priced by their own "
        "ids), e.g. "
        "`dgx-b200: {capex: 515000 USD, date: '2025-03', basis: sourced, source: 'quote Q-123'}`."))
    source: str | list[str] = Field("", description="Where the list as a whole comes from (a quote, a price book).")
