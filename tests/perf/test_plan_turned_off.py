"""The plan search names the switches its best plan turns off that the stack profile turns on (newuser88).

Llama 3.1 405B on the shipped GB200 NVL72 SU (nemo-2025, whose profile turns the TP overlap on with tp > 1 and
sequence parallelism: Megatron-Bridge recipes/llama/h100/llama3.py, scripts/performance/utils/overrides.py): the
best plan runs tp 2 without it. Before, the output said only "turned on: sequence_parallel, ..., zero 3", so a reader
took the plan to keep the profile's TP overlap, and a NeMo run of the plan would have kept `tp_comm_overlap` on.
"""

from __future__ import annotations

import json


def _plan(cli, workload: str) -> tuple[str, dict]:
    text = cli("estimate", "--workload", workload, "--search-plan")
    data = cli("estimate", "--workload", workload, "--search-plan", "--format", "json")
    assert text.code == data.code == 0, text.err
    return text.out.partition("\nPlan search (--search-plan")[2], json.loads(data.out)["plan"]


def test_a_switch_the_profile_turns_on_and_the_plan_turns_off_is_named(cli):
    section, plan = _plan(cli, "llama3-405b-pretrain-gb200")
    assert plan["layout"]["tp"] > 1 and plan["switches"]["overlap_tp_comm"] is False
    assert plan["turned_off"] == ["overlap_tp_comm"]
    assert "\n  turned off (on in the nemo-2025 profile): overlap_tp_comm\n" in section


def test_a_switch_the_layout_makes_moot_is_not_named(cli):
    section, plan = _plan(cli, "llama3-70b-pretrain-b200")
    assert plan["layout"]["tp"] == 1 and plan["switches"]["sequence_parallel"] is False   # moot at tp 1
    assert plan["turned_off"] == []
    assert "\n  turned off (on in the nemo-2025 profile): nothing\n" in section
