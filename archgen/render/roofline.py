"""The roofline of a workload's one layer in a cluster document: its figure, caption, kernel table and words.

Split from `render.performance` for its size: the kernels come from `WorkloadResult.roofline`
(`archgen/perf/workload/roofline.py`), each kernel's share of the roof from `Roofline.of_roof`; this module only lays
them out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure as MplFigure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from archgen.render import alt_text, fmt, palette
from archgen.render.blocks import Column, Figure, Table
from archgen.units import Q_


def _scope(rf: Any) -> str:
    """What the roofline's kernels are, in words."""
    if "forward" in rf.tokens:
        what = f"one layer's forward pass for one micro-batch ({fmt.number(rf.tokens['forward'])} tokens)"
        if rf.mtp_layers:  # a layer of the kind drawn; its projection, like the logits, is no layer's kernel
            what += (f" (each of the {rf.mtp_layers} multi-token prediction layers trained runs these kernels too, "
                     "its projection beside them)")
    else:
        what = (f"one layer of one prefill request ({fmt.number(rf.tokens['prefill'])} tokens) and of one decode "
                f"step ({fmt.number(rf.tokens['decode'])} sequences)")
    return f"{what} on one {rf.accelerator} at tp = {rf.tp}, {rf.dtype.upper()}"


#: How a roofline's caption names an efficiency by its basis (`perf.workload.roofline.efficiency_basis`): a figure
#: the part does not state is never called measured.
_BASIS = {"measured": "measured {what} efficiency", "range": "{what} efficiency at a point of its stated range",
          "assumed": "assumed {what} efficiency, not measured"}


def _roof_words(basis: str, what: str) -> str:
    return _BASIS[basis].format(what=what)


def roofline_blocks(rf: Any, workload_id: str) -> tuple[Figure, Table]:
    """The roofline figure and its kernel table."""
    slug = fmt.slug(workload_id)
    caption = (f"Roofline of {_scope(rf)}: compute roof {fmt.q(Q_(rf.compute_ceiling, 'FLOPS'), 'TFLOPS', 0)} "
               f"({rf.dtype} peak × {_roof_words(rf.gemm_basis, 'GEMM')}), memory roof "
               f"{fmt.q(Q_(rf.memory_ceiling, 'B/s'), 'TB/s', 2)} ({rf.memory} bandwidth × "
               f"{_roof_words(rf.hbm_basis, rf.memory)}), ridge {fmt.number(rf.ridge, 0)} FLOP/B")
    rows = tuple((k.phase, k.name, Q_(k.flop, "FLOP"), Q_(k.bytes_moved, "B"), k.intensity, Q_(k.time, "s"),
                  Q_(k.achieved, "FLOPS"), fmt.pct(rf.of_roof(k), 0),
                  "memory" if k.intensity < rf.ridge else "compute") for k in rf.kernels)
    cols = (Column("Phase"), Column("Kernel"), Column("Work", "GFLOP", 1, "right"),
            Column("Traffic", "MB", 1, "right"), Column("Intensity (FLOP/B)", digits=1, align="right"),
            Column("Time", "µs", 1, "right"), Column("Achieved", "TFLOPS", 1, "right"),
            Column("Of roof", align="right"), Column("Side of ridge"))
    return (Figure(f"fig-roofline-{slug}", f"roofline-{slug}", caption, alt_text.roofline(rf)),
            Table(f"perf-kernels-{slug}", f"Kernels of {_scope(rf)}", cols, rows))


#: Colour of each kernel by name (`archgen.render.palette`; phases share colours, the marker tells them apart;
#: the up and down halves of the shared expert share one, their numbers tell them apart).
KERNEL_COLOURS = {"QKV projection": palette.BLUE, "attention output projection": palette.SKY_BLUE,
                  "FFN up": palette.BLUISH_GREEN, "FFN up/gate": palette.BLUISH_GREEN, "FFN down": palette.YELLOW,
                  "expert up": palette.BLUISH_GREEN, "expert up/gate": palette.BLUISH_GREEN,
                  "expert down": palette.YELLOW, "router": palette.BLACK, "shared expert up": palette.REDDISH_PURPLE,
                  "shared expert up/gate": palette.REDDISH_PURPLE, "shared expert down": palette.REDDISH_PURPLE,
                  "attention core": palette.ORANGE, "element-wise": palette.VERMILLION}
