"""The diagrams' text alternatives say what each shows, from the analysis it is drawn from (`render.alt_text`).

small26: every figure's PDF /Alt and Markdown image text was its caption, which names the figure ("Fabric topology
by tier, with switch and link counts") but gives none of the counts. Each figure's alternative is now built from the
same figures the drawing uses (`cluster_diagrams.topology`, `floor_plan`), so the words and the drawing agree.
"""

from __future__ import annotations

from collections import Counter

from archgen.render import alt_text
from archgen.render.rack import elevation_alt

CLUSTER = "cluster/gb200-nvl72-su"


def test_topology_names_each_fabrics_tiers_and_counts(shipped):
    a = shipped.clusters[CLUSTER]
    text = alt_text.topology(a)
    assert text.startswith(f"gb200-nvl72-su's fabrics by tier ({a.accelerators:,} accelerators)")
    for fa in a.fabrics:
        assert f"{fa.fabric.spec.id} ({fa.planes} plane(s), {len(fa.tiers)} tier(s))" in text
        for t in fa.tiers:   # what the drawing's boxes say: tier, switches x planes, switch
            assert f"{t.name}: {t.switches * fa.planes:,} × {t.switch.id if t.switch else 'no switch'}" in text
        for n in list(fa.links.values())[:len(fa.tiers)]:
            assert f"{n * fa.planes:,} links" in text


def test_floor_counts_every_rack_by_row_and_type(shipped):
    a = shipped.clusters[CLUSTER]
    text = alt_text.floor(a)
    inst = a.cluster.instances
    assert f"{len(inst)} racks in {max(i.row for i in inst) + 1} row(s)" in text
    told = Counter()    # racks the text names, each run of like rows times its length
    for part in text.split(". ", 1)[1].rstrip(".").split("; "):
        rows, mix = part.split(": ", 1)
        span = rows.removeprefix("rows ").removeprefix("row ").removesuffix(", each")
        lo, _, hi = span.partition("-")
        for item in mix.split(", "):
            n, rid = item.split(" × ")
            told[rid] += int(n) * (int(hi or lo) - int(lo) + 1)
    assert told == Counter(i.rack.spec.id for i in inst)


def test_cluster_rack_type_elevation_is_its_rack_documents(shipped):
    # The cluster document's elevation of a rack type says what that rack's own document says.
    a = shipped.clusters[CLUSTER]
    for rid in a.cluster.rack_counts:
        r = shipped.racks[f"rack/{rid}"]
        assert elevation_alt(r).startswith(f"Front and rear elevation of {rid}, a {r.space.height} U ")


def test_every_golden_figure_says_more_than_its_caption():
    # The golden documents (tests/render/test_golden.py keeps them equal to what render writes): each figure's image
    # text is its own description, not the caption printed under it.
    import re
    from pathlib import Path
    pairs = []
    for md in sorted((Path(__file__).parent / "golden").glob("*/*.md")):
        text = md.read_text(encoding="utf-8")
        pairs += re.findall(r"^!\[(.*)\]\([\w.-]+\.svg\)\n\n\*Figure \d+: (.*)\*$", text, re.M)
    assert len(pairs) >= 15
    assert [caption for alt, caption in pairs if alt == caption or not alt] == []


def test_roofline_names_both_roofs_and_only_the_points_drawn(shipped):
    """review28: the roofline's words named the attainable roof only, not the dashed datasheet roof the figure also
    draws, and placed a kernel of no FLOP (an MoE router's loss, which the figure leaves off its log axes) "at 0.0
    FLOP/B". Both roofs now, the points numbered as drawn, a no-FLOP kernel said not drawn."""
    import dataclasses

    from archgen.perf.workload.roofline import Kernel
    from archgen.units import Q_

    rf = next(r.roofline for r in shipped.workloads.values() if r.roofline is not None)
    tflops = Q_(rf.peak, "FLOPS").m_as("TFLOPS")
    text = alt_text.roofline(rf)
    assert f"dashed, the datasheet roof, {tflops:,.0f} TFLOPS and the HBM bandwidth" in text
    assert f"; one numbered point per kernel: 1 {rf.kernels[0].phase} {rf.kernels[0].name} at " in text
    assert "not drawn" not in text
    loss = Kernel(name="router loss", phase="forward", flop=0.0, bytes_moved=1e6, time=1e-6, gemm=False)
    text = alt_text.roofline(dataclasses.replace(rf, kernels=(*rf.kernels, loss)))
    assert text.endswith("; not drawn (no FLOP): forward router loss.") and "at 0.0 FLOP/B" not in text
    assert text == alt_text.roofline(dataclasses.replace(rf, kernels=(*rf.kernels, loss)))   # deterministic
