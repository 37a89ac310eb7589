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
