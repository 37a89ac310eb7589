"""The MoE token dispatcher's per-call cost (`moe_dispatcher`, archgen/perf/comm/dispatcher.py) against HybridEP's
published tables (deepseek-ai/DeepEP at 94a9f8f, docs/README_Hybrid-EP.md; transcribed independently in
tests/perf/data/hybridep-h100.yaml and hybridep-gb200.yaml), and the switch's effect on a small case by hand."""

from __future__ import annotations

import dataclasses
from math import comb
from pathlib import Path

import numpy as np
import pytest
import yaml

from archgen.errors import SpecError
from archgen.model.switches import SWITCHES
from archgen.perf.comm import dispatcher as D
from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train import ep_exposure
from archgen.perf.train.ep_exposure import expert_comm
from archgen.perf.train.stacks import resolve
from archgen.perf.train.training import Job

DATA = Path(__file__).parent / "data"


def _gaps(rows, bytes_of):
    """(ranks, API - kernel time of a dispatch, of a combine) in ms, from a table's rates."""
    out = []
    for r in rows:
        b = bytes_of(r["ranks"])
        out.append((r["ranks"], b / 1e6 * (1 / r["torch_dispatch"] - 1 / r["kernel_dispatch"]),
                    b / 1e6 * (1 / r["torch_combine"] - 1 / r["kernel_combine"])))
    return out


