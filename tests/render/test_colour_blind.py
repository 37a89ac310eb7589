"""Figures stay readable for colour-blind readers (WCAG 2.1 SC 1.4.1, "Use of Color").

Deuteranopia and protanopia are simulated with the severity-1.0 matrices of G. M. Machado, M. M. Oliveira and
L. A. F. Fernandes, "A Physiologically-based Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6),
2009 (the matrices of their supplementary page https://www.inf.ufrgs.br/~oliveira/pubs_files/CVD_Simulation/
CVD_Simulation.html , as also carried by colorspacious, cvd.py), applied to linear sRGB. Two colours that mean
different things in one figure must stay at least `MIN_DELTA_E` apart (CIE 1976 Delta E in CIELAB, D65) under
both. The threshold is our choice, stated: 15, well above the 2.3 just-noticeable difference (Sharma, "Digital
Color Imaging Handbook", 2003, ch. 1) and below the 17.0 of the closest Okabe-Ito pair (orange/yellow).
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from archgen.render import cluster_diagrams, palette, performance, rack, roofline
from archgen.units import Q_

PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
MIN_DELTA_E = 15.0
#: sRGB (IEC 61966-2-1) linear RGB to XYZ, and the D65 white.
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
D65 = np.array([0.95047, 1.0, 1.08883])


def linear(colour: str) -> np.ndarray:
    c = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(lin: np.ndarray) -> np.ndarray:
    xyz = SRGB_TO_XYZ @ np.clip(lin, 0, 1) / D65
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest(colours: object) -> tuple[float, str, str]:
    """The closest pair of distinct colours under either simulation."""
    pairs = itertools.combinations(sorted(set(colours)), 2)  # type: ignore[call-overload]
    return min((min(float(np.linalg.norm(lab(m @ linear(a)) - lab(m @ linear(b))))
                    for m in (PROTANOPIA, DEUTERANOPIA)), a, b) for a, b in pairs)


def test_simulation_merges_main_compute_and_power_colours() -> None:
    # main's rack elevation: compute #76b900 and power #f5a623 (newuser56: both olive for a deuteranope)
    assert closest(["#76b900", "#f5a623"])[0] < 1.0
    assert closest([palette.VERMILLION, palette.BLUE])[0] > MIN_DELTA_E


@pytest.mark.parametrize("figure, colours", [
    ("palette", palette.SERIES),
    ("floor plan rack types", cluster_diagrams.PALETTE),
    ("rack elevation part classes", rack.CLASSES.values()),
    ("roofline kernels", roofline.KERNEL_COLOURS.values()),
    ("busbw curve", [palette.BLACK, palette.MET[0], palette.NOT_MET[0]]),
    ("scaling chart, right", [palette.VERMILLION, palette.REDDISH_PURPLE]),
])
def test_colours_of_one_figure_stay_apart(figure: str, colours: object) -> None:
    gap, a, b = closest(colours)
    assert gap >= MIN_DELTA_E, f"{figure}: {a} and {b} are {gap:.1f} apart for a colour-blind reader"


class _Target:
    limit = Q_(400, "GB/s")

    def __str__(self) -> str:
        return ">= 400 GB/s"


def test_busbw_target_label_says_met_or_not() -> None:
    outcome = [SimpleNamespace(met=met, requirement=SimpleNamespace(metric="busbw", id=f"REQ-{k}", target=_Target()))
               for k, met in enumerate((True, False))]
    r = SimpleNamespace(curve=((1024.0, 2.0 ** 30), (1e9, 3e11)), vendor="nvidia",
                        estimate=SimpleNamespace(metrics={"busbw": Q_(300, "GB/s")}, requirements=outcome,
                                                 accelerators=8, accelerator="H100"),
                        workload=SimpleNamespace(id="w", collective=SimpleNamespace(size=Q_(2 ** 30, "B"),
                                                                                     op="all_reduce")))
    fig = performance.busbw_curve(r)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "REQ-0: >= 400 GB/s, met" in labels and "REQ-1: >= 400 GB/s, not met" in labels
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles["REQ-0: >= 400 GB/s, met"] != styles["REQ-1: >= 400 GB/s, not met"]
