"""Floor geometry of a cluster: rack positions, cable run lengths and length bins (numpy, SI metres).

Racks stand in rows (`floor.racks_per_row`) at `rack_pitch` along a row and `row_pitch` between rows; cables run in
overhead trays laid as a grid above the racks, so a run between two racks is
``tray_drop (up) + |Δx| + |Δy| (Manhattan along the trays) + tray_drop (down) + slack`` and a run inside one rack is
``|Δheight| + in_rack``.
"""

from __future__ import annotations

import numpy as np

from archgen.build import ClusterDesign

#: Length bins (m) a run is ordered in when the floor names none.
DEFAULT_BINS_M = (0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000)
#: One rack unit in metres (44.45 mm).
U_M = 0.04445


def length_bins(cluster: ClusterDesign) -> np.ndarray:
    """The cable lengths runs are ordered in (m), ascending."""
    bins = cluster.spec.floor.length_bins
    return np.array(sorted(b.m_as("m") for b in bins) if bins else DEFAULT_BINS_M, dtype=float)


def positions(cluster: ClusterDesign) -> tuple[np.ndarray, np.ndarray]:
    """X (along the rows) and y (across them) of every rack instance, in metres."""
    f = cluster.spec.floor
    pitch, row = f.rack_pitch.m_as("m"), f.row_pitch.m_as("m")
    x = np.array([i.col * pitch for i in cluster.instances], dtype=float)
    y = np.array([i.row * row for i in cluster.instances], dtype=float)
    return x, y


def lengths(cluster: ClusterDesign, x: np.ndarray, y: np.ndarray, a_rack: np.ndarray, a_u: np.ndarray,
            b_rack: np.ndarray, b_u: np.ndarray) -> np.ndarray:
    """The length of each run from (rack index, height in U) to (rack index, height in U), in metres."""
    f = cluster.spec.floor
    drop, slack, inside = f.tray_drop.m_as("m"), f.slack.m_as("m"), f.in_rack.m_as("m")
    same = a_rack == b_rack
    between = 2 * drop + np.abs(x[a_rack] - x[b_rack]) + np.abs(y[a_rack] - y[b_rack]) + slack
    within = np.abs(a_u - b_u) * U_M + inside
    return np.where(same, within, between)
