"""The figures an estimate takes from the model's defaults because the part states none, named with their origin.

A part that leaves `efficiency.vector`, `efficiency.gemm_half_size`, `efficiency.in_network_reduction` (where NVLS
runs) or `scale_up.latency` out, or a system whose `host_memory` leaves `efficiency` out, is estimated with a
default measured on another part (or assumed): the estimate's note names each (on a part not NVIDIA's that states
no CUDA compute capability, without calling NVIDIA's tensor cores or NVLink its own: `OTHER_VENDOR_ORIGINS`), as
`perf.workload.efficiency_range` names the efficiencies taken at a point, so that a part nobody measured does not
read as if it were. A training job that states no `stack` takes the newest profile of its part's vendor
(`primus-2025` on AMD), else an NVIDIA stack's;
on a part that states no CUDA compute capability (not an NVIDIA GPU) that runs an NVIDIA stack the stack note says
so (`stack_origin`), and an FP4 job there is told how much of its FP4 is NVIDIA's NVFP4 (`fp4_format_note`; AMD's
is sized as MXFP4), which such a part may not run, an FP8 training job that its quantisation follows Transformer
Engine on Hopper (`fp8_copies_note`), and a job that states an NVIDIA stack's switch (`cuda_switches_note`: CUDA
graphs, a Transformer Engine FP8 recipe) that the switch is costed as it runs there. An NVIDIA part that states no
compute capability gets none of these (its stacks are NVIDIA's) but one note naming what the model then assumes
(`generation_note`, `perf.hw.generation`), and a part whose stated NVLS the model does not run is told so
(`nvls_note`), and a part of another vendor (Intel, AWS) that its collectives are NCCL's (`library_note`). An AMD
part is told that the fixed per-kernel costs it is charged are Hopper's measurements (`kernel_cost_note`).
"""

from __future__ import annotations

from archgen.model.accelerator import VECTOR_EFFICIENCY
from archgen.model.engine import vendor_engine
from archgen.model.inference import Inference
from archgen.model.pcie import PCIE_P2P_LATENCY
from archgen.model.stack_profiles import VENDOR_STACKS
from archgen.model.system import HOST_LINK_EFFICIENCY
from archgen.model.workload import Training
from archgen.perf.comm.rccl import uses_rccl
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.generation import (
    NVLS_FROM,
    another_vendors,
    assumed_without,
    generation_unstated,
    nvls_unused,
)
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import GEMM_FILL, KERNEL_OVERHEAD
from archgen.perf.serve.engine_defaults import kv_rule_of

#: Each default an estimate may take, with where its figure comes from (the sources are cited where it is declared).
ORIGINS: dict[str, str] = {
    "vector": f"vector (FP32 FMA) efficiency {VECTOR_EFFICIENCY:g}, a B200's OpenCL-Benchmark rate "
              "(`model.accelerator.VECTOR_EFFICIENCY`)",
    "gemm_half_size": "GEMM size ramp gemm_half_size 128, one tensor-core tile: an assumption, not a measurement",
    "nvls": "NVLS (in-switch reduction) efficiency, NCCL's nvlsEfficiency for its compute capability's generation "
            "(src/graph/tuning.cc: 0.85 Hopper, 0.74 Blackwell and later): NCCL's tuning figure, not a measurement",
    "latency": "scale-up latency 1.9 us per ring step, NCCL's LL128 step over NVLink (`model.accelerator.ScaleUp`), "
               "whatever the part's link",
    "pcie_p2p": "no scale-up link: the node's accelerators reach each other by PCIe peer-to-peer over the part's "
                "`host_interface` (the scale-up bandwidth shown), NCCL's PCI step latencies (ring LL128 step "
                f"{PCIE_P2P_LATENCY * 1e6:g} us, Simple 5.7 us; tuning.cc `hwLatencies`) and no LL128 inside a node, "
                "which NCCL enables only where the path inside a node is NVLink (tuning.cc `typeIntra <= PATH_NVB`); "
                "no PCIe peer-to-peer measurement (`model.pcie`); every pair is taken one hop apart at that rate: a "
                "PCIe switch's shared uplink and a path across CPU sockets are not modelled",
    "host_link": f"host link efficiency {HOST_LINK_EFFICIENCY:g}, nvbandwidth's host-to-device copy on an H100 over "
                 "PCIe Gen5 x16 (`model.system.HOST_LINK_EFFICIENCY`)",
}

