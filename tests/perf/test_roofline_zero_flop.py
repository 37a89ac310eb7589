"""An MoE training roofline holds a kernel of no FLOP (the router's auxiliary loss); its documents render.

Before (newuser58) `archgen render` of any cluster with an MoE training workload stopped with an internal error
(ZeroDivisionError in the kernel table's "Of roof": achieved FLOP/s over a roof of 0 FLOP/s at intensity 0), and
the roofline figure could not place the point on its log axes. Its share of the roof is now its bandwidth over the
memory roof (Williams, Waterman and Patterson, "Roofline", CACM 52(4), 2009: attainable = min(peak, I x bandwidth),
so achieved / attainable = bytes / time / bandwidth on the memory side), and the figure names it as not drawn.
"""

from __future__ import annotations

import pytest

from archgen.perf.workload.roofline import training_kernels
from archgen.render.roofline import roofline, roofline_blocks
from tests.perf.test_roofline import MOE


def test_a_kernel_of_no_flop_renders_at_its_share_of_the_memory_roof(h100):
    rf = training_kernels(h100, MOE, seq_len=4096, dtype="bf16", attention="flash", tp=1, micro_batch=1)
    [loss] = [k for k in rf.kernels if k.flop == 0]
    assert loss.name == "router loss" and loss.bytes_moved > 0
    # a memory-bound kernel timed at the memory roof (kernels.memory_time: bytes / (HBM x efficiency)) reaches all of it
    assert rf.of_roof(loss) == pytest.approx(loss.bytes_moved / loss.time / rf.memory_ceiling) == pytest.approx(1.0)
    for k in rf.kernels:  # the FLOP form, wherever it is defined
        if k.flop > 0:
            assert rf.of_roof(k) == pytest.approx(k.achieved / rf.ceiling(k.intensity))
    _, table = roofline_blocks(rf, "moe")
    assert [row[7] for row in table.rows if row[1] == "router loss"] == ["100 %"]
    fig = roofline(rf, "moe")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "forward: router loss (no FLOP, not drawn)" in labels
