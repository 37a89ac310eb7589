"""RCCL across scale-up domains, and its all-to-all and point-to-point sends: what the model takes, and what it cannot.

Inside one domain an AMD part runs RCCL's own tuning table (`rccl`). Across domains, and for all-to-all and
point-to-point sends at any scale, the model keeps NCCL's constants (`rccl.split`): base latency 8.4 us and a
network step of 14 us (Simple) for rings and trees, NCCL's network LL128 step (4.0 us, `nccl.NET_STEP`) per send.
What RCCL's code states instead, and why it is not taken as a time:

* Rings and trees across nodes. RCCL's table for the gfx942 parts (MI300X, MI325X) and gfx950 (MI350X, MI355X)
  states a network step of 9.5 us (ring LL), 320 us (ring Simple), 10.5 and 25 us (tree LL, Simple) and a base
  of 12/17 us: ROCm/rccl@0cbce2a7 src/graph/tuning.cc 224-252 (`tuning_model_5`), and the same network row in
  ROCm/rocm-systems@03a89144e7d8 projects/rccl/src/graph/tuning.cc `tuning_model_5` (gfx942), `tuning_model_6`
  (gfx950) and `tuning_model_8` (gfx942 with AMD's AI NIC), chosen by `rcclGetTuningIndexForArch` at the end of
  that file. RCCL chooses with them together with its per-size corrections; taken as a time (`table_time`, the
  corrections only choosing, as `rccl.fastest` does) a 2-node ring Simple all-reduce pays 2 x nodes x 320 us
  (0cbce2a7 354-355; 2 x (nodes - 1) at 03a89144, which the model now runs), which no published RCCL measurement
  shows: AMD measured 156.35/190.33/249.4 GB/s busbw for a 2-node MI350X all-reduce of 32/64/128 MiB
  (ROCm/rocm-systems#9406), where RCCL's table read as a time gives 35.1/36.1/36.6 GB/s at 0cbce2a and 68.7/115.4/
  174.8 at 03a89144 (table 6), and NCCL's figures 175.2/235.7/284.9. So the point estimate keeps NCCL's figures and
  says so (`latency_note`), and a collective workload also gives its time under RCCL's tables (`table_times`).
* All-to-all and point-to-point: RCCL's tuning model times neither (sends are not tuned; tuning.cc has no p2p
  latency), and no RCCL figure for a send's latency was found, so NCCL's stay, said as an assumption.

The share of the NICs' line rate RCCL reaches across nodes (`NET_EFFICIENCY_RANGE`) is a stated range, not NCCL's
point: AMD's cluster validation suite sets what a 2-node cluster of 8 Broadcom RoCE NICs (bnxt_re, line 20) per node
is expected to reach with RCCL (ROCm/cvs@0156a23dc8bf input/config_file/rccl/rccl_config.json: `results`, "expected
results below are for 2 node cluster", line 47). The file gives no NIC rate; taken as 400 GbE (Thor2: the suite's
documentation sources a thor2 environment script for this file), its expectations for the operations whose time
the model takes at the NICs' rate run from all_reduce_perf 8 GiB busbw 330 GB/s (line 54; all-gather the same)
over the node's 8 x 50 GB/s = 0.825 to sendrecv_perf 16 GiB 48 GB/s (line 119) over one NIC's 50 GB/s = 0.96 (also
NCCL's best on 400 Gb/s NDR InfiniBand, NVIDIA/nccl-tests#290). Its all-to-all expectation (45-50 GB/s busbw, lines
102-103) asks less: in the model's terms (half of each rank's buffer over its NIC) 0.48 to 0.53 of the NIC, below
the range, which does not cover it; reduce and broadcast (300-312 GB/s) are operations the model does not time. All
are pass thresholds (the file leaves `verify_bus_bw` off, line 42) for an unnamed GPU (ROCm 6.4.2, line 12), not
measurements; the model's 0.9 lies between the two it takes.
"""

from __future__ import annotations

import dataclasses

from archgen.perf.comm import algorithms, group, nccl, rccl
from archgen.perf.hw.hardware import Hardware

#: ROCm/cvs@0156a23dc8bf input/config_file/rccl/rccl_config.json: 330 GB/s all-reduce busbw (line 54) / (8 NICs x
#: 50 GB/s), 48 GB/s send/recv (line 119) / 50 GB/s; 2 nodes of 8 x 400 GbE Thor2 RoCE (lines 4-7, 20).
NET_EFFICIENCY_RANGE = (330.0 / 400.0, 48.0 / 50.0)
#: RCCL's network steps (us) of its gfx942/gfx950 table, Simple: ring, tree (tuning.cc 231, `tuning_model_5`).
NET_SIMPLE = (rccl.MODEL_5.net["ring"][rccl.SIMPLE], rccl.MODEL_5.net["tree"][rccl.SIMPLE])
#: The collectives RCCL's tuner times (all-to-all and p2p are sends it does not tune).
TUNED = ("all_reduce", "all_gather", "reduce_scatter")


def crosses(hw: Hardware, gpus: int) -> bool:
    """Whether `gpus` of an RCCL part (AMD) leave one scale-up domain over a scale-out fabric."""
    return (rccl.uses_rccl(hw.vendor, hw.compute_capability) and gpus > hw.scale_up_size
            and hw.scale_out_bandwidth > 0)


