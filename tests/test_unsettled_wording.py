"""The words of a requirement not provided because its figure rests on an input nobody gave (`unsettled_note`).

`unsettled_note` called any figure whose other end is 0 "an upper bound". That is true of an energy at maximum draw
(`analyse.job_energy.upper_bounds`: the true figure lies somewhere below it, no lower end known), and false of a range
with a real end at 0: the shipped GB200 SU's Llama 3.1 405B job has no idle node to stand in for a failed one, so its
spares run from 18 (every failure waits the rate set's repair time) to 0 (a failed node replaced at once;
`goodput_notes.REPAIR_ENDS`), and a requirement `spares <= 10` read "spares is at most 18, an upper bound". An upper
bound now has no other end (None) and a range of two known ends "lies between" them, 0 or not: "X or Y" said the
figure is one of two values, where the unknown input (the blocking time, the repair wait, the energy's share of a
cost) puts it anywhere between them.
"""

from __future__ import annotations

import pytest

from archgen.analyse.goodput_notes import BLOCKING_ENDS, REPAIR_ENDS, RESTORE_ENDS
from archgen.model.requirements import Requirement
from archgen.model.unsettled import also_key, joined, unsettled_note
from archgen.units import Q_


def _req(metric: str, target: str) -> Requirement:
    return Requirement(id="REQ-X-001", statement="s", metric=metric, target=target)


def test_a_range_with_a_real_end_at_zero_is_no_upper_bound():
    note = unsettled_note(_req("spares", "<= 10"), Q_(18, ""), {"spares": (Q_(0, ""), REPAIR_ENDS)})
    assert note is not None and "upper bound" not in note
    assert note.startswith("spares lies between 0 and 18 and the target <= 10 is met at one end only: 18 with every "
                           "hardware failure waiting the rate set's repair time, 0 with a failed node replaced at once;")


def test_a_third_inputs_end_is_joined_at_the_corner_on_its_side_and_none_is_dropped():
    """ends41: a job whose blocking time, repair wait and restore read all move its goodput (0.8) keeps each end."""
    value, g, a = {"goodput": Q_(0.8, "")}, "goodput", also_key("goodput")
    up, down = {g: (Q_(0.9, ""), BLOCKING_ENDS)}, {g: (Q_(0.7, ""), RESTORE_ENDS)}
    two = joined(joined({}, up, value), down, value)
    assert two == {g: up[g], a: down[g]}   # one each side: both kept as they are
    three = joined(two, {g: (Q_(0.85, ""), REPAIR_ENDS)}, value)   # above: the corner with the blocking time's
    assert three[a] == down[g] and three[g][0].m == pytest.approx(0.9 * 0.85 / 0.8)
    assert three[g][1].startswith(REPAIR_ENDS.split(",")[0]) and "no stop at all" in three[g][1]
    one_side = joined(joined({}, down, value), {g: (Q_(0.75, ""), REPAIR_ENDS)}, value)   # both below: a corner
    assert one_side[a][0].m == pytest.approx(0.7 * 0.75 / 0.8)
    flipped = joined(one_side, up, value)   # above, where none is: it takes the end the corner lies beyond
    assert flipped == {g: up[g], a: one_side[a]}
    req = _req(g, ">= 0.68")   # met at the value and at each end alone, not at the corner of the two below it
    assert unsettled_note(req, value[g], flipped) is not None and unsettled_note(req, value[g], up) is None


def test_a_range_reads_low_to_high_and_its_reason_names_each_end_by_number():
    # fin9: "spares lies between 18 and 0" (stored order: the figure, then the other end) read as a range the wrong
    # way round, and REPAIR_ENDS's "the first ..., the second ..." named the ends by that order
    for value, other in ((18, 0), (0, 18)):
        note = unsettled_note(_req("spares", "<= 10"), Q_(value, ""), {"spares": (Q_(other, ""), REPAIR_ENDS)})
        assert note is not None and note.startswith("spares lies between 0 and 18 and")
        assert f": {value} with every hardware failure waiting" in note and f", {other} with a failed node" in note
        assert "{" not in note and "the first" not in note
    blocking = unsettled_note(_req("goodput", ">= 0.9"), Q_(0.85, ""), {"goodput": (Q_(0.95, ""), BLOCKING_ENDS)})
    assert blocking is not None and blocking.startswith("goodput lies between 0.85 and 0.95 and the target >= 0.9 is "
                                                        "met at one end only: 0.85 with training stopped for the "
                                                        "whole checkpoint write, 0.95 with no stop at all;")


