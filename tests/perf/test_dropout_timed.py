"""Dropout is timed where its masks move, and says what it leaves untimed (newuser38).

Before: `dropout: true` on Megatron-Bridge's GB300 405B FP8-CS row (TP4 PP8 VP4, 256 GPUs) held 9.9 GB more of
masks but took 50.37 s a step either way, and `--explain` marked the switch used: the element-wise traffic charged a
hidden-dropout mask to every job, with dropout or without. Now each bias-dropout-add's 1-byte mask is charged only
under dropout (PyTorch writes none at p = 0: aten/src/ATen/native/Dropout.cpp `is_fused_kernel_acceptable`), a
materialised attention's mask traffic likewise, and a note says that the flash kernel's in-kernel dropout is not
timed. That row now reads 50.28 s without dropout and 50.37 s with it.
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train.layer import elementwise_bytes
from tests.conftest import SPECS
from tests.data.workloads import training_workload


def test_the_hidden_masks_are_two_bytes_per_token_and_hidden_element():
    a = Arch(hidden=4096, heads=32, head_dim=128, kv_heads=8, ffn=14336, layers=32, vocab=128256, gated=True, rope=True, qk_norm=False)
    T, tp = 8192.0, 4
    extra = elementwise_bytes(a, "bf16", T, tp, True, False, dropout=True) \
        - elementwise_bytes(a, "bf16", T, tp, True, False, dropout=False)
    # two bias-dropout-adds, each writing a 1-byte mask per element of its SP shard of h
    assert extra == pytest.approx(T * 2 * 1.0 * a.hidden / tp) == pytest.approx(T * 2.0 * K.DROPOUT_MASK_H * 4096 / 4)


def test_a_materialised_attention_moves_its_mask(h100):
    shape = dict(batch=1, q_len=4096, kv_len=4096, heads=8, head_dim=128, kernel="materialized")
    with_, without = (K.attention_times(h100, "bf16", dropout=d, **shape) for d in (True, False))
    scores = 8 * 4096 * 4096
    assert with_[0] - without[0] == pytest.approx(K.memory_time(h100, scores * 5.0))  # read 2, write 2, mask 1
    assert with_[1] - without[1] == pytest.approx(K.memory_time(h100, scores * 5.0))  # grad 2, mask 1, write 2
    flash = dict(shape, kernel="flash")
    assert K.attention_times(h100, "bf16", dropout=True, **flash) == K.attention_times(h100, "bf16", **flash)


def test_dropout_costs_time_and_says_what_it_leaves_out(cli, tmp_path):
    steps, notes = {}, {}
    for d in (True, False):
        (tmp_path / "w.yaml").write_text(training_workload(
            "w", "llama3-8b", 8, "{tp: 2, pp: 1, dp: 4, micro_batch: 1}", seq_len=8192, global_batch=64,
            precision="bf16", stack="nemo-2025", dropout=d), encoding="utf-8")
        r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        steps[d] = doc["metrics"]["step_time"]["value"]
        notes[d] = [n for n in doc["notes"] if n.startswith("dropout: ")]
    assert steps[True] > steps[False]  # equal on main
    assert not notes[False]
    assert "flash kernel" in notes[True][0] and "not timed" in notes[True][0]
