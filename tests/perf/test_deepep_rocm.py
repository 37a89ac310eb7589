"""DeepEP on an AMD part is Primus-Turbo's ROCm port, which runs on gfx950 (the MI355X) too; the estimate says so.

newuser74's trial (a neocloud's MI355X cluster, DeepSeek-V3 on Primus): the refusal text of `nvidia_only` quoted
Primus-Turbo's DeepEP README, "only Supported MI300 (gfx942)", while the code and the `primus-2025` profile accept
any AMD part, and an MI355X MoE estimate costed the port as NVIDIA's DeepEP with no word. The port builds its DeepEP
kernels for gfx942 and gfx950 (AMD-AGI/Primus-Turbo at a6a16cdc, setup.py SUPPORTED_GPU_ARCHS; csrc/kernels/deep_ep/
utils.cuh "gfx942 / gfx950: no hardware sub-group barrier") and AMD ran it on 64 MI355X (ROCm blog "Dropless MoE
Training in JAX with Primus-Turbo", 2026-06-10): `deepep` stays accepted on the MI355X, and the estimate notes that
the port is costed as NVIDIA's DeepEP. No number moves.
"""

from __future__ import annotations

from tests.conftest import SPECS
from tests.data.workloads import qwen3_training

NOTE = "is Primus-Turbo's ROCm port, costed as DeepEP's deduplicated dispatch and combine on NVIDIA GPUs"


def _estimate(cli, tmp_path, layout: str = "{tp: 1, pp: 1, ep: 8}", cluster: str = "mi355x-th5", **switches):
    job = qwen3_training("moe-amd", layout, cluster=cluster, name="Qwen3-30B-A3B on 64 MI355X", global_batch=512,
                         **switches)
    (tmp_path / "job.yaml").write_text(job, encoding="utf-8")
    return cli("estimate", str(SPECS), str(tmp_path), "--workload", "moe-amd")


def test_deepep_on_the_mi355x_runs_with_the_port_named(cli, tmp_path):
    r = _estimate(cli, tmp_path, stack="primus-2025")
    assert r.code == 0 and "step_time" in r.out, r.err
    assert "moe_dispatcher deepep (the primus-2025 profile's) on mi355x " + NOTE in r.out
    assert "gfx950 (MI350X, MI355X)" in r.out and "Dropless MoE Training in JAX with Primus-Turbo" in r.out
    assert "'only Supported MI300 (gfx942)' dates from 2025-09-23 (PR 110) and was not revised" in r.out


def test_a_stated_deepep_says_stated(cli, tmp_path):
    r = _estimate(cli, tmp_path, moe_dispatcher="deepep")
    assert "moe_dispatcher deepep (stated) on mi355x " + NOTE in r.out


def test_no_note_without_deepep_or_without_an_exchange(cli, tmp_path):
    assert NOTE not in _estimate(cli, tmp_path, moe_dispatcher="alltoall").out
    assert NOTE not in _estimate(cli, tmp_path, "{tp: 1, pp: 1, ep: 1}", stack="primus-2025").out
    r = _estimate(cli, tmp_path, cluster="dgx-b200-superpod", moe_dispatcher="deepep")
    assert r.code == 0 and NOTE not in r.out and "Primus-Turbo" not in r.out


def test_the_refusal_elsewhere_cites_the_port_on_gfx950():
    """A TPU's or Gaudi's refusal (`deepep_problem`) names where DeepEP runs: NVIDIA GPUs, and AMD's gfx942 and gfx950."""
    from archgen.perf.workload.nvidia_only import DEEPEP_GPU_ONLY, DEEPEP_ROCM

    assert DEEPEP_ROCM in DEEPEP_GPU_ONLY and "SM90" in DEEPEP_GPU_ONLY
    assert "gfx942 (MI300X, MI325X) and gfx950 (MI350X, MI355X)" in DEEPEP_ROCM
