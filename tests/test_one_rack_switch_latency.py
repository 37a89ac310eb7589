"""A one-rack switched domain whose switch states a port-to-port `latency`: the estimate says why it is not added.

newuser83: the switch's `latency` was read only for a domain over several racks (the second hop); in one rack it went
unused without a word. A collective step in one rack crosses one switch, and the step latency the model takes is the
accelerator's `scale_up.latency` (NCCL's NVLink LL128 step for the MI355X, specs/catalog/accelerators/mi355x.yaml),
a step through the fabric end to end, its one switch crossing included: adding the switch's figure would count that
crossing twice, so it is not added and the note says so (nu83fix). The pod: `tests.test_scale_up_cages`' UALink
switches, one rack of 32 MI355X per domain, the switch at 250 ns (the UALink Consortium's target, webinar Q&A).
"""

from __future__ import annotations

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK
from tests.test_scale_up_fabric_latency import JOB

ONE_RACK = RACK.replace("racks: 2, size: 64", "racks: 1, size: 32").replace("switches: 4", "switches: 2") \
    .replace(", trunk_link: ual-dac", "")


def _notes(tmp_path, latency: str, gpus: int = 32) -> list[str]:
    parts = PARTS.split("---\nkind: Rack")[0]
    if latency:
        parts = parts.replace("power: {max: 3 kW}", f"latency: {latency}\npower: {{max: 3 kW}}", 1)
    run = run_specs(tmp_path, {"c.yaml": parts + ONE_RACK + JOB.replace("GPUS", str(gpus))})
    return [n for n in run.workloads["workload/w"].estimate.notes if "port-to-port `latency`" in n]


def test_a_stated_switch_latency_in_one_rack_is_said_not_added(tmp_path) -> None:
    (note,) = _notes(tmp_path, "250 ns")
    assert note.startswith("ual-switch states a port-to-port `latency` of 250 ns, not added: a collective step in "
                           "this one-rack domain crosses one switch, and mi355x's `scale_up.latency`, 1.9 us")
    assert "counting that crossing twice" in note


def test_a_switch_stating_none_has_no_such_note(tmp_path) -> None:
    assert _notes(tmp_path, "") == []
