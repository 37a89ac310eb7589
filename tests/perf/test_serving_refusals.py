"""Serving the model does not run is refused as such, and a never-idle run shows no idle time (newuser28, 6 and 7).

`disaggregated: true` was refused as an unknown key with the list of allowed keys, though only docs/perf-model.md's
Limitations said disaggregated prefill/decode is not modelled. A closed loop's breakdown printed
`idle_per_request 1.033e-14 ms`: its iterations' summed times fall short of its clock by float rounding.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob
from archgen.perf.serve.run import run_breakdown
from archgen.perf.serve.scheduler import simulate
from archgen.pipeline import run
from archgen.units import Q_
from tests.conftest import SPECS

LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
JOB = ("kind: Workload\nid: w\nname: w\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 8\n"
       "inference: {tp: 8, input_len: 1024, output_len: 128, disaggregated: true}\n")


def test_disaggregated_serving_is_refused_as_not_modelled(spec_tree):
    root = spec_tree({"w.yaml": JOB})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    text = str(err.value)
    assert "disaggregated prefill/decode serving" in text and "is not modelled" in text
    assert "unknown key" not in text
    assert "w.yaml:7:69: error: inference.disaggregated:" in text  # located at the key


@pytest.mark.parametrize(("concurrency", "inp", "out"), [(4, 128, 128), (64, 500, 2000)])
def test_a_closed_loop_is_never_idle(accelerators, concurrency, inp, out):
    """Each finished request is replaced at once, so the replica runs iterations back to back: busy is 1 exactly,
    and the breakdown has prefill and decode only (these two read 1 - 2.2e-16 before)."""
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))
    r = simulate(hw, ServeJob(LLAMA70, inp, out, "fp8", scenario="concurrency"), 4, max_batch=512,
                 concurrency=concurrency)
    assert r.busy == 1.0
    assert set(run_breakdown(r, out, r.tokens_per_second)) == {"prefill_per_request", "decode_per_request"}
