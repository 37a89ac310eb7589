"""An estimate on Intel Gaudi 3, whose scale-up is a full mesh of 200GbE RoCE links, says what it borrows.

newuser50's trial (an architect on Ethernet scale-up accelerators, tests/data/gaudi3: 8 HLS-Gaudi3 servers, the
scale-up a mesh of 3 x 200G RoCE links to each of 7 peers, docs.habana.ai Network Configuration). The catalog's
gaudi3 stated `scale_up.latency: 1.9 us`, NCCL's LL128 ring step over NVLink, as its own figure (its notes said
"left at the model default", and it was not under `unconfirmed:`), so a tensor-parallel decode on it said nothing of
the latency it rests on, as the AMD parts' estimates do (tests/perf/test_unconfirmed_scale_up_latency.py).
"""

from __future__ import annotations

import json

import pytest

from archgen.scoring.catalog import load_accelerators
from tests.conftest import REPO, SPECS

GAUDI3 = REPO / "tests" / "data" / "gaudi3"
SERVE = """kind: Workload
id: serve-tp8-gaudi3
name: Llama 3.1 70B, tp 8, batch 1, on one HLS-Gaudi3
model: llama3-70b
cluster: gaudi3-64
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256, batch: 1}
"""


@pytest.fixture()
def serve(cli, tmp_path):
    (tmp_path / "serve.yaml").write_text(SERVE, encoding="utf-8")
    return json.loads(cli("estimate", str(SPECS), str(GAUDI3), str(tmp_path), "--workload", "serve-tp8-gaudi3",
                          "--format", "json").out)


def test_gaudi3_marks_the_nvlink_step_latency_unconfirmed():
    acc = load_accelerators()["gaudi3"]
    assert acc.scale_up is not None and acc.scale_up.latency.m_as("us") == pytest.approx(1.9)
    assert acc.is_unconfirmed("scale_up.latency")


def test_tp_decode_on_gaudi3_names_the_latency_it_rests_on(serve):
    note = "scale-up latency 1.9 us per collective step of gaudi3 is not a figure of its own link"
    assert any(n.startswith(note) for n in serve["notes"])
