"""Issue 24, part 3 and its bar: the customer edition of the shipped GB200 SU document.

The bar: it contains no repository path, no link to archgen's docs, no snake_case metric key and no "not read
directly"; it has a references list, the sections of part 3 (management rack and control plane, storage
architecture, software stack, data-centre requirements, rail wiring and the port map, the BOM per scalable-unit
count), and a port map with one row per cable (portmap.csv and the workbook's 'portmap' sheet).
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from archgen.render.edition import metric_titles

SU = "gb200-nvl72-su"
PART3 = ("Rail wiring and port map", "Storage architecture", "Management rack and control plane", "Software stack",
         "Data-centre requirements", "Bill of materials by scalable-unit count")


@pytest.fixture(scope="module")
def customer(su_customer):
    """The customer edition of the GB200 SU document in md, html, csv, xlsx and svg (and pdf): `conftest.su_customer`."""
    return su_customer


def test_customer_edition_meets_the_bar(customer, shipped_run):
    md = (customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    html = (customer / f"{SU}.customer.html").read_text(encoding="utf-8")
    keys = set(metric_titles())
    for text in (md.replace("\\_", "_"), re.sub(r"<wbr>|<[^>]+>", "", html)):
        # no path of the repository's docs/ (a source's URL may hold one: docs.nvidia.com/mission-control/docs/...,
        # and so may another repository's file cited at a commit: "NVIDIA/TensorRT-LLM docs/source/x.md at 16d2467ea8")
        cited = re.sub(r"https?://\S+|docs/[\w./-]+\.md at [0-9a-f]{7}", "", text)
        assert "docs/" not in cited and "not read directly" not in text.lower()
        assert not {k for k in keys if k in text and re.search(rf"(?<![\w.]){re.escape(k)}(?![\w])", text)}
        assert not re.search(r"\b(specs|catalog|examples|archgen|tests)/[\w./-]+\.(yaml|yml|py|md)\b", text)
        assert not re.search(r"\.ya?ml:\d+", text)
    # a references list, numbered from 1
    refs = re.findall(r"^\| \\\[(\d+)\\\] \| (.+) \|$", md, re.M)
    assert len(refs) >= 20 and [int(n) for n, _ in refs] == list(range(1, len(refs) + 1))
    # the sections of part 3, each a numbered heading
    for title in PART3:
        assert re.search(rf"^## \d+ {re.escape(title)}$", md, re.M), title
    assert "rails-compute.svg" in md and (customer / "rails-compute.svg").read_bytes().startswith(b"<?xml")
    # the stated facility rating and the software stack, 'not provided' where the spec is silent
    assert "| Availability rating | Uptime Institute Tier III (design, not certified) |" in md
    assert "| Concurrently maintainable | yes |" in md and "| UPS redundancy | not provided |" in md
    assert "| Cluster manager and provisioning | NVIDIA Mission Control |" in md
    assert "| Operating system | not provided |" in md


def test_port_map_has_one_row_per_cable(customer, shipped_run):
    a = shipped_run.clusters[f"cluster/{SU}"]
    cables = sum(t.physical for t in a.cabling.tiers)
    rows = list(csv.DictReader(io.StringIO((customer / "portmap.customer.csv").read_text(encoding="utf-8"))))
    # 481 OOB ports, 32 uplinks: 16 leaves; the 66 leaf-spine DACs (132 links) whose runs pass 2 m, the MCP4Y10's
    # longest length sold, are 66 LACC at 3 m (they were 132 SR8 fibres, + 66: test_copper_shortest_sold); the 288
    # storage links at 200G are 144 1:2 splitter fibres (- 144: tests/analyse/test_splitter_fibres.py)
    assert len(rows) == cables == 1533 - 273 - 12 + 481 + 32 - 144 == 1617
    assert len({r["Cable"] for r in rows}) == len(rows)
    assert set(rows[0]) >= {"A rack", "A U", "A device", "A port", "B rack", "B U", "B device", "B port", "Media",
                            "Run length (m)", "Ordered length (m)"}
    from openpyxl import load_workbook
    sheet = load_workbook(customer / f"{SU}.customer.xlsx", read_only=True)["portmap"]
    assert sum(1 for _ in sheet.iter_rows()) == cables + 1
    # the BOM by size: one column per size of the growth series (1 and 2 SUs: 2 x is the 2-tier fabric's last)
    by_size = list(csv.reader(io.StringIO((customer / "bom-by-size.customer.csv").read_text(encoding="utf-8"))))
    assert by_size[0][3:] == ["1 unit, 576 accelerators", "2 units, 1,152 accelerators", "Document number", "Revision"]
    racks = {r[0]: r[3:-2] for r in by_size[1:] if r[1] == "Rack"}
    assert racks["gb200-nvl72"] == ["8", "16"]