#: The words of `ORIGINS` entries that name NVIDIA's hardware, for a part of another vendor (`{part}`: its id): the
#: figure is the same default, said not to be the part's own (newuser50: "one tensor-core tile" and "NCCL's LL128
#: step over NVLink" read on Gaudi 3 and Trainium2, which have neither).
OTHER_VENDOR_ORIGINS: dict[str, str] = {
    "gemm_half_size": "GEMM size ramp gemm_half_size 128, one 128-wide matrix-unit tile, not a figure of {part}'s own "
                      "matrix units: an assumption, not a measurement",
    "latency": "scale-up latency 1.9 us per ring step, a step on another vendor's link (NCCL's LL128 step over "
               "NVIDIA's NVLink, `model.accelerator.ScaleUp`), not a figure of {part}'s own scale-up link",
}


def _origin(name: str, hw: Hardware) -> str:
    """`ORIGINS[name]`, in words that do not name NVIDIA's hardware as the part's on another vendor's part.

    Another vendor's part is `generation.another_vendors`'s: not NVIDIA's, and no CUDA compute capability stated.
    """
    other = OTHER_VENDOR_ORIGINS.get(name) if another_vendors(hw.vendor, hw.compute_capability) else None
    return ORIGINS[name] if other is None else other.format(part=hw.accelerator)


#: The defaults a collective's time reads (a collective workload's note names only these).
COLLECTIVE_DEFAULTS = ("nvls", "latency", "pcie_p2p")


def defaults_used(hw: Hardware, collective: bool = False) -> list[str]:
    """The defaults `hw` was built with, in words with their origin (empty where the part states every figure)."""
    names = [*hw.unstated, *(["host_link"] if hw.host_link_default and hw.host_capacity > 0 else [])]
    return [_origin(n, hw) for n in names if n in ORIGINS and (not collective or n in COLLECTIVE_DEFAULTS)]


def defaults_note(hw: Hardware, collective: bool = False) -> list[str]:
    """An estimate's note naming the defaults it took for `hw`'s part (none where it took none).

    Of a collective workload, only those its time reads (`COLLECTIVE_DEFAULTS`).
    """
    used = defaults_used(hw, collective)
    if not used:
        return []
    return [f"not stated by {hw.accelerator} or its system, so taken from the model's defaults: {'; '.join(used)}"]


def latency_note(hw: Hardware) -> list[str]:
    """The note of an estimate whose scale-up step latency no source gives for the part's link (none otherwise).

    Every collective step inside the scale-up domain takes `scale_up.latency` (`perf.comm`, NCCL's tuning model; on
    an AMD part RCCL's own steps scaled by it / 1.9 us, `perf.comm.rccl`, and p2p and all-to-all take it as it is);
    where the part states it and marks it unconfirmed (the AMD parts' xGMI carries NVLink's 1.9 us, TPU v4's ICI an
    assumed 1 us), the figure is not the link's, and a job of small collectives (TP decode) rests on it: the note
    says so, and the estimate's `latency` elasticity says how much. The unconfirmed-figures note then leaves it out
    (`unconfirmed_note`'s `told`). A part that leaves it to the default (`model.accelerator.ScaleUp.latency`, NCCL's
    LL128 step over NVLink) is named by `defaults_note` (`ORIGINS['latency']`) instead.
    """
    if "scale_up_latency" not in hw.unstated:
        return []
    rccl = uses_rccl(hw.vendor, hw.compute_capability)
    takes = ("every collective step inside the scale-up domain takes it" if not rccl
             else "RCCL's own steps inside the domain (`perf.comm.rccl`) scale with it / 1.9 us, and point-to-point "
                  "sends and all-to-all take it")
    return [f"scale-up latency {hw.scale_up_latency * 1e6:.3g} us per collective step of {hw.accelerator} is not "
            "a figure of its own link: the part marks `scale_up.latency` unconfirmed (its catalog notes say where the "
            f"figure comes from); {takes} (elasticity: latency)"]


