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
           "to plot: not provided there), those that miss" in md
    assert "*Figure 1: Tokens/s against IT energy per token: the 2 of the 4 points that fit with both figures " \
           "(the others lack one: not provided there) (hollow" in md
    assert "every point that fits" not in md


def test_a_plot_of_every_point_that_fits_says_so(cli, tmp_path):
    md = _md(cli, tmp_path, "1")
    assert "Scatter of Tokens/s against IT energy per token: 2 points that fit, those that miss" in md
    assert "*Figure 1: Tokens/s against IT energy per token: every point that fits (hollow" in md
