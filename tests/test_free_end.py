"""Goodput's other end, one rule for `check` and sweeps (issue 19: one declaration per decision).

Where a job's blocking time is assumed (REL008: an asynchronous checkpoint and no host link) its range reaches the
same job with no blocking at all; where no hot spare stands in, the same job with no wait for a repair. `check`
(`analyse.goodput.goodput`: `Goodput.unblocked`, `Goodput.swapped`) and a sweep point (`perf.train.goodput._unblocked`,
both at once) took those ends in two copies of the rule; both now call `perf.train.goodput.free_end`.

The job is test_goodput16k's: 2,048 nodes of 8 at the Llama 3 set's rates (0.0029 hardware failures a node-day, 24 h
repair, tests/data/reliability/llama3-sources.yaml), every node used, so none spares; its goodput with no wait is
goodput x e^m, m the nodes in repair (the identity test_goodput16k checks).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from archgen.model.reliability import Checkpointing
from archgen.perf.train.goodput import Failures, free_end, job_goodput
from archgen.perf.train.point_goodput import _unblocked

F = Failures(per_accelerator_day=3.5e-4, site=(), per_node=8, nodes=2048, node_hw_per_day=0.0029,
             repair=86400.0, write_bandwidth=2e12, read_bandwidth=2e12, nic_per_node=1e11, host_link=5e10)
SIZE, GPUS, TARGET = 405e9 * 14, 16384, 0.9


def test_the_no_wait_end_is_goodput_times_e_to_the_nodes_in_repair_for_check_and_sweep_alike():
    cp = Checkpointing()
    g = job_goodput(F, cp, SIZE, GPUS, TARGET)
    assert g is not None and g.spares_available == 0 and g.wait > 0 and not g.blocking_assumed
    swapped = free_end(g, F, cp, SIZE, GPUS, TARGET, blocking=False)   # check's `Goodput.swapped`
    assert swapped is not None and swapped.wait == 0
    assert swapped.goodput == pytest.approx(g.goodput * math.exp(g.in_repair), rel=1e-9)
    assert free_end(g, F, cp, SIZE, GPUS, TARGET, repair=False) is None   # the blocking time is known
    assert _unblocked(F, cp, SIZE, GPUS, TARGET, SIZE) == swapped.goodput       # the sweep's, to the bit


def test_an_assumed_blocking_time_and_a_repair_wait_are_freed_each_alone_for_check_and_both_for_a_sweep():
    cp = Checkpointing(asynchronous=True)
    f = replace(F, host_link=0.0)   # no host link: the whole write is charged as blocking (REL008)
    g = job_goodput(f, cp, SIZE, GPUS, TARGET)
    assert g is not None and g.blocking_assumed and g.blocking > 0 and g.wait > 0
    unblocked = free_end(g, f, cp, SIZE, GPUS, TARGET, repair=False)   # check's `Goodput.unblocked`
    swapped = free_end(g, f, cp, SIZE, GPUS, TARGET, blocking=False)
    both = free_end(g, f, cp, SIZE, GPUS, TARGET)
    assert unblocked is not None and (unblocked.blocking, unblocked.wait) == (0.0, g.wait)
    assert swapped is not None and (swapped.blocking, swapped.wait) == (g.blocking, 0.0)
    assert both is not None and (both.blocking, both.wait) == (0.0, 0.0)
    assert g.goodput < min(unblocked.goodput, swapped.goodput) <= max(unblocked.goodput, swapped.goodput) \
        < both.goodput
    assert _unblocked(f, cp, SIZE, GPUS, TARGET, SIZE) == both.goodput