def kernel_cost_note(hw: Hardware, training: bool) -> list[str]:
    """The note of an estimate on an AMD part: the fixed per-kernel costs it is charged are Hopper's measurements.

    Every kernel a pass or a layer launches pays `kernels.KERNEL_OVERHEAD` (an H100 inside a CUDA graph) and every
    GEMM of a serving pass `kernels.GEMM_FILL` (DeepGEMM's FP8 GEMMs on an H800), on every part. A part whose
    vendor has a profile here but no CUDA compute capability (AMD's: Primus, vLLM on ROCm) is charged them with no
    other word (newuser74: an MI355X serving estimate's "overhead: 2.95 ms of fixed per-kernel costs" read as its
    own); no published measurement of either on AMD's GPUs (a HIP graph's kernel, CDNA's HBM) was found, so the
    note names them as assumptions. A part of a vendor without a profile is told so by `assumed_engine` (serving),
    whose words name these figures, and by `stack_origin` (training); an NVIDIA part's are its own generation's.
    """
    if not another_vendors(hw.vendor, hw.compute_capability) or unprofiled(hw):
        return []
    fill = "" if training else (f", and {GEMM_FILL * 1e6:g} us per GEMM's pipeline fill and drain (DeepGEMM's FP8 "
                                "GEMMs on an H800)")
    which = ("it", "`kernels.KERNEL_OVERHEAD`") if training else \
        ("either", "`kernels.KERNEL_OVERHEAD`, `kernels.GEMM_FILL`")
    return [f"fixed per-kernel costs are Hopper measurements, charged on {hw.accelerator} unchanged: "
            f"{KERNEL_OVERHEAD * 1e6:g} us per kernel launched (an H100 inside a CUDA graph, Hazy Research "
            f"2025-05-27){fill}; no published figure of {which[0]} on {hw.vendor}'s GPUs (a HIP graph's kernel, "
            f"their HBM) was found, so they are assumptions here ({which[1]})"]


def mla_core_note(arch: Arch, training: bool) -> list[str]:
    """The note of an estimate of a model with multi-head latent attention: its attention core's rate is assumed.

    A training step's and a prefill's core multiplies MLA's query and key at `Arch.qk_head_dim` (192 for
    DeepSeek-V3) and its value at `Arch.v_dim` (128), FlashAttention-3's and cuDNN's hdim 192 / hdim_v 128 kernels;
    it is timed at the flash rate `kernels.FLASH_EFFICIENCY` states, measured at head dimension 128 for query, key
    and value alike. No published rate at MLA's shape on Hopper or Blackwell was found (mla35), so the note says the
    rate is the nearest head dimension's. A decode step runs the absorbed form (`kernels.latent_decode_flop_bytes`).
    """
    if not arch.kv_lora_rank:
        return []
    return [f"multi-head latent attention: the attention core of {'a training step' if training else 'a prefill'} "
            f"multiplies query and key at {arch.qk_head_dim} values per head and the value at {arch.v_dim}, timed at "
            "the flash-attention rate measured at head dimension 128 (FlashAttention-3 on an H100); no published "
            "rate at this shape was found, so it is an assumption"]


def generation_note(hw: Hardware, training: bool) -> list[str]:
    """The note of an estimate on an NVIDIA part that states no compute capability: what the model took instead.

    The model keys NVIDIA's generation on the compute capability (`perf.hw.generation`); without it the part is
    modelled as not an NVIDIA GPU, which no NVIDIA GPU is, so the note names each assumption (those of training
    only for a training job) and what to state. `archgen check` flags the part too (CAT008).
    """
    if not generation_unstated(hw.vendor, hw.compute_capability):
        return []
    nvls = hw.in_network_reduction and hw.scale_up_size > 1
    return [f"{hw.accelerator} is an NVIDIA part (`vendor`) that states no `compute_capability`, on which the model "
            f"keys NVIDIA's generation, so it is modelled as no NVIDIA generation: {assumed_without(training, nvls)}; "
            "state `compute_capability` (NVIDIA's CUDA GPUs table), listed under `unconfirmed:` where NVIDIA has not "
            "published it"]


