"""A training layout whose groups the scale-up domains cut says so (newuser58).

Megatron-core's rank order puts consecutive ranks in a domain, so EP groups of 64 on NVL72 racks are cut at every
multiple of gcd(72, 64) = 8 ranks (docs/perf-model.md, Groups that straddle domains: DeepSeek-V3 at tp 1, pp 9,
ep 64 on 576 GB200, "k = gcd(72, 64) = 8, not 64"). The model timed that, but the estimate did not say it, and its
elasticities (scale-out bandwidth binding, scale-up none) read as the hardware's. Groups whose span divides 72
(ep 8) get no note.
"""

from __future__ import annotations

import json
import math

from tests.conftest import SPECS

JOB = """\
kind: Workload
id: dsv3-gb200
name: DeepSeek-V3 pre-training on one GB200 NVL72 SU
model: deepseek-v3
cluster: gb200-nvl72-su
training:
  seq_len: 4096
  global_batch: 1152
  precision: bf16
  parallelism: {{tp: 1, pp: 9, ep: {ep}, micro_batch: 1}}
"""


def _notes(cli, tmp_path, ep: int) -> list[str]:
    (tmp_path / "job.yaml").write_text(JOB.format(ep=ep), encoding="utf-8")
    out = cli("estimate", str(SPECS), str(tmp_path), "--workload", "dsv3-gb200", "--format", "json").out
    return json.loads(out)["notes"]


def test_ep_groups_cut_by_the_racks_are_named(cli, tmp_path):
    [note] = [n for n in _notes(cli, tmp_path, 64) if n.startswith("groups straddle")]
    k = math.gcd(72, 64)  # the worst group's members in one NVL72 (docs/perf-model.md's example)
    assert f"the EP groups of 64 (span 64 ranks) keep {k} of their 64 members in one domain" in note, note
    assert "scale-up domains of 72 accelerators" in note


def test_groups_inside_a_domain_get_no_note(cli, tmp_path):
    assert not [n for n in _notes(cli, tmp_path, 8) if n.startswith("groups straddle")]
