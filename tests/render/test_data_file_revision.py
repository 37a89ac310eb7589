"""Every data CSV and diagram SVG a render writes says which document and revision it belongs to.

newuser87's trial: an ODM imports `bom.csv` into its ERP and files `elevation.svg` with the rack drawings. Revisions
A and B of one design wrote CSVs and SVGs that named neither, so a BOM forwarded on its own could not be told from
the other release's (only `document.csv` beside it, which a forwarded file leaves behind). Each data CSV now carries
the document number and revision in two last columns, one value on every row (as a PLM export carries its parent's),
and each SVG file a `<title>`; the same input gives the same bytes.
"""

from __future__ import annotations

import csv
import io

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
NAME = "name: DGX H100 rack (4 systems, air cooled)\n"


def _render(tmp_path, revision: str, *extra: str) -> dict[str, bytes]:
    assert NAME in RACK
    stated = f"document: {{number: AG-DGX-4, revision: {revision}}}\n"
    specs = write_tree(tmp_path / f"rev{revision}", {"rack.yaml": RACK.replace(NAME, NAME + stated, 1)})
    out = tmp_path / f"out{revision}"
    r = run_cli("render", specs, "--out", out, "--formats", "md,csv", *extra)
    assert r.code == 0, r.err
    return {p.name: p.read_bytes() for p in (out / "dgx-h100-4").iterdir()}


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def test_each_data_csv_carries_the_document_number_and_revision(tmp_path):
    files = _render(tmp_path, "B")
    data = sorted(n for n in files if n.endswith(".csv") and n != "document.csv")
    assert {"bom.csv", "requirements.csv"} <= set(data)
    for name in data:
        rows = _rows(files[name])
        assert rows[0][-2:] == ["Document number", "Revision"], name
        assert len(rows) > 1 and all(row[-2:] == ["AG-DGX-4", "B"] for row in rows[1:]), name
    control = dict(_rows(files["document.csv"]))
    assert (control["Document number"], control["Revision"]) == ("AG-DGX-4", "B")
    assert _rows(files["document.csv"])[0] == ["Field", "Value"]        # the control table itself: as it was


def test_two_revisions_data_files_differ_and_each_is_deterministic(tmp_path):
    a, b = _render(tmp_path, "A"), _render(tmp_path, "B")
    assert a["bom.csv"] != b["bom.csv"]
    assert a["bom.csv"].replace(b",AG-DGX-4,A\n", b",AG-DGX-4,B\n") == b["bom.csv"]   # nothing else moved
    assert _render(tmp_path / "again", "B")["bom.csv"] == b["bom.csv"]


def test_each_svg_file_is_titled_with_the_revision(tmp_path):
    files = _render(tmp_path, "B")
    svg = files["elevation.svg"].decode("utf-8")
    assert "<title>AG-DGX-4 revision B: elevation</title>" in svg
    assert svg.index("<title>") < svg.index("<metadata>")                # the root's first child


def test_the_customer_edition_stamps_its_own_revision_text(tmp_path):
    files = _render(tmp_path, "B", "--audience", "customer")
    rows = _rows(files["bom.customer.csv"])
    assert rows[0][-2:] == ["Document number", "Revision"] and rows[1][-2:] == ["AG-DGX-4", "B"]