def nvls_note(hw: Hardware) -> list[str]:
    """The note of an estimate on a part that states NVLS the model does not run (below 9.0, or no capability).

    Left to `generation_note` on an NVIDIA part that states no compute capability, which says it already.
    """
    if (hw.scale_up_size <= 1 or not nvls_unused(hw.in_network_reduction, hw.compute_capability)
            or generation_unstated(hw.vendor, hw.compute_capability)):
        return []
    cc = f"compute capability {hw.compute_capability:.1f}" if hw.compute_capability else "no compute capability"
    # the domain's statement: a sweep's `accelerator` axis keeps the cluster's (`Hardware.with_chip`; newuser93)
    return [f"{hw.accelerator}'s scale-up domain is stated to reduce in the network (`scale_up.in_network_reduction: "
            "true`), which the model does not use: NCCL runs "
            f"NVLS from compute capability {NVLS_FROM:.1f} (Hopper; src/graph/tuning.cc nvlsEfficiency) and "
            f"{hw.accelerator} states {cc}, so its collectives are costed without in-switch reduction"]


def unprofiled(hw: Hardware) -> bool:
    """Whether `hw`'s vendor has no profile here: not an NVIDIA GPU (no CUDA compute capability), and not AMD's.

    The training stack profiles are NVIDIA's and AMD's Primus (`stack_profiles.VENDOR_STACKS`), and the serving
    model's kernels are those the CUDA and HIP engines launch; a Trainium, Gaudi or TPU part runs neither.
    """
    return another_vendors(hw.vendor, hw.compute_capability) and hw.vendor not in VENDOR_STACKS


def stack_origin(hw: Hardware, stack: str = "") -> str:
    """What the stack note adds on a part that is not an NVIDIA GPU (it states no CUDA compute capability).

    Nothing where the job runs its vendor's own profile (`stack_profiles.VENDOR_STACKS`: Primus on AMD), nor where
    the estimate states the NVIDIA stack as assumed (`assumed_stack`, its `assumed:` line): said once, there.
    """
    if not another_vendors(hw.vendor, hw.compute_capability) or stack in VENDOR_STACKS.values() \
            or assumed_stack(hw, stack):
        return ""
    return (f"; the profiles describe NVIDIA stacks on NVIDIA GPUs, and {hw.accelerator} states no CUDA compute "
            "capability, so its own stack's switches may differ")


#: What each NVIDIA stack profile is, in a few words (`model.switches` describes them with their sources).
NVIDIA_STACKS = {"megatron-lm-2021": "Megatron-LM as of 2021", "megatron-core-2024": "NeMo 24.x, Megatron-Core 0.9",
                 "nemo-2025": "NeMo 2 / Megatron-Bridge as of 2025"}


def assumed_stack(hw: Hardware, stack: str) -> str:
    """The assumption a training estimate makes on a part whose vendor has no stack profile of its own, else ''.

    The profiles describe NVIDIA's stacks on NVIDIA GPUs (and AMD's Primus on AMD's): a Trainium, Gaudi or TPU job
    runs on its vendor's own stack (Neuron, Habana's PyTorch bridge, XLA), whose switches, overlaps and memory no
    profile here gives. Its estimate takes an NVIDIA profile in their place; this says so, and the estimate carries it
    as an assumed input (`Estimate.assumed`: REQ005 names it on every figure the estimate gives, PERF005 reports it).
    """
    if not unprofiled(hw) or stack in VENDOR_STACKS.values():
        return ""
    return (f"training stack {stack}, NVIDIA's ({NVIDIA_STACKS.get(stack, stack)} on NVIDIA GPUs): no {hw.vendor} "
            f"stack profile, so {hw.accelerator}'s own stack's switches, overlaps and memory are not modelled")


