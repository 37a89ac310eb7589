"""A sweep point whose pp splits the layers unevenly shows the layout string that runs it (newuser38).

Before: the shipped `llama3-70b-train-platforms` sweep searched pp 9 for Llama 3.1 70B's 80 layers at every point
and said nothing, while `archgen estimate` of such a layout notes that Megatron-LM asserts an even split unless the
stages are stated (megatron/training/arguments.py at d98e8a6, line 997) and gives the layout string that places
DeepSpeed's uniform partition, which the model times (`training_estimate.placed_note` since lay28fix2, which
carries the string in the estimate's layout). A point's layout now carries
that string (`render.point_table.layout_text`, from `training_estimate.layout_string`, the same `uniform_layout`) in
the document's tables, points.csv and front.csv, the summary's best points and JSON (`pipeline_layout`), with one
note under a table that shows one. An even split shows none. Written once per distinct layout, as the Layout column
was (`bench`: a 10,080-point training sweep's evaluation and CSV took the same CPU before and after).
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.explore.points import evaluate_point
from archgen.perf.explore.vectorised import evaluate as batched
from archgen.perf.train.pipeline_split import uniform_layout
from archgen.render.point_table import UNEVEN_NOTE, csv_text, layout_text, pipeline_layout
from tests.conftest import SPECS, sweep_problems_of

LAYERS = 80   # Llama 3.1 70B (catalog/models/llama3-70b.yaml; arXiv 2407.21783 table 3)
#: DeepSpeed's uniform partition of 80 layers on 9 ranks: 80 mod 9 = 8 ranks of ceil(80/9) = 9, one of 8, the
#: embedding on the first and the loss on the last, in Megatron-core's layout notation.
STRING = "Et*9|(t*9|)*7t*8L"


@pytest.fixture(scope="module")
def platforms():
    return next(q for q in sweep_problems_of(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])
                if q.sweep.id == "llama3-70b-train-platforms")


def test_the_string_is_the_uniform_partition() -> None:
    assert uniform_layout(LAYERS, 9, 1) == STRING
    assert 9 + 7 * 9 + 8 == LAYERS   # first rank, 7 middle ranks, last rank: 9 ranks


def test_a_pp_9_point_shows_its_pipeline_layout_on_both_paths(platforms) -> None:
    for row in (evaluate_point(platforms, 1), *batched(platforms, 1, 2)):
        assert row.layout["pp"] == 9 and row.layout.get("interleave", 1) == 1
        assert layout_text(row, platforms).endswith(f" · pipeline_layout '{STRING}'")
        assert "pipeline_layout" not in layout_text(row)   # without the problem: the layout alone
    rows = batched(platforms, 0, 3)
    lines = csv_text(platforms, rows).splitlines()
    assert all(f"pipeline_layout '{STRING}'" in line for line in lines[1:])


def test_an_even_split_shows_none(platforms) -> None:
    row = evaluate_point(platforms, 1)
    for pp in (1, 2, 4, 5, 8, 10):   # divisors of 80
        assert pipeline_layout(platforms, {**row.layout, "pp": pp}) is None


def test_the_outputs_say_it(platforms, cli, tmp_path) -> None:
    r = cli("sweep", SPECS / "sweeps" / "llama3-70b.yaml", "--path", SPECS, "--out", tmp_path, "--format", "json")
    assert r.code == 0, r.err
    doc = next(d for d in json.loads(r.out)["sweeps"] if d["sweep"] == "llama3-70b-train-platforms")
    assert doc["front"] and all(p["pipeline_layout"] == STRING for p in doc["front"] if p["layout"]["pp"] == 9)
    serve = next(d for d in json.loads(r.out)["sweeps"] if d["sweep"] == "llama3-70b-serve-batch")
    assert not any("pipeline_layout" in p for p in serve["front"])
    md = (tmp_path / "llama3-70b-train-platforms" / "llama3-70b-train-platforms.md").read_text(encoding="utf-8")
    assert md.count("pipeline\\_layout 'Et\\*9") >= len(doc["front"])
    assert "Megatron-LM asserts an even split unless the stages are stated" in md
    text = cli("sweep", SPECS / "sweeps" / "llama3-70b.yaml", "--path", SPECS, "--out", tmp_path).out
    assert f"pp 9 uneven: runs with pipeline_layout '{STRING}'" in text
    assert UNEVEN_NOTE.split(":")[0] in md.replace("\\_", "_")
