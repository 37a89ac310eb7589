"""The sweep's figure and its alt text count the points drawn, not every point that fits (newuser107).

A sweep of `scale_out_bandwidth: [0.5, 1]` with an `energy_per_token` objective: the points at x0.5 are scaled
hardware and have no power, so no energy per token, and the plot draws none of them (`sweep_figure._display`). Its
caption still read "every point that fits" and its alt text "24 points that fit" over the 12 drawn; both now give the
count drawn beside the count that fits, and say the others lack a figure to plot.
"""

from __future__ import annotations

from tests.conftest import SPECS

SWEEP = """kind: Sweep
id: cap
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256, 512]
  tp: [4]
  pp: [1]
  scale_out_bandwidth: [{levels}]
objectives:
  - {{metric: tokens_per_second}}
  - {{metric: energy_per_token}}
"""


def _md(cli, tmp_path, levels: str) -> str:
    (tmp_path / "s.yaml").write_text(SWEEP.format(levels=levels), encoding="utf-8")
    r = cli("sweep", str(tmp_path / "s.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"), "--formats", "md")
    assert r.code == 0, r.err
    return (tmp_path / "out" / "cap" / "cap.md").read_text(encoding="utf-8")


def test_the_caption_counts_the_points_drawn(cli, tmp_path):
    md = _md(cli, tmp_path, "0.5, 1")
    assert "Scatter of Tokens/s against IT energy per token: 2 of the 4 points that fit (the others lack a figure " \
           "to plot: not provided there); the 2 points" in md   # the x0.5 points (triangles) are not drawn
    assert "*Figure 1: Tokens/s against IT energy per token: the 2 of the 4 points that fit with both figures " \
           "(the others lack one: not provided there), and the front*" in md
    assert "every point that fits" not in md


def test_a_plot_of_every_point_that_fits_says_so(cli, tmp_path):
    md = _md(cli, tmp_path, "1")
    assert "Scatter of Tokens/s against IT energy per token: 2 points that fit; the 2 points" in md
    assert "*Figure 1: Tokens/s against IT energy per token: every point that fits, and the front*" in md


def test_the_legend_and_caption_name_only_the_marks_drawn(cli, tmp_path):
    """newuser107 (item 9): a sweep of catalogued hardware, every point feasible, kept "triangle: hypothetical
    hardware" and "hollow: misses a SHALL target" in its legend and caption with neither drawn (`sweep_figure.marks`).
    A scaled point the plot draws (x2 scale-out has an MFU, not a power) brings the triangle back."""
    from archgen.commands import sweep as sw
    from archgen.render.sweep_figure import pareto_figure

    HOLLOW, TRIANGLE = "hollow: misses a SHALL target", "triangle: hypothetical hardware"   # the legend's words

    for levels, objective, expected in (("1", "energy_per_token", ()), ("0.5, 1", "energy_per_token", ()),
                                        ("1, 2", "mfu", (TRIANGLE,))):
        path = tmp_path / levels.replace(", ", "-") / "s.yaml"
        path.parent.mkdir()
        path.write_text(SWEEP.format(levels=levels).replace("energy_per_token", objective), encoding="utf-8")
        (result,) = sw.evaluate_sweeps(path, [SPECS])[1]
        labels = [t.get_text() for t in pareto_figure(result).axes[0].get_legend().get_texts()]
        assert [m for m in (HOLLOW, TRIANGLE) if m in labels] == list(expected), levels
        assert labels[-1] == "Pareto front"
    r = cli("sweep", str(path), "--path", str(SPECS), "--out", str(tmp_path / "out"), "--formats", "md")
    assert r.code == 0, r.err
    md = (tmp_path / "out" / "cap" / "cap.md").read_text(encoding="utf-8")
    assert f"every point that fits ({TRIANGLE}), and the front*" in md and HOLLOW not in md
    assert f"4 points that fit ({TRIANGLE}); the" in md
