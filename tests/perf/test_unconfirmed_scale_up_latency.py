"""An estimate says when its scale-up step latency is not a figure of the part's own link.

newuser36's trial (an AMD MI355X neocloud): every AMD accelerator of the catalog carried `scale_up.latency: 1.9 us`
with no source, as fact: it is NCCL's tuning-model LL128 ring step over NVLink, while RCCL models an 8-GPU xGMI mesh
with a table of its own (ROCm/rccl at 0cbce2a, src/graph/tuning.cc:224-227, tuning_model_5: ring LL 0.8 us, LL128
off, Simple 2.1 us). It sets the TPOT of tensor-parallel decode: Llama 3.1 70B at tp 8 and batch 1 on MI355X, 12.26
ms per token, 19.87 ms with the latency doubled (`--what-if latency=2`, +62 %), and the estimate said nothing of it.
The AMD parts now list it unconfirmed, and an estimate whose part marks it so (or leaves it to the default) names it.
Since RCCL's own table times collectives inside an AMD node (`perf.comm.rccl`: Ring/LL at 12 us + 0.8 us a step),
that TPOT is 7.14 ms, and the latency what-if scales RCCL's steps but not its 12 us base: elasticity -0.613 -> -0.246.
"""

from __future__ import annotations

import json

import pytest

from archgen.scoring.catalog import load_accelerators
from tests.conftest import SPECS

SERVE = """kind: Workload
id: serve-tp8-mi355x
name: Llama 3.1 70B, tp 8, batch 1, on one MI355X node
model: llama3-70b
cluster: mi355x-th5
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256, batch: 1}
"""
NOTE = "scale-up latency 1.9 us per collective step of mi355x is not a figure of its own link"


@pytest.mark.parametrize("part", ["mi300x", "mi325x", "mi350x", "mi355x"])
def test_the_amd_parts_mark_the_nvlink_latency_unconfirmed(part):
    acc = load_accelerators()[part]
    assert acc.scale_up is not None and acc.scale_up.latency.m_as("us") == pytest.approx(1.9)
    assert acc.is_unconfirmed("scale_up.latency")
    assert "tuning_model_5" in acc.notes


def test_tp_decode_on_mi355x_names_the_latency_it_rests_on(cli, tmp_path):
    (tmp_path / "serve.yaml").write_text(SERVE, encoding="utf-8")
    est = json.loads(cli("estimate", str(SPECS), str(tmp_path), "--workload", "serve-tp8-mi355x",
                         "--format", "json").out)
    assert any(n.startswith(NOTE) for n in est["notes"])
    # tokens/s: a fifth of a relative latency change (RCCL's 14 steps of 0.8 us of a 23.2 us all-reduce)
    assert est["sensitivity"]["latency"] < -0.2


def test_a_collective_inside_the_domain_names_it(cli):
    out = cli("estimate", str(SPECS), "--workload", "allreduce-mi355x-th5").out
    assert f"note: {NOTE}" in out
    assert "RCCL's own steps inside the domain (`perf.comm.rccl`) scale with it / 1.9 us" in out


def test_a_part_whose_latency_is_nvlinks_own_has_no_such_note(cli):
    out = cli("estimate", str(SPECS), "--workload", "nccl-allreduce-nvl72-rack").out
    assert "not a figure of its own link" not in out
