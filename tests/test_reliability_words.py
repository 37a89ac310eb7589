"""Words of the reliability analysis a reader took for another thing (newuser103's "Not fixed", reltidy42).

A DGX B200's failure-domain row read "node (tray)"; REL009 gave an exact 0 as "goodput 0.0000"; the spec reference
offered '0 us', which it refuses, as the checkpoint interval's example; the metric list described `restart_time_high`
and `goodput_low` as ranging over the rate sets and the repair wait only, where a 65,536-GPU job's came from the
unsettled restore read.
"""

from __future__ import annotations

import pytest

from archgen import metrics
from archgen.checks.reliability import _goodput
from archgen.docs import _type_name
from archgen.model.reliability import Checkpointing


@pytest.mark.parametrize(("cluster", "word"), [("dgx-b200-superpod", "server"), ("gb200-nvl72-su", "tray"),
                                               ("tpu-v4-pod", "tray"), ("mi355x-th5", "server")])
def test_the_node_row_names_a_server_or_a_tray_by_what_the_node_is(shipped, cluster, word):
    """A tray is one of several nodes of a scale-up domain (an NVL72's) or wires part of a torus (a TPU v4's)."""
    (node,) = [d for d in shipped.operations.reliability[f"cluster/{cluster}"].domains if d.name == "node"]
    assert node.note.startswith(f"the node ({word}) is drained"), node.note


def test_an_exact_zero_goodput_reads_as_no_progress():
    assert _goodput(0.0, 4) == "0 (no progress)"          # before: "0.0000", as if rounded
    assert _goodput(8.7e-06, 4) == "8.7e-06" and _goodput(0.75712, 4) == "0.7571"


def test_the_checkpoint_intervals_example_is_one_it_takes():
    shown = _type_name(Checkpointing.model_fields["interval"].annotation)
    example = shown.split("`")[1]
    assert example != "0 us", shown
    assert Checkpointing.model_validate({"interval": example}).interval is not None
    with pytest.raises(ValueError, match="at least 1 s"):
        Checkpointing.model_validate({"interval": "0 us"})


@pytest.mark.parametrize("name", ["restart_time_high", "goodput_low", "spares_high"])
def test_a_jobs_reliability_range_names_the_restore_read(name):
    assert "`checkpoint_restore_read`" in metrics.find("workload", name).description
    assert "`checkpoint_restore_read`" not in metrics.find("workload", "mtti_low").description
    assert "`checkpoint_restore_read`" in metrics.find("cluster", "goodput_low").description   # its largest job's
