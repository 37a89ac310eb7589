"""The customer edition's handling of money: unit prices withheld, price lists unnamed (split from `render/edition.py`).

Unless the spec's `document.show_prices`, the capex table loses its price columns and chart (`withhold_prices`) and
the findings whose messages name unit prices read "[withheld]" for each amount (`withheld_finding`); with or without
it, no price list is named (`without_lists`, `no_list_notes`). `render/edition.py` applies these to a document.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from archgen.render.blocks import Bullets, Figure, Para, Table
from archgen.unit_definitions import CURRENCIES

#: What the capex table keeps when unit prices are withheld (`DocumentModel.show_prices` false).
_PRICE_COLUMNS = ("Unit price", "Total")
_WITHHELD = ("Unit prices and the capex of each part are withheld in this edition; the totals above are computed "
             "from every priced part in the bill of materials.")
#: Checks whose messages name unit prices: COST004 (a part at two lists' prices; a rack's placed parts at their own),
#: COST005 (a part priced at 0). Where unit prices are withheld, so are the amounts these messages name.
UNIT_PRICE_CHECKS = ("COST004", "COST005")
#: An amount of money as the checks write one: "28000 USD", "3,044,000 USD", "0.5 EUR".
_MONEY = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)? ?(?:" + "|".join(CURRENCIES) + r")\b")
#: A price list a finding or the capex table names ("in Prices 'a-negotiated'", "(2026-11, Prices vendorb-quote)"):
#: a customer edition names none, which would tell one vendor which other books we hold and what they are called.
_LIST = re.compile(r"\bPrices '[^']*'|\bPrices [A-Za-z0-9][\w.-]*(?=[),;])")
_LIST_NOTE = re.compile(r" \(Prices [^)]*\)")


def withhold_prices(blocks: list[Any]) -> list[Any]:
    """The cost section's blocks without unit prices or capex by part.

    The capex table less its price columns, no capex-by-kind chart, and a sentence saying so.
    """
    out: list[Any] = []
    for b in blocks:
        if isinstance(b, Figure) and b.name == "capex":
            continue
        if isinstance(b, Table) and b.id == "capex":
            keep = [i for i, c in enumerate(b.columns) if c.title not in _PRICE_COLUMNS]
            out += [Para(_WITHHELD), replace(b, caption="Parts priced", columns=tuple(b.columns[i] for i in keep),
                                              rows=tuple(tuple(row[i] for i in keep) for row in b.rows))]
            continue
        out.append(b)
    return out


def without_prices(text: str) -> str:
    """`text` with every amount of money it names read as "[withheld]" (a COST004 or COST005 message)."""
    return _MONEY.sub("[withheld]", text)


def without_lists(text: str) -> str:
    """`text` with every price list it names read as "a price list" (`_LIST`)."""
    return _LIST.sub("a price list", text)


def withheld_finding(check: str, message: str, prices: bool = False) -> str:
    """A finding's message as a customer edition prints it: no price list named (`without_lists`).

    Unless `prices` (the spec's `document.show_prices`), the messages of `UNIT_PRICE_CHECKS` name no amount of money.
    """
    message = without_lists(message)
    return without_prices(message) if check in UNIT_PRICE_CHECKS and not prices else message


def priced_findings(b: Any, prices: bool) -> Any:
    """The validation table's and open items' findings as `withheld_finding` gives them, the capex table's Basis too.

    The Basis names no price list: "sourced (Prices a-negotiated)" reads "sourced".
    """
    if isinstance(b, Table) and b.id == "validation":
        return replace(b, rows=tuple((row[0], withheld_finding(row[0], row[1], prices), *row[2:])
                                     if isinstance(row[1], str) else row for row in b.rows))
    if isinstance(b, Bullets):   # an open item from a finding reads "COST004 (fail): <message>"
        return replace(b, items=tuple(withheld_finding(i.split(" (", 1)[0], i, prices) for i in b.items))
    if isinstance(b, Table) and b.id == "capex":
        return no_list_notes(b)
    return b


def no_list_notes(b: Table) -> Table:
    """Table `b` with its Basis column's price list notes taken out ("sourced (Prices a-negotiated)": "sourced")."""
    at = [i for i, c in enumerate(b.columns) if c.title == "Basis"]
    if not at:
        return b
    return replace(b, rows=tuple(tuple(_LIST_NOTE.sub("", v) if i in at and isinstance(v, str) else v
                                       for i, v in enumerate(row)) for row in b.rows))
