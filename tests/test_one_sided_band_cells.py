"""A band wholly to one side of its point says so in `gap`'s band cell and under a sweep's tables, as `archgen
estimate` and the performance table do (`display.outside`; light39's leftover, leftover39).

newuser97's Llama 3.1 70B FP8 at concurrency 64 on DGX B200: its TPOT band (a closed loop at light load, every run
under-predicted) lies wholly above the point, 8.01 ms against 9.26 ms to 9.80 ms.
"""

from __future__ import annotations

from archgen.commands.gap import gap
from archgen.output.gap import markdown
from tests.conftest import SPECS, run_cli
from tests.perf.test_light_load_verdict import CONCURRENCY

OURS = """kind: Requirements
id: ours
requirements:
  - {id: OURS-TPOT, statement: TPOT, subject: "workload/*", metric: tpot, target: "<= 20 ms"}
  - {id: OURS-TTFT, statement: TTFT, subject: "workload/*", metric: ttft, target: "<= 1 s"}
"""
SWEEP = """kind: Sweep
id: conc
workload: nu97-70b-fp8-b200-conc
axes:
  batch: [32, 64]
objectives:
  - {metric: tokens_per_second_per_gpu}
"""


def test_gaps_band_cell_says_the_band_lies_wholly_above(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "conc.yaml").write_text(CONCURRENCY, encoding="utf-8")
    (tmp_path / "ours").mkdir()
    (tmp_path / "ours" / "ours.yaml").write_text(OURS, encoding="utf-8")
    g = gap([SPECS, tmp_path / "p"], [tmp_path / "ours"])
    rows = {r.requirement.id: r for r in g.rows if r.subject == "workload/nu97-70b-fp8-b200-conc"}
    tpot, ttft = rows["OURS-TPOT"], rows["OURS-TTFT"]
    assert tpot.band is not None and tpot.value is not None and tpot.band[0] > tpot.value   # the case it claims
    text = markdown(g, "customer")
    assert "| 8.01 ms (9.26 ms to 9.80 ms, wholly above the estimate) |" in text, text
    assert ttft.band is not None and ttft.band[0] < ttft.value < ttft.band[1]
    assert "| 0.12 s (0.087 s to 0.14 s) |" in text   # TTFT's band straddles its point and says nothing


def test_a_sweeps_tables_say_which_points_bands_lie_to_one_side(spec_tree, tmp_path):
    specs = spec_tree({"workloads/conc.yaml": CONCURRENCY, "sweeps/conc.yaml": SWEEP})
    r = run_cli("sweep", str(specs / "sweeps" / "conc.yaml"), "--path", str(SPECS), "--path", str(specs), "--out",
                str(tmp_path / "o"))
    assert r.code == 0, r.err
    doc = (tmp_path / "o" / "conc" / "conc.md").read_text(encoding="utf-8")
    csv = (tmp_path / "o" / "conc" / "points.csv").read_text(encoding="utf-8").splitlines()
    assert csv[2].startswith("1,dgx-b200-superpod,64,") and ",8.01," in csv[2] and ",9.26,9.80," in csv[2]
    # both points' TPOT bands lie above them (6.80 ms: 7.86 to 8.32 ms); the front is point 1 alone (most tokens/s)
    assert "TPOT's band lies wholly above the estimate at point 1: every published run" in doc
    assert doc.count("wholly") == 2   # under the front's table and the best point's
