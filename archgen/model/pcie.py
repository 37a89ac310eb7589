"""PCI Express: what a card's host interface carries, and what GPUs with no scale-up link reach each other over.

A NIC's or an accelerator's `host_interface` is written as its maker writes it, 'PCIe Gen4 x16'; `pcie_rate` reads
the generation and width and gives the rate one direction carries. An accelerator with no scale-up link (NVIDIA L40S,
RTX PRO 6000 Blackwell Server Edition: no NVLink) reaches the other accelerators of its node by PCIe peer-to-peer
over that interface; `perf.hw.from_spec` builds that domain from the figures below.
"""

import re

#: PCI Express generation -> (transfer rate per lane, GT/s as transfers/s; line-code efficiency): Gen3 8, Gen4 16 and
#: Gen5 32 GT/s with 128b/130b encoding, Gen6 64 GT/s in FLIT mode with no line code (its FLIT's CRC and FEC bytes are
#: not subtracted, so Gen6 is an upper bound). The PCI-SIG specifications' rates as tabulated in Wikipedia, "PCI
#: Express", History and revisions comparison table (https://en.wikipedia.org/wiki/PCI_Express); Gen5 x16 gives
#: 63.0 GB/s per direction, the figure the dgx-h100 catalog entry states for its GPUs' host link, Gen4 x16 31.5 GB/s
#: (NVIDIA's L40S datasheet: "PCIe Gen4 x16: 64GB/s bidirectional").
PCIE_LANE = {3: (8e9, 128 / 130), 4: (16e9, 128 / 130), 5: (32e9, 128 / 130), 6: (64e9, 1.0)}

#: NCCL's latency (us) of one ring LL128 step over PCI, beside 1.9 over NVLink (NVIDIA/nccl src/graph/tuning.cc at
#: 5067397c2676, `hwLatencies`, PCI row, 164-168: Ring (LL/LL128/Simple) { 1.0, 2.5, 5.7 }; NVLink row { 0.6, 1.9,
#: 3.4 }): NCCL's tuning figure, not a measurement. A PCIe domain takes NCCL's whole PCI row scaled by the part's step
#: over this (`perf.comm.nccl.PCI_LATENCY`), and no LL128 (NCCL's is off where the path is not NVLink: the step names
#: the row, not a protocol that runs).
PCIE_P2P_LATENCY = 2.5e-6

#: Achieved fraction of a PCIe link for large copies, lowest and highest measured: nvbandwidth's host-device copies,
#: 0.81 (H100, Gen5 x16, 51 of 63 GB/s) to 0.834 (A100, Gen4 x16, 26.28 of 31.5 GB/s), as `model.system`'s
#: `HOST_LINK_EFFICIENCY` (this range's low end) cites them (Azure/AI-benchmarking-guide). No GPU-to-GPU PCIe
#: peer-to-peer or nccl-tests measurement is in the catalog: a PCIe domain's ring efficiency is taken at the low end,
#: inside this range, and estimates say so.
PCIE_COPY_RANGE = (0.81, 0.834)


def pcie_rate(host_interface: str) -> float | None:
    """What a `host_interface` carries per direction (B/s): 'PCIe Gen5 x16' -> 63.0 GB/s, 'PCIe Gen4 x16' -> 31.5.

    None where it is not a PCIe generation and width archgen knows (on-board, blank, another bus).
    """
    m = re.fullmatch(r"\s*PCIe\s+Gen\s*(\d)\s+x(\d+)\s*", host_interface, re.IGNORECASE)
    if m is None or int(m[1]) not in PCIE_LANE:
        return None
    rate, code = PCIE_LANE[int(m[1])]
    return rate * code * int(m[2]) / 8