def assumed_engine(hw: Hardware, inf: Inference) -> str:
    """The assumption a serving estimate makes on a part whose vendor has no engine profile here, else ''.

    The serving model runs the kernels a CUDA (or HIP) engine launches per pass (`serve.pass_costs`), each at the
    per-kernel cost and GEMM fill measured on Hopper (`kernels.KERNEL_OVERHEAD`, `kernels.GEMM_FILL`), and sizes the
    KV cache by its engine's rule at the fraction the job states or the engine's default (`engine_defaults.kv_rule_of`;
    review57: the note said 90 % of HBM whatever the job stated). A Trainium, Gaudi or TPU part serves with vLLM over
    its own backend (`model.engine.VENDOR_ENGINES` cites each: NxD Inference, the Gaudi plugin, the TPU backend), which
    compiles its graphs: its kernels, their costs and its memory are not modelled. The estimate carries this as an
    assumed input (`Estimate.assumed`), as `assumed_stack` for training: REQ005 names it, PERF005 reports it.
    The engine is the job's `engine`; left out, the vendor's (`model.engine.vendor_engine`), where it has one.
    """
    if not unprofiled(hw):
        return ""
    own = vendor_engine(hw.vendor)
    engine = inf.engine or (own[0] if own is not None else "")
    runs = f"serving engine {engine} as it runs" if engine else "serving engine not stated, run as a CUDA engine runs"
    rule, fraction, _ = kv_rule_of(inf, hw.vendor)   # a refused fraction is the estimate's error, not this note's
    return (f"{runs} on NVIDIA GPUs (its CUDA kernels per pass, {KERNEL_OVERHEAD * 1e6:g} "
            f"us per kernel and {GEMM_FILL * 1e6:g} us per GEMM's fill as measured on Hopper, the KV cache in "
            f"{rule.words(fraction, hw.memory_type)}): no {hw.vendor} engine profile, so {hw.accelerator}'s own "
            "serving backend's kernels, their costs and its memory are not modelled")


def fp4_format_note(hw: Hardware, precision: str | None) -> list[str]:
    """The note of an FP4 job on a part that states no CUDA compute capability: what of its FP4 is NVIDIA's.

    The model's FP4 is NVFP4 (`perf.hw.quant.FORMAT_BYTES['nvfp4']`: one E4M3 scale per 16 values, 0.5625 B per
    value; Transformer Engine's NVFP4 recipe in training, TensorRT-LLM's casts in serving). AMD's CDNA 4 computes OCP
    MXFP4 (one E8M0 scale per 32 values, 0.53125 B; `generation.fp4_format`), so there the weights, GEMM operands and
    serving casts are sized in MXFP4, while the casts' kernels (and training's quantisation) stay NVIDIA's. Another
    vendor's FP4 format is not known to the model, so its figures rest on NVFP4; the note says which.
    """
    if precision != "fp4" or not another_vendors(hw.vendor, hw.compute_capability):
        return []
    if hw.fp4 == "mxfp4":
        return [f"FP4 on {hw.accelerator} ({hw.vendor}, CDNA 4) is sized as OCP MXFP4 (one E8M0 scale per 32 values, "
                "0.53125 B per value: its weights, GEMM operands and serving casts); the casts' kernels and "
                "training's quantisation are costed as NVIDIA's NVFP4 recipes run them"]
    return [f"FP4 is modelled as NVIDIA's NVFP4 (one E4M3 scale per 16 values, 0.5625 B per value, and its casts); "
            f"{hw.accelerator} states no CUDA compute capability, so its own FP4 format (e.g. OCP MXFP4, one E8M0 "
            "scale per 32 values) is not modelled"]


