"""Checkpoints are written at the stated storage bandwidth unless a measured efficiency is given, and goodput says so.

The input that showed it (new-user trial, a fleet reliability engineer): a 1,152-GPU GB200 cluster's checkpoint write
and restore times were the checkpoint over the stated peak `storage:` bandwidth, with nothing said, where a
production NFS-backed B200 cluster saved at 16.0 % of its 250 GB/s peak and restored at 21.5 % of its 700 GB/s
(Lablup, arXiv 2605.09370v5, abstract): goodput was optimistic by an unstated amount. archgen applies no factor of
its own: `storage.write_efficiency` / `read_efficiency` are inputs with the storage's source, and without them the
goodput's notes and the inputs a requirement rests on (REQ005) say the stated bandwidth was used.

Here the shipped GB200 SU (100 GB/s write, 200 GB/s read, as stated) with and without Lablup's fractions.
"""

from __future__ import annotations

import pytest

from archgen.model.storage import AT_STATED_BANDWIDTH
from tests.conftest import shipped_edited

JOB = "workload/llama3-405b-pretrain-gb200"
CLUSTER = "cluster/gb200-nvl72-su"
STATED = "storage: {capacity: 2 PB, write_bandwidth: 100 GB/s, read_bandwidth: 200 GB/s, basis: assumed,"


def test_without_an_efficiency_the_stated_bandwidth_is_used_and_said(shipped):
    g = shipped.operations.goodput[JOB]
    assert AT_STATED_BANDWIDTH in g.notes
    assert g.write_time == pytest.approx(g.checkpoint_size / 100e9)
    assert "gb200-nvl72-su checkpoint storage (at its stated bandwidth)" in shipped.operations.assumed[JOB]["goodput"]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """The shipped specs with the SU's storage at Lablup's measured save and restore fractions."""
    return shipped_edited(tmp_path_factory.mktemp("efficiency"), "clusters/gb200-nvl72-su.yaml", STATED,
                          STATED.replace("basis:", "write_efficiency: 0.16, read_efficiency: 0.215, basis:"))


def test_a_stated_efficiency_sets_the_write_and_restore(measured, shipped):
    g, before = measured.operations.goodput[JOB], shipped.operations.goodput[JOB]
    assert g.write_time == pytest.approx(g.checkpoint_size / (100e9 * 0.16))
    assert g.restore_time == pytest.approx(g.checkpoint_size / (200e9 * 0.215))
    assert AT_STATED_BANDWIDTH not in g.notes and g.goodput < before.goodput
    assert "gb200-nvl72-su checkpoint storage" in measured.operations.assumed[JOB]["goodput"]   # still assumed