def test_hybridep_fixed_cost_across_nodes_against_the_h100_table():
    """H100, 8 ranks per node, 8 SMs (HybridEP's default across nodes, csrc/hybrid_ep/config.cuh): API time minus
    kernel time of the counted RDMA bytes (nodes hit x 4096 x 7168 x 2 B) is 0.503, 0.666 and 1.343 ms per dispatch
    and 0.334, 0.425 and 0.426 ms per combine at 16, 32 and 64 ranks. The staging copies (4096 input tokens and
    the 26.9k-30.9k received ones, each read and written, at H100's 3.35 TB/s) take 0.266-0.302 ms of it; the rest,
    0.237, 0.376 and 1.041 ms per dispatch (its stream synchronisation) and 0.067, 0.135 and 0.124 ms per combine,
    is the fixed cost the model charges."""
    data = yaml.safe_load((DATA / "hybridep-h100.yaml").read_text(encoding="utf-8"))
    rows = [r for r in data["rows"] if r["sms"] == 8]

    def counted(ranks):
        nodes, experts = ranks // data["ranks_per_node"], data["experts_per_rank"] * ranks
        return 4096 * nodes * (1 - comb(experts - experts // nodes, 8) / comb(experts, 8)) * 7168 * 2

    gaps = _gaps(rows, counted)
    assert [round(d, 3) for _, d, _ in gaps] == [0.503, 0.666, 1.343]
    assert [round(c, 3) for _, _, c in gaps] == [0.334, 0.425, 0.426]
    copies = [D.copy_time(n, 3.35e12) * 1e3 for n, _, _ in gaps]
    assert [round(c, 3) for c in copies] == [0.266, 0.29, 0.302]
    ranks, disp, comb_ = D.HYBRIDEP_SCALE_OUT
    assert ranks == (16.0, 32.0, 64.0)
    assert [x * 1e3 for x in disp] == pytest.approx([g[1] - c for g, c in zip(gaps, copies, strict=True)], abs=1e-9)
    assert [x * 1e3 for x in comb_] == pytest.approx([g[2] - c for g, c in zip(gaps, copies, strict=True)], abs=1e-9)
    assert [round(x * 1e3, 3) for x in disp] == [0.237, 0.376, 1.041]
    assert [round(x * 1e3, 3) for x in comb_] == [0.067, 0.135, 0.124]


def test_hybridep_fixed_cost_inside_a_domain_against_the_gb200_table():
    """GB200 NVL72, 16 SMs: the received bytes (8 ranks: 319 MB) give API - kernel 0.155 ms per dispatch and
    0.126 ms per combine at 8 ranks, and the B200 table's one row (8 ranks, 16 SMs) agrees within 4 % and 2 %
    (0.161, 0.128 ms): the cost is the API's, not the platform's. Less the copies at 8 TB/s, 0.060 ms per
    dispatch and 0.032 ms per combine at 8 ranks."""
    data = yaml.safe_load((DATA / "hybridep-gb200.yaml").read_text(encoding="utf-8"))

    def received(ranks):
        experts = 8 * ranks
        return 4096 * ranks * (1 - comb(experts - 8, 8) / comb(experts, 8)) * 7168 * 2

    assert received(8) / 1e6 == pytest.approx(319.0, abs=0.1)
    gb, b2 = _gaps(data["gb200"], received), _gaps(data["b200"], received)
    assert (round(gb[0][1], 3), round(gb[0][2], 3)) == (0.155, 0.126)
    assert (round(b2[0][1], 3), round(b2[0][2], 3)) == (0.161, 0.128)
    copies = [D.copy_time(n, 8e12) * 1e3 for n, _, _ in gb]
    ranks, disp, comb_ = D.HYBRIDEP_SCALE_UP
    assert ranks == tuple(float(n) for n, _, _ in gb)
    assert [x * 1e3 for x in disp] == pytest.approx([max(g[1] - c, 0) for g, c in zip(gb, copies, strict=True)])
    assert [x * 1e3 for x in comb_] == pytest.approx([max(g[2] - c, 0) for g, c in zip(gb, copies, strict=True)])
    assert (round(disp[0] * 1e3, 3), round(comb_[0] * 1e3, 3)) == (0.06, 0.032)


def test_fixed_cost_between_and_beyond_the_rows():
    """Linear in the ranks between rows (24 across nodes: halfway between 16 and 32), held at the end rows outside
    them (128 ranks: the 64-rank value; 4 ranks in one domain: the 8-rank value)."""
    d, c = D.fixed_costs(np.array([24.0, 128.0, 4.0]), np.array([3.0, 16.0, 1.0]))
    out, up = D.HYBRIDEP_SCALE_OUT, D.HYBRIDEP_SCALE_UP
    assert d.tolist() == pytest.approx([(out[1][0] + out[1][1]) / 2, out[1][2], up[1][0]])
    assert c.tolist() == pytest.approx([(out[2][0] + out[2][1]) / 2, out[2][2], up[2][0]])


SMALL = Arch(layers=1, hidden=2048, heads=32, kv_heads=4, head_dim=128, ffn=6144, vocab=151936, gated=True,
             experts=128, top_k=8, expert_ffn=768, rope=True, qk_norm=True)


@pytest.mark.parametrize("passes", [1.0, 2.0])
def test_hybridep_adds_its_calls_to_one_moe_layer_by_hand(h100, passes, monkeypatch):
    """One MoE layer, one micro-batch of 4096 tokens, EP 16 over two 8-GPU H100 nodes: HybridEP costs, per forward
    pass, one dispatch (0.237 ms) and the routing-map all-gather (16 x 4096 tokens x 128 experts x 1 B over the EP
    group), and 0.067 ms for each other call (the forward combines and the two backward calls): with no recompute
    0.2371 + 3 x 0.0674 = 0.439 ms + the gather; a full recompute adds a dispatch, a gather and a combine. DeepEP and
    alltoall publish no per-call figure: the same all-to-all, nothing added. (On the README's platform HybridEP's
    all-to-all takes its kernel rates, `dispatcher.kernel_times`; with that switched off here every dispatcher keeps
    the general all-to-all, so only the per-call cost differs.)"""
    other = h100
    monkeypatch.setattr(ep_exposure, "kernel_platform", lambda hw: False)

    def t(dispatcher):
        job = Job(SMALL, 4096, 16, ep_dedup=dispatcher != "alltoall", moe_dispatcher=dispatcher)
        return float(expert_comm(other, job, 4096.0, 1.0, 16.0, passes, 1e-3, 5e-4)[0])

    gather = float(collective_time(h100, "all_gather", 16 * 4096 * 128 * 1.0, 16.0, 8.0))
    assert 0 < gather < 2e-4
    fixed = passes * (0.237e-3 + gather) + (passes + 2) * 0.067e-3
    assert t("hybridep") - t("deepep") == pytest.approx(fixed, abs=2e-6)
    assert t("deepep") < t("alltoall")  # the de-duplicated all-to-all sends fewer copies across nodes
    assert (passes, round((t("hybridep") - t("deepep") - passes * gather) * 1e3, 3)) in ((1.0, 0.439), (2.0, 0.743))


def test_the_profiles_and_the_coupling_with_ep_dedup():
    """NeMo 24.09's dispatcher (on core_v0.9.0) is alltoall, Megatron-Bridge 26.04's performance configs run HybridEP; a
    stated dispatcher sets ep_dedup, a stated ep_dedup false reads as alltoall and true (under alltoall) as DeepEP,
    Megatron-core's default flex backend."""
    assert resolve("megatron-core-2024", {}, "bf16").moe_dispatcher == "alltoall"
    # what NeMo 24.09 set over core_v0.9.0's own default (allgather), cited as such
    assert all(w in SWITCHES["moe_dispatcher"].source("megatron-core-2024") for w in ("mixtral.py:63", "'allgather'"))
    assert resolve("nemo-2025", {}, "bf16").moe_dispatcher == "hybridep"
    assert resolve("nemo-2025", {"ep_dedup": False}, "bf16").moe_dispatcher == "alltoall"
    assert resolve("megatron-core-2024", {"ep_dedup": True}, "bf16").moe_dispatcher == "deepep"
    assert resolve("megatron-core-2024", {"moe_dispatcher": "hybridep"}, "bf16").ep_dedup is True
    assert resolve("nemo-2025", {"moe_dispatcher": "alltoall"}, "bf16").ep_dedup is False


def test_a_contradiction_is_refused():
    """ep_dedup true with the alltoall dispatcher cannot both hold."""
    from archgen.model.switches import StackSwitches

    with pytest.raises((SpecError, ValueError), match="ep_dedup true contradicts moe_dispatcher 'alltoall'"):
        StackSwitches(ep_dedup=True, moe_dispatcher="alltoall")


def test_a_contradiction_in_a_case_file_is_located(cli, tmp_path):
    """In a case file the refusal names the file, the line of the case's training and the expected value."""
    data = yaml.safe_load((DATA / "bridge-26.04.yaml").read_text(encoding="utf-8"))
    case = next(c for c in data["cases"] if c["id"] == "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off")
    case["training"] |= {"ep_dedup": True, "moe_dispatcher": "alltoall"}
    path = tmp_path / "cases.yaml"
    path.write_text(yaml.safe_dump({**data, "cases": [case]}, sort_keys=False), encoding="utf-8")
    out = cli("estimate", "--cases", str(path))
    text = out.out + out.err
    assert f"{path}:" in text
    assert "ep_dedup true contradicts moe_dispatcher 'alltoall'; expected ep_dedup false" in text


def test_hybridep_kernel_times_split_the_readme_dispatch_into_a_fixed_and_a_byte_part():
    """HybridEP's H100 table (tests/perf/data/hybridep-h100.yaml, 8 SMs, HybridEP's default across nodes) times the
    kernel-only dispatch of the same 4,096 tokens and routing in BF16 (14,336 B a token) and FP8 (7,392 B: 1 B a
    value and a 4-byte scale per 128, the bytes its rate counts). Bytes alone cannot give both: at 16 ranks BF16
    takes 1.524 ms and FP8 0.974 ms, 64 % of it for 52 % of the bytes. `dispatcher.kernel_times` reads each row as a
    fixed time per counted token-node plus the bytes at a rate, which returns both published rates at every row
    (FP8 as a BF16 call of hidden 3,696, the same bytes), and at hidden 2,048 gives a dispatch of 0.712 ms where
    bytes alone gave 0.436 ms. The combine, published in BF16 only, stays bytes alone: its published rate, 0.492 ms
    at hidden 2,048."""
    data = yaml.safe_load((DATA / "hybridep-h100.yaml").read_text(encoding="utf-8"))
    for r in (r for r in data["rows"] if r["sms"] == D.KERNEL_SMS):
        n = r["ranks"]
        wide = D.counted_bytes(n, data["ranks_per_node"])
        bf16, combine = (float(x) for x in D.kernel_times(4096.0, 7168, 8 * n, 8, float(n), 8.0))
        fp8 = float(D.kernel_times(4096.0, 3696, 8 * n, 8, float(n), 8.0)[0])
        assert bf16 == pytest.approx(wide / (r["kernel_dispatch"] * 1e9), rel=1e-9)
        assert fp8 == pytest.approx(wide * (1 + 4 / 128) / 2 / (r["kernel_dispatch_fp8"] * 1e9), rel=1e-9)
        assert combine == pytest.approx(wide / (r["kernel_combine"] * 1e9), rel=1e-9)
    wide = D.counted_bytes(16, 8)
    t_bf16, t_fp8 = wide / 76.80e9, wide * (1 + 4 / 128) / 2 / 62.00e9
    assert (round(t_bf16 * 1e3, 3), round(t_fp8 * 1e3, 3)) == (1.524, 0.974)
    dispatch, combine = (float(x) for x in D.kernel_times(4096.0, 2048, 128, 8, 16.0, 8.0))
    assert (round(dispatch * 1e3, 3), round(combine * 1e3, 3)) == (0.712, 0.492)
    assert round(t_bf16 * 2048 / 7168 * 1e3, 3) == 0.436  # bytes alone


def test_the_kernel_rates_follow_the_readme_platform_not_one_catalog_id(accelerators, h100):
    """The README's across-node table ran on Hopper SMs (compute capability 9.0), 8 GPUs a node on NVLink 4 at 450
    GB/s a direction (`dispatcher.kernel_platform`). An HGX H200 (the same SMs, NVLink 4 and NVSwitch) takes its
    kernel rates, so one EP 16 HybridEP layer costs what it costs on the H100: 2 x (1 + 1) x (0.712 + 0.492) / 2 ms
    of all-to-alls (`kernel_times` at hidden 2,048) plus the per-call cost. An HGX H800 (8 NVLink 4 links, 200 GB/s)
    does not: the README's 16-rank rate forwards about 222 GB/s over NVLink (76.8 GB/s x 2.9 GPUs a token-node,
    uniform routing), above its links, so it keeps the general all-to-all; nor does a B200 (compute capability 10.0)
    or an H100 in a domain other than 8. Arrays of hardware answer element by element."""
    from archgen.units import Q_

    def node(acc, size=8):
        return hardware_for(accelerators[acc], scale_up_size=size, scale_out_bandwidth=Q_(400, "Gbit/s"),
                            in_network_reduction=False)

    h200, h800, b200 = node("h200-sxm-141gb"), node("h800-sxm5-80gb"), node("b200-sxm-180gb")
    assert [D.kernel_platform(hw) for hw in (h100, h200, h800, b200, node("h100-sxm5-80gb", 4))] == [
        True, True, False, False, False]
    assert h800.scale_up_bandwidth == pytest.approx(200e9) and h200.compute_capability == 9.0
    assert D.kernel_platform(dataclasses.replace(h100, scale_up_size=np.array([8.0, 72.0]))).tolist() == [True, False]
    assert round(76.8 * 8 * (1 - (7 / 8) ** 4) * 7 / 8) == 222

    def layer(hw, dispatcher="hybridep"):
        job = Job(SMALL, 4096, 16, ep_dedup=True, moe_dispatcher=dispatcher)
        return float(expert_comm(hw, job, 4096.0, 1.0, 16.0, 1.0, 1e-3, 5e-4)[0])

    def cost(hw):
        job = Job(SMALL, 4096, 16, ep_dedup=True, moe_dispatcher="hybridep")
        return float(ep_exposure.dispatcher_cost(hw, job, 4096.0, 16.0, 8.0, 1.0)[0])

    assert layer(h100) == pytest.approx(2.0 * 2.0 * (0.712e-3 + 0.492e-3) / 2.0 + cost(h100), abs=2e-6)
    assert layer(h200) == pytest.approx(layer(h100), rel=1e-9)
    assert layer(h800) == pytest.approx(layer(h800, "deepep") + cost(h800), rel=1e-9)  # the general all-to-all
