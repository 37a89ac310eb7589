"""A requirement not met on failure rates measured on another accelerator says so, as a met one does.

The input that showed it (newuser103, a fleet reliability engineer): `mtti >= 24 h` on the 4,096-chip TPU v4 pod read
"❌ not met, 12.7 h" in `gap`, while the same requirement met read "met (on assumed inputs: ..., 'field-h100-2024'
failure rates (measured on h100-sxm5-80gb; tpu-v4 borrows them))". Its MTTI rests wholly on GPU fleets' rates, so a
verdict either way rests on them: not met now names the borrowed set (`model.requirements.on_assumed`) in `check`
(REQ001), `gap` and the compliance matrix, and stays not met. Only the borrowed set is named there: a not-met
verdict on an assumed price or an operator's class rate reads as before.
"""

from __future__ import annotations

import pytest

from archgen.compare.gap import judge_proposal
from archgen.model.reliability import BorrowedSet
from archgen.model.requirements import Status
from archgen.output.gap import markdown
from tests.conftest import shipped_edited

BORROWED = "'field-h100-2024' failure rates (measured on h100-sxm5-80gb; tpu-v4 borrows them)"
REQS = """kind: Requirements
id: buyer
requirements:
  - {id: REQ-MTTI-DAY, statement: A day between interruptions, subject: cluster/tpu-v4-pod, metric: mtti,
     target: ">= 24 h"}
  - {id: REQ-MTTI-HOUR, statement: An hour between interruptions, subject: cluster/tpu-v4-pod, metric: mtti,
     target: ">= 1 h"}
"""


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """`check` of the shipped specs with two MTTI targets on the TPU v4 pod (its rates: the default H100 set)."""
    root = tmp_path_factory.mktemp("borrowed-verdict")
    return root, shipped_edited(root, "clusters/tpu-v4-pod.yaml", "kind: Cluster\n", "kind: Cluster\n",
                                {"buyer.yaml": REQS})


def _outcome(run, rid):
    (j,) = [j for j in run.requirements if j.bound.req.id == rid]
    return j.outcome


def test_not_met_on_a_borrowed_set_names_it_and_stays_not_met(result):
    _, run = result
    day, hour = _outcome(run, "REQ-MTTI-DAY"), _outcome(run, "REQ-MTTI-HOUR")
    assert day.status is Status.NOT_MET and day.value is not None and day.value.m_as("h") < 24
    assert day.assumed == (BORROWED,), day.assumed          # the borrowed set only, not the assumed class rates
    assert day.shown == f"not met (on assumed inputs: {BORROWED})"        # the compliance matrix's cell
    assert BORROWED in hour.assumed and len(hour.assumed) > 1             # met: every assumed input, as before
    (req001,) = [f for f in run.findings if f.id == "REQ001" and f.requirement == "REQ-MTTI-DAY"]
    assert req001.severity == "error" and req001.message.endswith(f"; judged on assumed inputs: {BORROWED}")
    assert not [f for f in run.findings if f.id == "REQ005" and f.requirement == "REQ-MTTI-DAY"]


def test_an_input_is_a_borrowed_set_where_its_words_say_so(result):
    """The field `on_assumed` keeps a not-met verdict's input by (`BorrowedSet`) and the words it shows agree.

    Every input of every figure: a set measured on another accelerator ("... failure rates (measured on ...; tpu-v4
    borrows them)") is one, and nothing else is (an operator's class rate "borrows it", an assumed price).
    """
    _, run = result
    inputs = {x for by_metric in run.operations.assumed.values() for xs in by_metric.values() for x in xs}
    said = {x for x in inputs if x.startswith("'") and " failure rates (measured on " in x and x.endswith(" borrows them)")}
    assert BORROWED in said and len(inputs) > len(said)
    assert {x for x in inputs if isinstance(x, BorrowedSet)} == said
    assert all(isinstance(x, BorrowedSet) for x in said)   # not a plain str of the same words beside it


def test_gap_names_the_borrowed_set_on_the_not_met_row(result):
    root, run = result
    gap = judge_proposal(run, {"buyer"}, [root / "specs" / "clusters" / "tpu-v4-pod.yaml"])
    day = next(r for r in gap.rows if r.requirement.id == "REQ-MTTI-DAY")
    assert day.status is Status.NOT_MET and day.assumed == (BORROWED,)
    line = next(x for x in markdown(gap).splitlines() if "REQ-MTTI-DAY" in x)
    assert "❌ not met (on assumed inputs: 'field-h100-2024' failure rates" in line, line
