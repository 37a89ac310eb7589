"""newuser94: a pointer to archgen's docs that is one clause of a bracket goes, not the figures around it.

The customer edition drops a sentence that still names archgen's docs once the bracketed pointers ("(see
docs/x.md)") are gone (`edition.without_paths`). A pointer written as the last clause of a bracket with other words
in it ("(Q / (ρ c_p ΔT), water; chilled-water practice, docs/facility.md)") was no bracketed pointer, so the whole
cell went: the shipped GB200 SU's "What the design needs from the hall" and the GB200 NVL72 rack's "Liquid loop and
CDU" tables read "Facility water, 8 × gb200-nvl72 | (blank)", the facility water flow an ODM sizes its piping by.
"""

from __future__ import annotations

import re

from archgen.render.edition import without_paths

SU = "gb200-nvl72-su"

#: The facility water cell as `render.rack_cooling.water_text` words it for the shipped GB200 SU.
WATER = ("1,288 L/min to 2,576 L/min for 893.5 kW at an assumed ΔT of 10 K to 5 K (Q / (ρ c_p ΔT), water; "
         "chilled-water practice, docs/facility.md); return not provided (in-row-cdu-1.3mw states no "
         "facility_delta_t and the hall 'hall-liquid' no design return (water.return))")


def test_a_docs_clause_in_a_bracket_goes_and_the_figures_stay():
    assert without_paths(WATER) == WATER.replace(", docs/facility.md", "")
    assert without_paths("0.27 a day (Garwood; no range where it states none; docs/reliability.md, Interruptions "
                         "by part class), as shown.") == "0.27 a day (Garwood; no range where it states none), as shown."
    assert without_paths("per goodput token (the cost per hour: the spares alone; docs/reliability.md), as shown.") \
        == "per goodput token (the cost per hour: the spares alone), as shown."
    # a bracket that is the pointer alone, and a sentence naming one outside brackets, go as before
    assert without_paths("Shown (see docs/rendering.md). Its accuracy is in docs/accuracy.md.") == "Shown."


def test_the_customer_edition_gives_the_facility_water_flow(su_customer):
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    row = re.search(r"^\| Facility water, 8 × gb200-nvl72 \| (.*) \|$", md, re.M)
    assert row is not None and row.group(1).startswith("1,288 L/min to 2,576 L/min for 893.5 kW"), row
    assert "docs/" not in row.group(1)


def test_the_facility_water_row_names_no_spec_key_for_a_customer(su_customer, every_document):
    """With its figures back, the row read "(Q / (ρ c p ΔT), ...); return not provided (in-row-cdu-1.3mw states no
    facility delta t and the hall 'hall-liquid' no design return (water.return))": a key in words and a spec path.
    The customer edition says what is not stated in words; the internal edition keeps the keys the team states."""
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    row = re.search(r"^\| Facility water, 8 × gb200-nvl72 \| (.*) \|$", md, re.M).group(1)
    assert row == ("1,288 L/min to 2,576 L/min for 893.5 kW (unconfirmed) at an assumed ΔT of 10 K to 5 K (Q / (ρ c "
                   "ΔT), water; chilled-water practice); return not provided (in-row-cdu-1.3mw states no facility-side ΔT and the "
                   "hall 'hall-liquid' no design return temperature)")
    internal = (every_document[2] / SU / f"{SU}.md").read_text(encoding="utf-8")
    assert "states no facility\\_delta\\_t and the hall 'hall-liquid' no design return (water.return)" in internal


def test_another_repositorys_docs_cited_at_a_commit_stay(su_customer):
    """The GB200 SU's customer edition printed two empty bullets under its performance estimates: the memory reserve
    ("... Megatron-Bridge's performance guide ..., docs/performance-guide.md at 067f987, line 365)") and the serving
    batch cap ("('The default value is 2048', NVIDIA/TensorRT-LLM docs/source/performance/...md at 16d2467ea8; ...)")
    cite another repository's docs at a commit, which the edition took for a pointer to archgen's own and dropped."""
    bridge = ("not reserved: fragmentation (no cited figure; Megatron-Bridge's performance guide sets it, "
              "docs/performance-guide.md at 067f987, line 365) and kernel workspaces")
    trtllm = ("capped at 2,048 ('The default value is 2048', NVIDIA/TensorRT-LLM docs/source/performance/"
              "tuning-max-batch-size-and-max-num-tokens.md at 16d2467ea8; per rank under attention DP)")
    assert (without_paths(bridge), without_paths(trtllm)) == (bridge, trtllm)
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    assert re.findall(r"^- *$", md, re.M) == []
    assert "NVIDIA/TensorRT-LLM docs/source/performance/tuning-max-batch-size-and-max-num-tokens.md" in md


def test_a_cdu_rating_not_stated_reads_without_its_key():
    """The GB200 NVL72 rack's "CDU capacity rated at" row read "not stated (rated at): ..." for a customer, the
    key `rated_at` in words in brackets; the customer words say what is not stated, the team's name the key."""
    from archgen.open_item import customer_text
    from archgen.render.rack_cooling import rated_at_text

    text = rated_at_text(None)
    assert str(text).startswith("not stated (rated_at): the capacity is not known to hold")
    assert customer_text(text) == ("not stated: the conditions the capacity is rated at are not given, so it is not "
                                   "known to hold at this hall's water and air (COOL010)")
