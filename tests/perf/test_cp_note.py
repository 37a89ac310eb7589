"""An estimate at cp > 1 says which context parallelism it times (newuser53).

Before, Llama 3.1 70B at 131,072 tokens on GB200 at cp 8 showed `cp_comm 0 ms` and nothing else: not that the
exchange is Megatron-LM's default p2p ring hidden behind the attention (--cp-comm-type default ["p2p"],
megatron/training/arguments.py at d98e8a6, line 3221), nor that the causal attention is split evenly over the ranks
as Transformer Engine's load-balanced split runs it (rank r holds chunks r and 2cp-1-r of 2cp, context_parallel.py at
d0067d0, line 238), nor that Llama 3's all-gather CP and the a2a kinds are not modelled (the key `cp_comm_type` is
refused as unknown). The note says so, with the exchange's time beside the attention's.
"""

from __future__ import annotations

import json
import re

from archgen.perf.comm.group import up_bandwidth
from archgen.pipeline import built, job_on_cluster
from tests.conftest import SPECS
from tests.data.workloads import training_workload

SEQ = 131072


def _estimate(cli, tmp_path, parallelism: str) -> dict:
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, parallelism, seq_len=SEQ, global_batch=16, precision="bf16", stack="nemo-2025",
        recompute="full"), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_a_cp_layout_names_the_exchange_it_times_and_the_balanced_split(cli, tmp_path):
    doc = _estimate(cli, tmp_path, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1}")
    note = next(n for n in doc["notes"] if n.startswith("context parallelism cp 8: "))
    assert "--cp-comm-type p2p" in note and "arguments.py at d98e8a6, line 3221" in note
    assert "rank r holds chunks r and 2cp-1-r" in note and "context_parallel.py at d0067d0, line 238" in note
    assert "Not modelled: cp_comm_type allgather" in note and "a2a (Ulysses)" in note
    # the exchange: Transformer Engine's p2p ring over the whole sequence's K and V, 2 x 131,072 tokens x 8 KV heads
    # x 128 x 2 B, in 8 chunks; the 64 GPUs lie in one NVL72 domain, so every hop is an NVLink send: 7 chunks forward,
    # and 7 again in the forward full recomputation re-runs, 2 + 6 x 2 backward, 22 sends' latency (nu53fix; before,
    # three all-gathers of the group whatever the recomputation)
    specs, design = built([str(SPECS), str(tmp_path)])
    hw = job_on_cluster(specs, design, "w").on.hardware
    chunk = 2 * SEQ * 8 * 128 * 2 / 8
    exchange = 28 * chunk / up_bandwidth(hw) + 22 * hw.scale_up_latency
    assert "over the scale-up link, the ring inside one domain" in note
    shown = float(re.search(r"the exchange takes ([0-9.]+) ms", note).group(1))
    assert abs(shown - exchange * 1e3) <= 0.005 * exchange * 1e3, (shown, exchange)
    window = float(re.search(r"beside ([0-9.]+) ms of attention", note).group(1))
    exposed = float(re.search(r"of attention, ([0-9.e-]+) ms exposed", note).group(1))
    assert window > shown and exposed == 0.0  # 131,072 tokens: the attention hides the ring
    assert doc["breakdown"]["cp_comm"]["value"] == 0.0


def test_no_cp_note_at_cp_1(cli, tmp_path):
    doc = _estimate(cli, tmp_path, "{tp: 8, pp: 1, dp: 8, cp: 1, micro_batch: 1}")
    assert not any(n.startswith("context parallelism") for n in doc["notes"])