MARKERS = {"forward": "o", "prefill": "o", "decode": "^"}
#: Label offsets (points) taken in turn, so that numbers of neighbouring kernels do not overprint.
OFFSETS = ((4, 3), (4, -9), (-10, 3), (-10, -9))


def _tick(value: float, _pos: object) -> str:
    """A log-axis tick label without mathtext: 0.1, 1, 10, 1,000."""
    return fmt.number(value, 1 if value < 1 else 0)


def _attainable_label(rf: Any) -> str:
    """The legend of the attainable roof, naming its efficiencies by their basis (never 'measured' if assumed)."""
    bases = {rf.gemm_basis, rf.hbm_basis}
    if bases == {"measured"}:
        return "attainable (measured efficiencies)"
    if "assumed" in bases:
        return "attainable (assumed efficiencies, not measured)"
    return "attainable (efficiencies at points of stated ranges)"


def roofline(rf: Any, title: str) -> MplFigure:
    """Attainable FLOP/s against arithmetic intensity (log-log).

    Both roofs, the ridge, one numbered point per kernel at its achieved rate, and a legend naming each number. A
    kernel of no FLOP (an MoE router's loss: intensity 0) has no place on log axes: it is named in the legend as not
    drawn, and stays in the kernel table.
    """
    drawn = [k for k in rf.kernels if k.flop > 0 and k.achieved > 0]
    tflops = [fmt.magnitude(Q_(k.achieved, "FLOPS"), "TFLOPS") for k in drawn]
    xs = [k.intensity for k in drawn]
    lo = min([*xs, rf.ridge]) / 4
    hi = max([*xs, rf.ridge]) * 4
    grid = np.geomspace(lo, hi, 200)
    to_t = fmt.magnitude(Q_(1.0, "FLOPS"), "TFLOPS")
    fig = MplFigure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    ax.loglog(grid, np.minimum(rf.peak, grid * rf.hbm_peak) * to_t, color="#999999", linestyle="--", linewidth=0.8,
              label=f"datasheet peak and {rf.memory} bandwidth")
    ax.loglog(grid, np.minimum(rf.compute_ceiling, grid * rf.memory_ceiling) * to_t, color="#333333",
              linewidth=1.4, label=_attainable_label(rf))
    ax.axvline(rf.ridge, color="#777777", linestyle=":", linewidth=0.8)
    ax.text(rf.ridge, 0.45, f"ridge {fmt.number(rf.ridge, 0)} FLOP/B ", fontsize=6.5, color="#555555",
            ha="right", va="center", transform=ax.get_xaxis_transform())
    handles = []
    for i, (k, x, y) in enumerate(zip(drawn, xs, tflops, strict=True), 1):
        colour = KERNEL_COLOURS.get(k.name, "#95a5a6")
        ax.scatter([x], [y], s=28, marker=MARKERS.get(k.phase, "o"), color=colour, edgecolor="#222222",
                   linewidth=0.5, zorder=3)
        ax.annotate(str(i), (x, y), textcoords="offset points", xytext=OFFSETS[i % len(OFFSETS)], fontsize=6.5)
        handles.append(Line2D([], [], marker=MARKERS.get(k.phase, "o"), linestyle="", color=colour,
                              markeredgecolor="#222222", markeredgewidth=0.5,
                              label=f"{i} {k.phase}: {k.name} ({fmt.number(y, 0)} TFLOP/s)"))
    handles += [Line2D([], [], linestyle="", label=f"{k.phase}: {k.name} (no FLOP, not drawn)")
                for k in rf.kernels if k not in drawn]
    roofs = ax.legend(loc="lower right", fontsize=6.5, frameon=False)
    ax.add_artist(roofs)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=6.5)
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(tflops + [rf.compute_ceiling * to_t]) / 4, rf.peak * to_t * 2)
    for axis in (ax.xaxis, ax.yaxis):                 # plain labels: log axes' mathtext is slow to draw
        axis.set_major_locator(LogLocator(base=10))
        axis.set_major_formatter(FuncFormatter(_tick))
        axis.set_minor_locator(NullLocator())
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel("TFLOP/s")
    ax.grid(which="major", color="#dddddd", linewidth=0.5)
    ax.set_title(f"{title}: roofline of one layer ({rf.dtype}, {rf.accelerator})", loc="left", y=1.0)
    fig.tight_layout()
    return fig