def test_an_energy_at_maximum_draw_is_an_upper_bound_judged_at_zero_too():
    # 16,070 MWh, not pint's "1.607×10⁴ MWh" (fmt36: `display.figure`, never x10^n in a message)
    why = "it is the IT energy at the cluster's maximum draw by definition"
    unsettled = {"job_it_energy": (None, why)}
    note = unsettled_note(_req("job_it_energy", "<= 1 MWh"), Q_(16070, "MWh"), unsettled)
    assert note == ("job_it_energy is at most 16,070 MWh, an upper bound, and the target <= 1 MWh is not met "
                    f"there: {why}")
    low = unsettled_note(_req("job_it_energy", ">= 1 MWh"), Q_(16070, "MWh"), unsettled)
    assert low is not None and "is met there, but the figure may lie below the target" in low
    assert unsettled_note(_req("job_it_energy", "<= 20000 MWh"), Q_(16070, "MWh"), unsettled) is None  # met at 0 too


def test_a_cost_with_its_energy_at_maximum_draw_lies_between_its_ends():
    # the DGX B200 SuperPOD's TCO per accelerator-hour of newuser64: 2.321 USD, 0.211 USD of it energy at maximum draw
    note = unsettled_note(_req("tco_per_accelerator_hour", "<= 2.2 USD"), Q_(2.321, "USD"),
                          {"tco_per_accelerator_hour": (Q_(2.110, "USD"), "its energy cost ...")})
    assert note == ("tco_per_accelerator_hour lies between 2.11 USD and 2.321 USD and the target <= 2.2 USD is met "
                    "at one end only: its energy cost ...")


def test_the_shipped_runs_hold_upper_bounds_as_none_and_real_zero_ends_as_zero(shipped):
    job = shipped.operations.unsettled["workload/llama3-405b-pretrain-gb200"]
    assert job["facility_energy_per_million_tokens"][0] is None
    assert job["spares"][0] == Q_(0, "") and job["spares"][1] == REPAIR_ENDS
    assert shipped.workloads["workload/llama3-405b-pretrain-gb200"].estimate.metrics["spares"].m == 18
    assert all(q is None for name, (q, _) in shipped.operations.unsettled["cluster/gb200-nvl72-su"].items()
               if name in ("facility_energy_per_year", "energy_cost_per_year"))


def test_a_corners_reason_names_each_input_once_in_plain_words():
    """tail42: the corner of two inputs' other ends read "...; at this end the value with every hardware failure
    waiting the rate set's repair time, this end with a failed node replaced at once; ... too". Two reasons that say
    what each end is now join end by end; one that does not (an energy's share of a cost, shown as it is in the
    performance section) takes the held input after it, in words."""
    from archgen.model.unsettled import both
    value = {"goodput": Q_(0.8, "")}
    corner = joined({"goodput": (Q_(0.9, ""), BLOCKING_ENDS)}, {"goodput": (Q_(0.85, ""), REPAIR_ENDS)}, value)
    q, why = corner[also_key("goodput")]   # both above the value: their corner
    assert q.m == pytest.approx(0.9 * 0.85 / 0.8)
    note = unsettled_note(_req("goodput", "<= 0.9"), value["goodput"], {"goodput": (q, why)})
    assert note == ("goodput lies between 0.8 and 0.9562 and the target <= 0.9 is met at one end only: 0.8 with every "
                    "hardware failure waiting the rate set's repair time and with training stopped for the whole "
                    "checkpoint write, 0.9562 with a failed node replaced at once and with no stop at all; "
                    + REPAIR_ENDS.split("; ", 1)[1] + "; " + BLOCKING_ENDS.split("; ", 1)[1])
    energy = "the figure lies between the value with no energy cost and the value"
    assert both(energy, REPAIR_ENDS) == (
        f"{energy}; the other end is also taken with a failed node replaced at once, the value with every hardware "
        f"failure waiting the rate set's repair time; {REPAIR_ENDS.split('; ', 1)[1]}")
    assert both(REPAIR_ENDS, energy).endswith(f"; the other end is also taken at the other end of this: {energy}")
    for why in (both(energy, REPAIR_ENDS), both(REPAIR_ENDS, RESTORE_ENDS)):
        assert "this end" not in why and " too" not in why
