"""The coolant pressure-drop row reads in words in the customer edition (newuser108).

Before: the GB200 NVL72 rack's customer edition read "not stated + piping not stated (piping pressure drop) / not
stated (the CDU's pressure); not judged": the rack's key in brackets was left out, the piping's (written without
its path, `piping_pressure_drop`) was turned into words and stayed, repeating the words before it. Expected: both
keys left out alike in the customer edition, both kept, by path, in the internal one.
"""

from __future__ import annotations

from archgen.render.edition import reworded
from archgen.render.rack_cooling import pressure_text


def test_the_pressure_row_names_no_key_for_a_customer_and_both_for_the_team(shipped_run):
    internal = pressure_text(shipped_run.racks["rack/gb200-nvl72"])
    assert internal == ("not stated (cooling.liquid.pressure_drop) + piping not stated "
                        "(cooling.liquid.piping_pressure_drop) / not stated (the CDU's pressure); not judged")
    assert reworded(internal) == "not stated + piping not stated / not stated (the CDU's pressure); not judged"
