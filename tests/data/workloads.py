"""Builder of the training workloads tests write by hand (`kind: Workload`), one key a line in the order given.

A finding's line in a built file is the one the hand-written file had: kind, id, name (where given), model,
cluster, accelerators, `training:` with `training`'s keys in order, `parallelism` last.
"""

from __future__ import annotations


def training_workload(id: str, model: str, accelerators: int, parallelism: str, *, name: str = "",
                      cluster: str = "gb200-nvl72-su", **training: object) -> str:
    """A workload training `model` on `accelerators` of `cluster`: `training`'s keys (YAML flow text; a bool as
    YAML's), then `parallelism` (flow text such as '{tp: 8, pp: 1}')."""
    lines = ["kind: Workload", f"id: {id}"] + ([f"name: {name}"] if name else []) + [
        f"model: {model}", f"cluster: {cluster}", f"accelerators: {accelerators}", "training:"]
    lines += [f"  {key}: {str(v).lower() if isinstance(v, bool) else v}" for key, v in training.items()]
    return "\n".join(lines + [f"  parallelism: {parallelism}"]) + "\n"


def qwen3_training(id: str, parallelism: str = "{ep: 8}", *, cluster: str = "gb200-nvl72-su", name: str = "",
                   seq_len: int = 4096, global_batch: int = 256, **training: object) -> str:
    """Qwen3-30B-A3B (the catalog's MoE model) trained in BF16 on 64 accelerators of `cluster` (`training_workload`):
    seq_len, global_batch and precision, then `training`'s keys, then `parallelism`."""
    return training_workload(id, "qwen3-30b-a3b", 64, parallelism, name=name, cluster=cluster, seq_len=seq_len,
                             global_batch=global_batch, precision="bf16", **training)
