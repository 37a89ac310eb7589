"""Orderable part numbers: the field's format, generic parts, the numbers the catalog cites, and the BOM's cell.

Every BOM line gives a number or says why it has none (`analyse.bom_line.part_number`): a bare dash told an ODM nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from archgen.analyse.bom_line import GENERIC_PART, NOT_PROVIDED, RACK_ASSEMBLY, WITH_SYSTEM, BomLine, part_number
from archgen.load import load_paths
from archgen.model import KINDS, Part
from archgen.model.field_types import PartNumber

CATALOG = Path(__file__).resolve().parents[1] / "specs" / "catalog"
PARTS = {d.id: KINDS[d.kind].model_validate(d.data) for d in load_paths([CATALOG])
         if issubclass(KINDS[d.kind], Part)}
NUMBER = TypeAdapter(PartNumber)


@pytest.mark.parametrize("text", ["MQM9700-NS2F", "MCP4Y10-N00A", "920-9B210-00FN-0M0", "DCS-7060X6-64PE-F",
                                  "P12345-B21#0D1", "QDD-2X400G-FR4=", "CAB-TA-NA", "GLC-TE", "CAB-TA-NA=",
                                  "PWR-C1-1100WAC-P/2", "C3900-SPE250/K9", "CRS326-24G-2S+RM",
                                  "CISCO2911/K9", "ISR4331-SEC/K9-WS", "PWR-C1-715WAC-P/2"])
def test_an_orderable_code_is_read(text: str) -> None:
    """NVIDIA's, Arista's, HPE's, MikroTik's and Cisco's number shapes are read as written: Cisco's spare ends in '='
    (review49), its power cords and copper SFP hold no digit and its second power supply and export class close on a
    '/' suffix (review50), the export class with a bundle's segment after it (ISR4331-SEC/K9-WS; pods34)."""
    assert NUMBER.validate_python(f" {text} ") == text


@pytest.mark.parametrize("text", ["TBD", "n/a", "N/A", "none", "A/B", "MMA4Z00-NS400 / MMA1Z00-NS400",
                                  "MMA4Z00-NS400/MMA1Z00-NS400", "MCP4Y10-N001, MCP4Y10-N002", "-MMA4Z00", "MMA4Z00--NS",
                                  "QDD=400G", "=QDD-400G", "QDD-400G==",
                                  "A1/B2", "QM9700/QM9790", "MQM9700-NS2F/2A", "X/K9", "MCP4Y10/N00A"])
def test_a_word_or_two_codes_is_refused(text: str) -> None:
    """A placeholder word (a word with no digit and no '-': 'none', 'A/B', 'X/K9'), a list of alternatives (two codes
    joined by ' / ', or by '/' alone: a '/' closes a code with Cisco's export class K7/K8/K9/NPE or a unit digit, so
    'A1/B2' and 'QM9700/QM9790' are two codes; pods34) or a code with a loose dash is no one orderable number."""
    with pytest.raises(ValidationError, match="one orderable part number"):
        NUMBER.validate_python(text)


@pytest.mark.parametrize("text", ["N-A", "n.a", "TO-BE-CONFIRMED", "TBD-TBD", "tbc-1", "QM9700-TBD", "TODO_2",
                                  "NOT-APPLICABLE", "UNKNOWN", "PENDING", "to-be-determined"])
def test_a_placeholder_is_refused(text: str) -> None:
    """Words joined by '-' read as a code (CAB-TA-NA), but a placeholder does not, however it is joined: spelled out
    with the separators dropped ('N-A' is NA), or a TBD/TBC/TBA/TODO segment anywhere (tidy34, from review51)."""
    with pytest.raises(ValidationError, match="one orderable part number|not a placeholder"):
        NUMBER.validate_python(text)


def test_every_shipped_number_is_read() -> None:
    """No number the catalog ships is taken for a placeholder (CAB-TA-NA keeps its NA segment)."""
    numbers = [p.part_number for p in PARTS.values() if p.part_number]
    assert numbers and all(NUMBER.validate_python(n) == n for n in numbers)


def test_a_generic_part_states_no_number() -> None:
    """A class part has no one vendor's number: stating both is refused."""
    data = {**PARTS["pdu-415v-60a-3ph"].model_dump(mode="json", exclude_none=True), "part_number": "PX3-5747V-V2"}
    with pytest.raises(ValidationError, match="is generic"):
        type(PARTS["pdu-415v-60a-3ph"]).model_validate(data)


@pytest.mark.parametrize(("part", "number"), [
    # NVIDIA DGX SuperPOD RA featuring DGX H100, RA-11333-001 V11, Appendix A, Table 7 (recommended models)
    ("qm9700", "920-9B210-00FN-0M0"), ("sn4600c", "920-9N302-00F7-0C2"), ("sn2201", "920-9N110-00F1-0C0"),
    # NVIDIA DOCA Installation Guide for Linux v2.9.3, Supported Platforms (B3240)
    ("bluefield-3", "900-9D3B6-00CN-AB0"),
])
def test_numbers_match_their_sources(part: str, number: str) -> None:
    """The catalog states the number its cited NVIDIA document prints, and cites it beside the number."""
    assert PARTS[part].part_number == number
    assert any(number in s for s in PARTS[part].source)


def test_class_parts_are_generic() -> None:
    """A part whose vendor is 'generic' is marked generic, and no generic part states a number."""
    generic = {p.id for p in PARTS.values() if p.generic}
    assert {p.id for p in PARTS.values() if p.vendor == "generic"} <= generic
    assert {"pdu-415v-60a-3ph", "in-row-cdu-1.3mw", "amd-mi355x-platform", "cat6a-1g"} <= generic
    assert not [p.id for p in PARTS.values() if p.generic and p.part_number]


def _line(kind: str = "Switch", within: str = "", provided: bool = True) -> BomLine:
    return BomLine("x", kind, 1, None, within=within, provided=provided)


def test_the_bom_says_why_a_line_has_no_number() -> None:
    """Number, else generic, rack, fitted in a system, counted by rule or not provided: never a bare dash."""
    assert part_number(_line(), PARTS["qm9700"]) == "920-9B210-00FN-0M0"
    assert part_number(_line("PDU"), PARTS["pdu-415v-60a-3ph"]) == GENERIC_PART
    assert part_number(_line("Accelerator", within="dgx-b200"), PARTS["b200-sxm-180gb"]) == WITH_SYSTEM
    assert part_number(_line("System"), PARTS["dgx-b200"]) == NOT_PROVIDED
    assert part_number(_line("Rack"), object()) == RACK_ASSEMBLY
    assert part_number(_line("Rails"), None) == GENERIC_PART                      # counted by rule
    assert part_number(_line("Accessory", provided=False), None) == NOT_PROVIDED  # a part the spec does not name
