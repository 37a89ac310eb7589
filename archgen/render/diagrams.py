"""Diagrams with matplotlib, as SVG and PNG bytes, byte-identical for identical input.

Determinism: no pyplot (no global state), an explicit `Figure`, fixed DejaVu Sans (shipped with matplotlib), text
drawn as paths in SVG, `svg.hashsalt` per diagram (so ids of two SVGs inlined in one HTML page never collide) and no
date or software metadata. Labels are formatted with `archgen.render.fmt`; no figure computes physics.

Titles set with ``y=1.0`` (here, in `performance` and `cluster_diagrams.topology`) sit where matplotlib puts them by
default, but fixed: a title left to place itself makes every draw measure every tick label of its axes (a power
budget's bar names, four times a save) to see whether ticks above the axes or a y axis's offset text ("1e6") push it up.
These axes have neither (ticks below, fixed or function tick labels, or no axis), so it never moves: the same bytes
for a fifth less time. Titles over a y axis with plain numbers (floor, growth, wiring, sweep) still place themselves.

A diagram is built once per `render_all` (`drawn_once`): a cluster document shows the elevation of each of its rack
types, drawn by the same function from the same `RackAnalysis` as the rack's own document. The Figure built for the
first is saved again for the second: its SVG under the second name's salt (the salt is read when saving), its PNG
(no salt) is the first one's bytes. `render_all` names the documents that draw each such diagram
(`target.reused_drawers`): its Figure and PNG are kept until the last of them has saved it, and no other is kept.
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from archgen.analyse.power_chain import Stage
from archgen.analyse.rack import RackAnalysis
from archgen.render import fmt
from archgen.render.rack import CLASSES, part_class

RC: dict[str, Any] = {"font.family": "DejaVu Sans", "font.size": 8, "svg.fonttype": "path", "axes.spines.top": False,
      "axes.spines.right": False, "figure.dpi": 100, "savefig.dpi": 150, "axes.titlesize": 9,
      "path.simplify": True, "hatch.linewidth": 0.5}


#: While `drawn_once` is open: what a drawer (function, arguments by identity) drew -> [its Figure, its PNG or None,
#: the drawer itself (holding its arguments alive)].
_DRAWN: dict[Any, list[Any]] | None = None
#: While `drawn_once` is open with its users named: the renders still to come of each drawer kept (by its key).
_USERS: Counter[Any] | None = None


@contextlib.contextmanager
def drawn_once(users: Iterable[Callable[[], Figure]] | None = None) -> Iterator[None]:
    """Within the block, each diagram is built once and saved as PNG once.

    Once means: the same function drawing from the very same objects (a `functools.partial`; a rendered `Run` is
    never changed), whatever the diagram's name. The memo holds the drawer and so its arguments: an identity is not
    reused for another object while the block lasts.

    Args:
        users: A drawer for each render to come of a diagram that more than one render draws (one per document
            showing it, in any order). Only those diagrams are kept, each until the last of its renders has saved
            it. None keeps every diagram until the block ends. A nested block shares the outer memo and its users.
    """
    global _DRAWN, _USERS  # noqa: PLW0603 - restored on exit
    outer = _DRAWN, _USERS
    if _DRAWN is None:
        _DRAWN = {}
        _USERS = None if users is None else Counter(_identity(d) for d in users)
    try:
        yield
    finally:
        _DRAWN, _USERS = outer


def _identity(draw: Callable[[], Figure]) -> Any:
    """What `draw` draws from: its function and arguments by identity (a partial), else None (not known)."""
    if not isinstance(draw, functools.partial):
        return None
    return draw.func, tuple(map(id, draw.args)), tuple((k, id(v)) for k, v in draw.keywords.items())


def _key(draw: Callable[[], Figure]) -> Any:
    """The memo key of `draw`, or None: no memo open, inputs not known, or not among the users `drawn_once` named."""
    key = None if _DRAWN is None else _identity(draw)
    return None if _USERS is not None and key not in _USERS else key


def _drawn(key: Any) -> None:
    """One render of the diagram kept under `key` done: after the last `drawn_once` was told of, release it."""
    if _USERS is not None and _DRAWN is not None:
        _USERS[key] -= 1
        if _USERS[key] <= 0:
            del _USERS[key], _DRAWN[key]


def render(name: str, draw: Callable[[], Figure], formats: tuple[str, ...]) -> dict[str, bytes]:
    """Draw one diagram and save it in each of `formats` ('svg', 'png').

    Within `drawn_once`, a Figure built before is saved again (its SVG under this name's salt) and a PNG saved
    before is returned.
    """
    out: dict[str, bytes] = {}
    key = _key(draw)
    memo = _DRAWN.setdefault(key, [None, None, draw]) if key is not None and _DRAWN is not None else None
    if memo is not None and memo[1] is not None and "png" in formats:
        out["png"] = memo[1]
        formats = tuple(f for f in formats if f != "png")
    if formats:
        with matplotlib.rc_context({**RC, "svg.hashsalt": f"archgen-{name}"}):  # type: ignore[dict-item]
            fig = memo[0] if memo is not None and memo[0] is not None else draw()
            for f in formats:
                out[f] = _save(fig, f)
        if memo is not None:
            memo[0] = fig
            memo[1] = out.get("png", memo[1])
    if memo is not None:
        _drawn(key)
    return out


#: Blank space around a diagram's drawn extent, in inches (savefig's `pad_inches`).
PAD = 0.1


def _save(fig: Figure, fmt: str) -> bytes:
    """`fig` as `fmt` ('svg', 'png'): the bytes of ``savefig(bbox_inches="tight", pad_inches=PAD)``, drawn once.

    savefig with "tight" draws the whole figure with drawing turned off, to place every artist, measures what was
    drawn, then draws it for real. Here the extent is measured without that first pass (`get_tightbbox` places the
    titles, ticks and labels it measures) by the renderer the format draws with, SVG's at 72 dpi (text as paths) or
    Agg's at savefig.dpi, and handed to savefig as its box; the placeholder a one-shot `tight_layout` leaves as the
    figure's layout engine, which would call for the first pass, is cleared. An SVG is saved at its own 72 dpi, the
    resolution savefig measures it at, so that the box is scaled into place with the same rounding (saved at 150 dpi,
    clip rectangles moved in their last bits and with them their ids); one holding a raster image, which that dpi
    would resample (`cluster_diagrams.floor_plan` beyond `MAX_DRAWN_RACKS`), is left to savefig's two passes.
    Same bytes (`tests/render/test_render.py::test_a_diagram_is_savefigs_tight_bytes`), a fifth less time.
    """
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.backends.backend_svg import RendererSVG

    buf = io.BytesIO()
    meta = {"Date": None, "Creator": None} if fmt == "svg" else {"Software": None}
    if fmt == "svg" and (fig.images or any(ax.get_images() for ax in fig.axes)):
        fig.savefig(buf, format=fmt, metadata=meta, bbox_inches="tight", pad_inches=PAD)
        return buf.getvalue()
    fig.set_layout_engine(None)
    _unlabelled_left_alone(fig)
    dpi, shown = (72.0 if fmt == "svg" else float(matplotlib.rcParams["savefig.dpi"])), fig.dpi
    fig.dpi = dpi
    try:
        w, h = fig.bbox.size
        renderer = RendererSVG(w, h, io.StringIO()) if fmt == "svg" else RendererAgg(w, h, dpi)
        box = fig.get_tightbbox(renderer).padded(PAD)
    finally:
        fig.dpi = shown
    fig.savefig(buf, format=fmt, metadata=meta, bbox_inches=box, dpi=dpi)
    return buf.getvalue()


def _unlabelled_left_alone(fig: Figure) -> None:
    """Each axis of `fig` without a label no longer places it (`Axis.set_label_coords`): the same drawing.

    An axis places its label beyond its tick labels, and so measures every tick label of it (and of any axes
    aligned with it) each time it is drawn or measured, twice a save, even where the label is empty, which is neither
    drawn nor counted in the figure's extent (`Text.draw`, `Text.get_window_extent`): a power budget's bar names
    beside its empty y label. Same bytes (every diagram of specs/); diagrams of specs/ in SVG and PNG, base against
    this alternated x3 at load 10: 15.66, 13.44, 14.10 -> 14.22, 13.53, 13.65 CPU-s (render37).
    """
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not axis.label.get_text():
                axis.set_label_coords(0.0, 0.0)


def elevation(a: RackAnalysis) -> Figure:
    """Front and rear elevation of a rack, coloured by part class, with U numbers and 0U items beside."""
    height = a.space.height
    spec = a.rack.spec
    fig = Figure(figsize=(7.0, max(3.5, 0.15 * height + 1.0)))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, face in zip(axes, ("front", "rear"), strict=True):
        ax.add_patch(Rectangle((0, 0.5), 1, height, facecolor="#f4f4f4", edgecolor="#333333", linewidth=1.0))
        zero_u = []
        for item in a.rack.items:
            depth = getattr(getattr(item.part, "mechanical", None), "depth", "full")
            if depth != "full" and spec.slots[item.slot].face != face:
                continue
            if item.height == 0:
                zero_u.append(item)
                continue
            colour = CLASSES[part_class(item.part)]
            hatch = None if depth == "full" or spec.slots[item.slot].face == face else "//"
            ax.add_patch(Rectangle((0.03, item.u - 0.5), 0.94, item.height, facecolor=colour, edgecolor="#222222",
                                   linewidth=0.4, hatch=hatch))
            ax.text(0.5, item.u - 0.5 + item.height / 2, item.part.id, ha="center", va="center",
                    fontsize=5.5 if item.height == 1 else 6.5, clip_on=True)
        for i, item in enumerate(zero_u):
            ax.add_patch(Rectangle((1.04 + 0.06 * i, item.u - 0.5), 0.05, height - item.u + 1,
                                   facecolor=CLASSES[part_class(item.part)], edgecolor="#222222", linewidth=0.4))
        ax.set_xlim(-0.02, 1.04 + 0.06 * max(len(zero_u), 1))
        ax.set_ylim(0.3, height + 0.7)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.spines[["bottom", "left"]].set_visible(False)
        ax.set_title(f"{face.capitalize()}", y=1.0)  # y: the module's docstring
    _u_numbers(axes[0], height)
    used = {part_class(p.part) for p in a.rack.items}
    handles = [Patch(facecolor=c, edgecolor="#222222", label=k) for k, c in CLASSES.items() if k in used]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=7)
    fig.suptitle(f"{spec.id}: {height} U {spec.form_factor.standard.upper()}", fontsize=9)
    fig.subplots_adjust(bottom=0.06, top=0.94, wspace=0.25)
    return fig


def _u_numbers(ax: Any, height: int) -> None:
    """U numbers 1 to `height` left of `ax`, where its y tick labels would stand, as plain texts.

    Drawn as tick labels (zero-length ticks), they cost a `Tick` each, five artists, made and measured on every save,
    and the shared y axis of the rear elevation made as many again, unseen. As texts (render37): the same text at the
    same place (each number's SVG transform and every PNG byte as before; the SVG loses the invisible tick marks), and
    the 12 shipped racks' elevations drawn and saved in SVG and PNG take 2.75 against 3.89 CPU-s (best of 3, load 9).
    """
    at, va, ha = ax.get_yaxis_text1_transform(matplotlib.rcParams["ytick.major.pad"])  # a zero-length tick's pad
    for u in range(1, height + 1):
        ax.text(0, u, str(u), transform=at, va=va, ha=ha, fontsize=5)


def rack_elevations(result: Any, a: Any) -> dict[str, Callable[[], Figure]]:
    """The elevation of each rack type of the cluster `a` by diagram name, drawn as its rack document draws it."""
    racks = {rid: result.racks.get(f"rack/{rid}") for rid in a.cluster.rack_counts}
    return {f"elevation-{rid}": functools.partial(elevation, r) for rid, r in racks.items() if r is not None}


def _stage_bars(ax: Any, title: str, stage: Stage, load: Any) -> None:
    labels = ["nameplate", f"usable ({stage.redundancy})", "one unit lost"]
    values = [stage.unit_capacity * stage.count, stage.usable, stage.after_one_loss]
    kw = [fmt.magnitude(v, "kW") for v in values]
    colours = ["#c9d6e8", "#4a90d9", "#8fb3e0"]
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, kw, color=colours, edgecolor="#333333", linewidth=0.4, height=0.6)
    for y, v, q in zip(ys, kw, values, strict=True):
        ax.text(v, y, " " + fmt.q(q, "kW", 1), va="center", fontsize=7)
    load_kw = fmt.magnitude(load, "kW")
    ax.axvline(load_kw, color="#d0021b", linewidth=1.2)
    ax.text(load_kw, len(labels) - 0.35, f"load {fmt.q(load, 'kW', 1)}", color="#d0021b", fontsize=7, ha="center",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_xlim(0, max(kw + [load_kw]) * 1.3 or 1)
    ax.set_ylim(-0.6, len(labels) - 0.1)
    ax.set_xlabel("kW")
    ax.set_title(title, loc="left", y=1.0)


def power_budget(a: RackAnalysis) -> Figure:
    """Load against nameplate, usable and one-unit-lost capacity of the conversion stage and of the feeds."""
    p = a.power
    stages = [(f"{fmt.sentence(st.kind)}: {st.count} × {fmt.q(st.unit_capacity, 'kW', 1)}", st, st.load)
              for st in p.stages]
    stages += [(f"{fmt.sentence(g.kind)} after derating: {g.count} × {fmt.q(g.unit_capacity, 'kW', 1)}", g, g.load)
               for g in p.feed_groups]
    fig = Figure(figsize=(7.0, 1.9 * len(stages) + 0.3))
    axes = fig.subplots(len(stages), 1, squeeze=False)[:, 0]
    for ax, (title, stage, load) in zip(axes, stages, strict=True):
        _stage_bars(ax, title, stage, load)
    fig.tight_layout()
    return fig


def cooling_split(a: RackAnalysis) -> Figure:
    """Heat to liquid and to air, and (with a CDU) the CDU group's load against its usable capacity."""
    c = a.cooling
    panels = 2 if c.cdu is not None else 1
    fig = Figure(figsize=(7.0, 2.2))
    axes = fig.subplots(1, panels, squeeze=False)[0]
    ax = axes[0]
    parts = [("liquid", c.heat_liquid, "#50c8c8")]
    if c.rear_door is not None:  # the rear door's water takes part of the air heat
        parts.append(("rear door", c.rear_door.taken, "#7ba7f0"))
    parts.append(("air", c.heat_air, "#f0c27b"))
    widths = [fmt.magnitude(q, "kW") for _, q, _ in parts]
    total, x0 = sum(widths) or 1.0, 0.0
    for (label, q, colour), w in zip(parts, widths, strict=True):
        ax.barh([0], [w], left=[x0], color=colour, edgecolor="#333333", linewidth=0.4, label=label)
        if w / total > 0.12:
            ax.text(x0 + w / 2, 0, f"{fmt.q(q, 'kW', 1)}\n{fmt.pct(w / total)}", ha="center", va="center",
                    fontsize=7)
        x0 += w
    ax.set_yticks([])
    ax.set_xlabel("kW")
    ax.set_xlim(0, total * 1.05)
    ax.set_title(f"Heat split of {fmt.q(c.heat, 'kW', 1)}", loc="left", y=1.0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=len(parts), frameon=False, fontsize=7)
    if c.cdu is not None:
        ax2 = axes[1]
        values = [c.cdu_load, c.cdu.usable, c.cdu.unit_capacity * c.cdu.count]
        labels = ["group load", f"usable ({c.cdu.redundancy})", "nameplate"]
        kw = [fmt.magnitude(v, "kW") for v in values]
        ax2.barh([2, 1, 0], kw, color=["#50c8c8", "#4a90d9", "#c9d6e8"], edgecolor="#333333", linewidth=0.4,
                 height=0.6)
        for y, v, q in zip([2, 1, 0], kw, values, strict=True):
            ax2.text(v, y, " " + fmt.q(q, "kW", 0), va="center", fontsize=7)
        ax2.set_yticks([2, 1, 0])
        ax2.set_yticklabels(labels)
        ax2.set_xlim(0, max(kw) * 1.35 or 1)
        ax2.set_xlabel("kW")
        path = a.rack.spec.cooling.liquid
        ax2.set_title(f"CDU group ({path.racks_per_cdu if path else 1} racks)", loc="left", y=1.0)
    fig.tight_layout()
    return fig


#: The rack diagrams by name; the document's `Figure` blocks refer to these names.
RACK_DIAGRAMS: dict[str, Callable[[RackAnalysis], Figure]] = {
    "elevation": elevation, "power": power_budget, "cooling": cooling_split,
}
