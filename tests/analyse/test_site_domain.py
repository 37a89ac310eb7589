"""The failure-domain table's site row is down for the site events' duration (newuser92).

A reliability engineer's hall states one 48-hour outage in five years (`site_events`); goodput charges its 48 h
(tests/test_goodput.py), but the cluster document's failure domains gave the site row a repair of 0 h.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from archgen.pipeline import run

DATA = Path(__file__).parents[1] / "data" / "reliability"
ROOT = Path(__file__).parents[2]
EVENTS = """site_events:
  - {name: "utility loss beyond UPS and generator", per_year: 0.2, duration: 48 h, basis: assumed, source: test}
  - {name: "cooling plant trip", per_year: 0.6, duration: 4 h, basis: assumed, source: test}
"""


def test_the_site_domain_is_down_for_the_events_mean_duration(tmp_path):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(ROOT / "specs" / "racks" / "dgx-h100-4.yaml", tree / "rack.yaml")
    hall = (ROOT / "specs" / "catalog" / "facilities" / "hall-air.yaml").read_text(encoding="utf-8")
    (tree / "hall.yaml").write_text(hall.replace("id: hall-air", "id: hall-outage") + EVENTS, encoding="utf-8")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace("facility: hall-air", "facility: hall-outage"),
                       encoding="utf-8")
    for rack in (tree / "rack.yaml",):   # the rack names the hall it is judged in
        rack.write_text(rack.read_text(encoding="utf-8").replace("facility: hall-air", "facility: hall-outage"),
                        encoding="utf-8")
    rel = run([tree]).operations.reliability["cluster/llama3-16k"]
    site, = (d for d in rel.domains if d.name == "site")
    assert site.per_year == pytest.approx(0.8)
    # (0.2 x 48 h + 0.6 x 4 h) / 0.8 events a year = 15 h an event
    assert site.repair.m_as("h") == pytest.approx((0.2 * 48 + 0.6 * 4) / 0.8)
