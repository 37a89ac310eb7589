"""The fast paths of rendering at scale write the same bytes as the straightforward code they replace.

Rendering a 131,072-GPU cluster spent its time numbering switch ports (a pint division per port name), writing
CSV cells one by one through the spreadsheet formatter and reading the run list's cells from numpy one by one
(`bench/bench_render.py` measures it). Both now take a short
way; this test renders the shipped clusters twice, once with the short ways and once with the reference code
(the code as it was, kept here), and compares every file byte for byte.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest

from archgen.analyse import port_numbers, portmap
from archgen.analyse.cable_bins import whole
from archgen.render import cabling, cluster, tables, wiring
from archgen.render.blocks import Cite, Column, Table
from archgen.units import Q_
from tests.render.conftest import render_text

#: Shipped clusters with a port map: a 2-tier rail-optimised SU and a 3-tier fabric with split up ports.
CLUSTERS = ("gb200-nvl72-su", "dgx-b200-superpod")
FORMATS = ("md", "csv")   # the port map's excerpt and its file; HTML and XLSX read the same tables


def reference_csv_bytes(table: Table, stamp: tuple[tuple[str, str], ...] = ()) -> bytes:
    """`tables.csv_bytes` as it was: every cell through `csv_cell`, the stamp's columns after them on each row."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([c.heading for c in table.columns] + [heading for heading, _ in stamp])
    for row in table.rows:
        writer.writerow([tables.csv_cell(v, c) for v, c in zip(row, table.columns, strict=True)]
                        + [value for _, value in stamp])
    return buf.getvalue().encode("utf-8")


def reference_ports(where: tuple, device: str, up: bool, n: int, counters: dict) -> str:
    """`port_numbers.port_names` as it was: the tier read and the up cage's lanes worked out with pint for every port."""
    fa, tier = where
    t = fa.tier(tier) if tier is not None else None
    if t is None:
        return "—"
    key = (device, int(up))
    first = counters.get(key, 0)
    counters[key] = first + n
    base = t.down if up else 0
    nums = [base + first + i + 1 for i in range(n)]
    over = nums[-1] > (t.down + t.up if up else t.down)

    twin = port_numbers.ports_per_cage(t)     # a twin-port cage's ports written cage/port, as a split cage's lanes
    per_cage = t.breakout * twin

    def name(p: int) -> str:
        if up:
            ratio = float((t.speed / t.up_speed).to("").magnitude)
            lanes = max(1, round(t.breakout * ratio)) * (twin if ratio == 1 else 1)
            cages, k = math.ceil(t.down / per_cage), p - t.down - 1
            return f"{cages + k // lanes + 1}/{k % lanes + 1}" if lanes > 1 else str(cages + k + 1)
        return f"{(p - 1) // per_cage + 1}/{(p - 1) % per_cage + 1}" if per_cage > 1 else str(p)
    first_name, last_name = name(nums[0]), name(nums[-1])
    if n == 1:
        text = first_name
    elif "/" in first_name and first_name.split("/")[0] == last_name.split("/")[0]:
        text = f"{first_name}-{last_name.split('/')[1]}"
    else:
        text = f"{first_name}-{last_name}"
    return f"{text} (past the {'up' if up else 'down'} ports)" if over else text


def reference_run_list(a) -> Table:
    """`cabling.run_list` as it was: each distinct run's cells read from numpy one by one."""
    cab = a.cabling
    options = {(t.fabric, t.tier): t.options for t in cab.tiers}
    rows = []
    for r in cab.runs:
        if len(r.a_rack) == 0:
            continue
        keys = np.stack([r.a_rack, r.a_u, r.b_rack, r.b_u, r.option, np.round(r.bin * 1000).astype(np.int64)])
        uniq, inverse = np.unique(keys, axis=1, return_inverse=True)
        weights = np.bincount(inverse.ravel(), weights=r.weight, minlength=uniq.shape[1])
        share = next(t.run_cables for t in cab.tiers if (t.fabric, t.tier) == (r.fabric, r.tier))
        cables = np.bincount(inverse.ravel(), weights=share, minlength=uniq.shape[1])
        lengths = np.zeros(uniq.shape[1])
        np.maximum.at(lengths, inverse.ravel(), r.length)
        opts = options.get((r.fabric, r.tier), ())
        for j in range(uniq.shape[1]):
            a_rack, a_u, b_rack, b_u, opt, bin_mm = (int(x) for x in uniq[:, j])
            link = opts[opt] if 0 <= opt < len(opts) else None
            name = "—" if link is None else (link.a.id if link.a.id == link.b.id else f"{link.a.id} / {link.b.id}")
            rows.append((r.fabric, wiring.TIER_TITLES.get(r.tier, r.tier), cabling._rack_name(cab, a_rack),
                         cabling._u(a_u), cabling._rack_name(cab, b_rack), cabling._u(b_u), name, float(lengths[j]),
                         cabling.length_basis(a_rack, b_rack), bin_mm / 1000, int(weights[j]),
                         whole(float(cables[j]))))
    return Table("cabling", "Cable runs", cabling.run_list(a).columns, tuple(rows))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_rendered_files_equal_the_reference_code(shipped_run, tmp_path, monkeypatch):
    """Every file of the shipped clusters' documents, tables and port maps: the same bytes both ways."""
    render_text(shipped_run, tmp_path / "fast", CLUSTERS, FORMATS)
    with monkeypatch.context() as mp:
        mp.setattr(tables, "csv_bytes", reference_csv_bytes)
        mp.setattr(cluster, "run_list", reference_run_list)
        mp.setattr(port_numbers.PortNumbering, "of", staticmethod(lambda fa, tier: (fa, tier)))
        mp.setattr(portmap, "port_names", reference_ports)
        render_text(shipped_run, tmp_path / "reference", CLUSTERS, FORMATS)
    fast, reference = _files(tmp_path / "fast"), _files(tmp_path / "reference")
    assert sorted(fast) == sorted(reference)
    assert {f"{c}/{f}" for c in CLUSTERS for f in ("portmap.csv", "cabling.csv")} <= set(fast)
    for name in fast:
        assert fast[name] == reference[name], name


def test_csv_cells_of_every_kind_equal_the_reference():
    """Text to neutralise or squeeze, numbers of each type, empty cells, quantities, citations, flags and lists."""
    cols = (Column("Text"), Column("Number", digits=0), Column("Float", digits=3), Column("Power", "kW", 2))
    rows = [("=HYPERLINK(\"x\")", 3, 1.23456, Q_(1500, "W")), ("  two   words ", np.int64(7), 2.0, None),
            ("-5", True, float("nan"), Q_(2, "kW")), (None, None, None, None),
            (Cite.of("https://example.com/a"), 10**12, -0.0005, Q_(3.14159, "kW")),
            (["a", "b"], False, 7, Q_(0, "W")), ("@sum", -4, np.float64(1.5), Q_(1, "MW"))]
    table = Table("t", "Kinds", cols, tuple(rows))
    assert tables.csv_bytes(table) == reference_csv_bytes(table)


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_port_numbering_is_read_once_per_tier(shipped_run, cluster):
    """The numbering of each switch tier holds the tier's own counts (what `_ports` used to read every time)."""
    a = next(c for c in shipped_run.clusters.values() if c.cluster.spec.id == cluster)
    for fa in a.fabrics:
        for t in fa.tiers:
            num = port_numbers.PortNumbering.of(fa, t.name)
            assert (num.down, num.up, num.breakout) == (t.down, t.up, t.breakout * port_numbers.ports_per_cage(t))
    assert port_numbers.PortNumbering.of(a.fabrics[0], "no-such-tier") is None
