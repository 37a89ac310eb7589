"""One hall and a two-rack GB200 NVL72 cluster in it: the specs the hall-sharing tests add clusters to (review24).

test_shared_storage, test_shared_storage_capex and test_diff_hall each wrote these out (duplicates --change). The
hall's capacity is each test's input, not a quote; a cluster's `storage` line is a test's own (empty for none).
"""

from __future__ import annotations


def hall(capacity: str = "2000 kW") -> str:
    """The Facility `one-hall`, its IT and cooling capacity `capacity`."""
    return f"""kind: Facility
id: one-hall
floor_rating: 2500 kg/m**2
water: {{supply: 30 degC}}
air: {{supply: 25 degC}}
critical_it_power: {capacity}
cooling_capacity: {capacity}
"""


def cluster(cid: str, storage: str = "", facility: str = "one-hall") -> str:
    """A Cluster `cid` in `facility`, one unit of two gb200-nvl72 racks, with a `storage:` line where given."""
    return f"""---
kind: Cluster
id: {cid}
facility: {facility}
{storage}
units:
- id: su
  racks:
  - {{rack: gb200-nvl72, count: 2}}
layout:
- {{unit: su, count: 1}}
floor: {{racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}}
"""