def fp8_copies_note(hw: Hardware, precision: str | None, training: bool) -> list[str]:
    """The note of FP8 training on a part that states no CUDA compute capability: quantised as on Hopper.

    `perf.hw.quant` costs FP8 quantisation by Transformer Engine's rules, keyed on the compute capability: below 10
    (Hopper) each quantised tensor is written twice, once transposed, because Hopper's FP8 GEMMs take one operand
    layout; from 10 (Blackwell) once. A part with none (0) takes the Hopper rule; its own GEMM library's FP8 layouts
    are not stated in its spec, so the second copy is an assumption, and the note says so.
    """
    if precision != "fp8" or not training or not another_vendors(hw.vendor, hw.compute_capability):
        return []
    return [f"FP8 quantisation is costed by Transformer Engine's rules for an NVIDIA GPU below compute capability 10 "
            f"(Hopper: each quantised tensor written twice, once transposed, with its scaling and cast kernels); "
            f"{hw.accelerator} states no CUDA compute capability, and whether its FP8 GEMMs take both operand "
            "layouts (one copy, as on Blackwell) is not stated, so the second copy is an assumption"]


#: The switches `cuda_switches_note` names, with what the model costs a stated value as.
CUDA_SWITCHES = {"cuda_graphs": "Megatron-core's CUDA graphs", "fp8_recipe": "Transformer Engine's FP8 recipe"}


def cuda_switches_note(hw: Hardware, training: Training | None) -> list[str]:
    """The note of a job that states an NVIDIA stack's switch on a part with no CUDA compute capability.

    `cuda_graphs` is costed as Megatron-core's CUDA graphs (`perf.train.host`: one replay per captured scope and
    pass) and `fp8_recipe` as Transformer Engine's recipe on NVIDIA GPUs (`perf.hw.quant`); neither names the part's
    own stack, so a stated value is costed as it runs on NVIDIA's, and the note says so rather than accepting it
    silently (on a large dense job CUDA graphs may also change nothing: the host is hidden behind the GPU).
    """
    if training is None or not another_vendors(hw.vendor, hw.compute_capability):
        return []
    stated = [(f"{name} '{value}'", what) for name, what in CUDA_SWITCHES.items()
              if (value := getattr(training, name)) not in (None, "none")]
    if not stated:
        return []
    return [f"{' and '.join(s for s, _ in stated)} stated: costed as {' and '.join(w for _, w in stated)} on "
            f"NVIDIA GPUs; {hw.accelerator} states no CUDA compute capability, and its own stack's equivalent is not "
            "modelled"]


def library_note(hw: Hardware, gpus: int) -> list[str]:
    """The note of an estimate whose collectives a library the part's vendor does not ship is taken to run.

    The model times collectives by NCCL's tuning model (`perf.comm.nccl`, `perf.comm.algorithms`), an AMD part's
    inside its domain by RCCL's table (`perf.comm.rccl`), and groups inside a torus by rings and the bucket
    algorithm (`perf.comm.torus`). A part of another vendor (Intel's Gaudi, AWS's Trainium: no CUDA compute
    capability, not AMD) has its own library, which the model does not have, so its collectives outside a torus are
    NCCL's on the Simple protocol (`generation.WITHOUT`), over an Ethernet mesh or a torus' EFA as over NVLink and
    InfiniBand: the note says so (newuser50), unless every group stays inside a torus (a TPU pod).
    """
    if gpus <= 1 or not another_vendors(hw.vendor, hw.compute_capability) or uses_rccl(hw.vendor,
                                                                                      hw.compute_capability):
        return []
    if hw.torus and (not hw.scale_out_bandwidth or gpus <= hw.scale_up_size):
        return []
    where = ("across its torus domains (inside one, rings and the bucket algorithm, `perf.comm.torus`)" if hw.torus
             else "inside its scale-up domain and across domains")
    return [f"collectives of {hw.accelerator} ({hw.vendor or 'vendor not stated'}) are timed {where} as NVIDIA's "
            "NCCL runs them (its tuning model's ring and tree, Simple protocol only, its per-step latencies): "
            f"{hw.accelerator} states no CUDA compute capability, and its vendor's own collective library is not "
            "modelled"]
