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


LIBRARY = "collectives of gaudi3 (Intel) are timed inside its scale-up domain and across domains as NVIDIA's NCCL runs"


def test_tp_decode_on_gaudi3_says_its_collectives_are_nccls(serve):
    """The TP-8 all-reduces over the RoCE mesh are NCCL's ring/tree on Simple (`generation.WITHOUT`), not Intel's."""
    assert any(n.startswith(LIBRARY) for n in serve["notes"])


def test_training_on_trainium2_torus_domains_says_so_across_them(cli):
    """Trn2 instances' 4x4 torus (tests/data/trn2-torus): rings inside one, NCCL's model between them over EFA."""
    parts = [str(REPO / "tests" / "data" / p) for p in ("trn2", "trn2-torus")]
    out = cli("estimate", str(SPECS), *parts, "--workload", "llama3-70b-pretrain-trn2-torus").out
    assert ("note: collectives of trainium2 (AWS) are timed across its torus domains (inside one, rings and the "
            "bucket algorithm, `perf.comm.torus`) as NVIDIA's NCCL runs them") in out


@pytest.mark.parametrize("workload", ["llama3-70b-pretrain-tpu-v4", "allreduce-tpu-v4-pod", "llama3-70b-pretrain-mi355x",
                                      "nccl-allreduce-nvl72-rack"])
def test_no_such_note_where_the_model_has_the_library(cli, workload):
    """A TPU pod's groups stay inside its torus; AMD's run RCCL's table inside a node; NVIDIA's run NCCL."""
    out = cli("estimate", str(SPECS), "--workload", workload).out
    assert "as NVIDIA's NCCL runs them" not in out


NVIDIA_RESERVE = "these are NVIDIA GPUs' figures: gaudi3 states no CUDA compute capability"


def test_training_on_gaudi3_says_its_memory_reserve_is_nvidias(cli):
    """The reserve held back (CUDA context 0.4 GB, 0.688 GB per NCCL communicator) was measured on A100s and H100s."""
    est = json.loads(cli("estimate", str(SPECS), str(GAUDI3), "--workload", "llama3-70b-train-gaudi3",
                         "--format", "json").out)
    assert NVIDIA_RESERVE in est["conventions"]["memory_reserve"]
    assert est["conventions"]["memory_reserve"].startswith("CUDA context 0.4 GB, 0.688 GB per NCCL communicator")


def test_an_nvidia_training_estimate_keeps_its_reserve_as_it_was(cli):
    est = json.loads(cli("estimate", str(SPECS), "--workload", "llama3-70b-pretrain-b200", "--format", "json").out)
    assert "these are NVIDIA GPUs' figures" not in est["conventions"]["memory_reserve"]