def with_range(hw: Hardware, gpus: int) -> Hardware:
    """`hw` with RCCL's stated scale-out efficiency range where its `gpus` cross domains (`NET_EFFICIENCY_RANGE`)."""
    if not crosses(hw, gpus) or hw.scale_out_efficiency_range:
        return hw
    return dataclasses.replace(hw, scale_out_efficiency_range=NET_EFFICIENCY_RANGE)


def table_time(hw: Hardware, op: str, size: float, n: int, table: rccl.TuningTable | None = None) -> float | None:
    """Seconds of `op` on `n` ranks with RCCL's own table across domains taken as the time (None where not RCCL's).

    The candidates are RCCL's ring and tree (`algorithms.rccl_table`) under `table` (None: `rccl.table_for` the
    domain), chosen with its size corrections and timed without them (`rccl.fastest`), as inside a domain; only the
    network figures differ from the point estimate's.
    """
    k = float(min(n, hw.scale_up_size))
    if op not in TUNED or not crosses(hw, n) or k >= n:
        return None
    t = group.Topo(hw, float(n), k)
    t.rccl = table or t.rccl
    cands = algorithms.rccl_table(hw, t, op)
    return float(rccl.fastest(cands, size)) if cands else None


def table_times(hw: Hardware, op: str, size: float, n: int) -> dict[str, float]:
    """`table_time` under each table RCCL may take for the domain, by revision and table (empty where not RCCL's).

    At 03a89144 (ROCm 7.x, the model's) an 8-GPU xGMI domain takes table 5 (gfx942) or 6 (gfx950) (`rccl`), which
    choose differently across nodes, and the specs state no gfx target, so both are given; then 0cbce2a's (ROCm 6.x),
    whose ring crosses the network 2 x nodes times: which RCCL a cluster runs moves only this figure.
    """
    new, old = rccl.table_for(hw.scale_up_size), rccl.table_for(hw.scale_up_size, rccl.ROCM6)
    tables = [new, rccl.MODEL_6_ROCM7, old] if new is rccl.MODEL_5_ROCM7 else [new, old]
    times = {f"{tb.revision} table {tb.index}": table_time(hw, op, size, n, tb) for tb in tables}
    return {k: t for k, t in times.items() if t is not None}


def latency_note(hw: Hardware, gpus: int, sends: bool) -> list[str]:
    """What an estimate on an RCCL part took for latencies RCCL's code does not give as times (none inside a node).

    Across domains: NCCL's ring/tree figures in place of RCCL's table; where the estimate `sends` (all-to-all or
    point-to-point, at any scale): NCCL's figures for those, which RCCL's tuning model does not time.
    """
    if not rccl.uses_rccl(hw.vendor, hw.compute_capability) or gpus < 2:
        return []
    ring, tree = NET_SIMPLE
    base = nccl.BASE_LATENCY["ring"][rccl.SIMPLE]
    out = ([f"collectives across scale-up domains take NCCL's latencies (base {base:g} us, "
            f"{nccl.NET_LATENCY['ring'][rccl.SIMPLE]:g} us per network step, Simple), not RCCL's: RCCL's table for "
            "gfx942 and gfx950 (ROCm/rocm-systems@03a89144 projects/rccl/src/graph/tuning.cc tuning_model_5/6/8) "
            f"states {ring:g} us per ring and {tree:g} us per tree network step (Simple), figures that steer its "
            "choice and that, taken as a time, fall far below AMD's measured 2-node all-reduce "
            "(ROCm/rocm-systems#9406); no published RCCL figure times them (an assumption, `perf.comm.rccl_net`)"]
           if crosses(hw, gpus) else [])
    if sends:
        out.append(f"all-to-all and point-to-point sends take NCCL's latencies (all-to-all base {base:g} us, "
                   f"{nccl.NET_STEP:g} us per send across domains): RCCL's tuning model times no sends, and no "
                   "RCCL figure for them was found (an assumption, `perf.comm.rccl_net`)")
    return out


def table_note(hw: Hardware, op: str, size: float, gpus: int) -> list[str]:
    """A collective workload's time and busbw with RCCL's own table across domains taken as the time (`table_times`)."""
    times = table_times(hw, op, size, gpus)
    if not times:
        return []
    each = "; ".join(f"{label}: {t * 1e3:.4g} ms, busbw {size / t * group.busbw_factor(op, gpus) / 1e9:.4g} GB/s"
                     for label, t in times.items())
    return [f"with RCCL's own latencies across domains taken as the time instead ({NET_SIMPLE[0]:g} us per ring and "
            f"{NET_SIMPLE[1]:g} us per tree network step, Simple; its choice, its bandwidth ratios; RCCL "
            f"{rccl.ROCM7} is ROCm 7.x, {rccl.ROCM6} ROCm 6.x; table 5 is gfx942's, 6 gfx950's, and the specs state "
            f"no gfx target) the {op} would take {each}: RCCL's tuner values read as a "
            "time, not a measurement (`perf.comm.rccl_net`)"]
