"""An unknown key that is a key of a model one level down is pointed there (newuser88).

A Megatron / NeMo user writes the layout where the validation-case files keep it, flat under `training:`
(`tp: 8`, `micro_batch: 1`); a Workload keeps it under `training.parallelism`. Before, `tp` got the 27 keys of
`training` listed, and `micro_batch` "did you mean 'global_batch'?", neither saying where the key goes.
"""

from __future__ import annotations

from archgen.errors import ArchgenError
from archgen.load import load_paths
from archgen.validate import validate

WORKLOAD = """\
kind: Workload
id: l405
model: llama3-405b
training:
  seq_len: 8192
  global_batch: 1536
  precision: fp8
  tp: 8
  micro_batch: 1
"""


def _problems(spec_tree) -> list:
    root = spec_tree({"w.yaml": WORKLOAD})
    try:
        validate(load_paths([root]))
    except ArchgenError as exc:
        return list(exc.problems)
    raise AssertionError("the workload validated")


def test_layout_key_under_training_is_pointed_to_parallelism(spec_tree):
    by_path = {p.path: p for p in _problems(spec_tree)}
    tp, mb = by_path["training.tp"], by_path["training.micro_batch"]
    assert tp.message == "unknown key 'tp'"
    assert tp.hint == ("'tp' is a key of 'training.parallelism', not of 'training': write it there, "
                       "e.g. parallelism: {tp: ...}")
    assert mb.hint.startswith("'micro_batch' is a key of 'training.parallelism'")   # not "did you mean 'global_batch'"


def test_a_key_of_no_nested_model_keeps_did_you_mean(spec_tree):
    root = spec_tree({"w.yaml": WORKLOAD.replace("  tp: 8\n  micro_batch: 1\n", "  seq_length: 8192\n")})
    try:
        validate(load_paths([root]))
    except ArchgenError as exc:
        (p,) = [p for p in exc.problems if p.path == "training.seq_length"]
        assert p.hint == "did you mean 'seq_len'?"
        return
    raise AssertionError("the workload validated")
