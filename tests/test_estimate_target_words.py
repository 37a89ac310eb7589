"""`archgen estimate` writes a requirement's target in the words its metric is shown in, as `check` does (newuser88).

A target written `>= 326 tokens/s` on tokens_per_second_per_gpu read ">= 326 1/s" in the estimate's requirement
lines, beside "361.6 tokens/s" above it, and `>= 0.35` on MFU read ">= 0.35" beside "61.81 %"; `check` and the
documents already showed ">= 600,000 tokens/s" and ">= 35 %" (`display.target_text`).
"""

from __future__ import annotations


def test_estimate_requirement_lines_show_targets_as_check_does(cli):
    got = cli("estimate", "--workload", "llama3-70b-pretrain-b200")
    assert got.code == 0, got.err
    lines = [ln for ln in got.out.splitlines() if ln.startswith("REQ-PERF-00")]
    assert lines[0].startswith("REQ-PERF-001: mfu >= 35 %: ")
    assert lines[1].startswith("REQ-PERF-002: tokens_per_second >= 600,000 tokens/s: ")
