"""One document prints a number one way (newuser56): text echoed from specs and check messages as the value cells.

`display.number` groups thousands ("1,400 kg"); a check message carries the spec's figure as written ("max_payload
1400 kg"). The documents pass such text through `fmt.grouped_numbers`; `archgen check`'s JSON and SARIF keep the
message as the check wrote it.
"""

from __future__ import annotations

import pytest

from archgen.render import fmt, render_all
from tests.conftest import shared_diagrams


@pytest.mark.parametrize("text, shown", [
    ("max_payload 1400 kg, depth 1068 mm", "max_payload 1,400 kg, depth 1,068 mm"),
    ("its 1300 kW is counted", "its 1,300 kW is counted"),
    ("<= 1400 kg", "<= 1,400 kg"),
    ("under 1352.5 kg together", "under 1,352.5 kg together"),
    ("1200 L/min at 40 °C", "1,200 L/min at 40 °C"),
    ("weight 150 kg", "weight 150 kg"),                   # under 1,000: nothing to group
    ("in 2026 a year", "in 2026 a year"),                 # a year, and words pint would read as units
    ("rev 2024 H100", "rev 2024 H100"),                   # "H" is the henry, "H100" is not a unit
    ("in-row-cdu-1300 kW", "in-row-cdu-1300 kW"),         # part of an id
    ("8192 GPUs", "8192 GPUs"),                           # a count of things, not a unit
    ("dated 2026-12-05 12:00", "dated 2026-12-05 12:00"),
    # what quotes the spec stays as the spec wrote it (newuser102)
    ("<= 2281.54 USD (as written: 20000000 USD/year)", "<= 2,281.54 USD (as written: 20000000 USD/year)"),
    ("target '<= 20000000 USD/year' on 2281 kW", "target '<= 20000000 USD/year' on 2,281 kW"),
    ("NVIDIA's 1300 W, the racks' 1400 kg", "NVIDIA's 1,300 W, the racks' 1,400 kg"),   # apostrophes quote nothing
])
def test_grouped_numbers(text: str, shown: str) -> None:
    assert fmt.grouped_numbers(text) == shown


def test_document_groups_echoed_numbers_but_messages_keep_their_text(shipped_run, tmp_path) -> None:
    with shared_diagrams():
        render_all(shipped_run, tmp_path, target="gb200-nvl72", formats=("md",), revision="test", progress=False)
    md = (tmp_path / "gb200-nvl72" / "gb200-nvl72.md").read_text(encoding="utf-8")
    for bare, grouped in (("max\\_payload 1400 kg", "max\\_payload 1,400 kg"), ("its 1300 kW", "its 1,300 kW"),
                          ("\\<= 1400 kg", "\\<= 1,400 kg")):
        assert bare not in md and grouped in md
    messages = " ".join(f.message for f in shipped_run.findings if f.object == "rack/gb200-nvl72")
    assert "max_payload 1400 kg" in messages and "its 1300 kW" in messages  # the JSON/SARIF text, unchanged
