"""The link bandwidth rows of an estimate's hardware block say they count one direction (`Estimate.hardware_mark`).

A cluster's `scale_up.bandwidth` counts both directions (docs/spec-reference.md, Cluster › ScaleUp) and the model's
`Hardware` one (its docstring): newuser89's H800 cluster stated 400 GB/s, NVLink's bidirectional figure, and the
estimate read "scale_up_bandwidth 200 GB/s" with nothing to say why. The shipped DGX B200 SuperPOD states 1.8 TB/s
(DGX B200 user guide: 14.4 TB/s over 8 GPUs) and one 400 Gb/s compute port per GPU.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS


def test_link_rows_say_each_direction_in_text_and_json_keeps_the_figure(cli):
    run = cli("estimate", str(SPECS), "--workload", "llama3-70b-pretrain-b200")
    block = run.out[run.out.index("hardware per accelerator:\n"):run.out.index("metrics:\n")]
    assert "  scale_up_bandwidth           900 GB/s  (each direction)\n" in block   # 1.8 TB/s both ways, halved
    assert "  scale_out_bandwidth          400 Gb/s  (each direction)\n" in block
    assert "  hbm_bandwidth                8 TB/s  (unconfirmed:" in block   # other rows keep their own marks only
    doc = json.loads(cli("estimate", str(SPECS), "--workload", "llama3-70b-pretrain-b200", "--format", "json").out)
    assert doc["hardware"]["scale_up_bandwidth"] == {"value": 9e11, "unit": "B/s"}
