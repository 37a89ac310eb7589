"""A requirement judges what its statement says (issue 22's honesty of inputs).

Two rules over every shipped requirement (specs/ and examples/):

- Where a statement names a metric by its registered title (`archgen.metrics.REGISTRY`, e.g. "Input power",
  "Heat to liquid", "Floor load"), the requirement's own metric is among those it names: a statement reading
  "Rack input power" cannot judge `it_power`. The titles are the registry's, not a word list of this test; a
  statement naming no title (e.g. "Model FLOPs utilisation" for `mfu`) is not judged by this rule.
- A rack requirement on `input_power` of a rack whose `power.external` parts are fed from outside its feeds says
  so: the input power counts them and the feeds do not carry them (GB200 NVL72: 135.7 kW judged, 135.5 kW on the
  feeds), so "(read as at the feeds)" named a quantity other than the one judged.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.metrics import REGISTRY
from archgen.units import Q_
from tests.shipped_yaml import shipped_documents

REPO = Path(__file__).resolve().parents[1]


def _shipped_requirements() -> list[tuple[str, dict]]:
    """(file, requirement) of every requirement written in specs/ and examples/."""
    out = []
    for path, _, doc in sorted(shipped_documents(), key=lambda d: d[0]):   # examples/ first, as sorted paths
        if isinstance(doc, dict):
            out += [(str(path.relative_to(REPO)), r) for r in doc.get("requirements") or []
                    if isinstance(r, dict) and "metric" in r]
    return out


def _names(title: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(title.lower())}(?![\w-])", text.lower()) is not None


def _own_titles(metric: str) -> set[str]:
    """The titles of the registry entries `metric` can be (a placeholder such as `<tier>` matches one segment)."""
    out = set()
    for m in REGISTRY:
        pattern = "".join(r"[^.]+" if part.startswith("<") else re.escape(part)
                          for part in re.split(r"(<[^>]+>)", m.name))
        if re.fullmatch(pattern, metric):
            out.add(m.title.lower())
    return out


REQUIREMENTS = _shipped_requirements()
TITLES = {m.title.lower() for m in REGISTRY}


def test_there_are_shipped_requirements_to_judge():
    assert len(REQUIREMENTS) >= 25   # 29 when written: racks, clusters, the hall, workloads, the sweep, the example


@pytest.mark.parametrize(("where", "req"), REQUIREMENTS, ids=[f"{r['id']}@{w}" for w, r in REQUIREMENTS])
def test_a_statement_naming_a_metric_judges_that_metric(where, req):
    own = _own_titles(req["metric"])
    assert own, f"{where}: {req['id']} judges {req['metric']!r}, which the registry does not declare"
    named = {t for t in TITLES if _names(t, req["statement"])}
    # a title inside a longer one the statement names ("links" in "global links") is that longer name, not two
    named = {t for t in named if not any(t != u and _names(t, u) for u in named)}
    assert not named or named & own or any(_names(t, o) for t in named for o in own), (
        f"{where}: {req['id']} says {req['statement']!r} (naming {sorted(named)}) but judges {req['metric']!r} "
        f"({sorted(own)})")


def test_the_input_power_of_a_rack_with_parts_fed_from_outside_is_not_worded_as_at_the_feeds(shipped, example):
    """GB200 NVL72: the judged input power (135.7 kW) is more than its feeds carry (135.5 kW); the text says why."""
    checked = 0
    for run in (shipped, example):
        for path, a in run.racks.items():
            if not a.power.external_parts:
                continue
            feeds, judged = a.power.feeds.load.m_as("kW"), a.metrics["input_power"].m_as("kW")
            assert judged == pytest.approx(feeds + a.power.external.m_as("kW"))
            assert judged > feeds
            for req in a.rack.spec.requirements:
                if req.metric != "input_power":
                    continue
                checked += 1
                assert "at the feeds" not in req.statement or "outside" in req.statement, (path, req.statement)
                assert "outside the feeds" in req.statement, (path, req.statement)
    gb200 = shipped.racks["rack/gb200-nvl72"]
    # 131.61 kW rack load less the two SN2201 (2 x 98 W, sn2201.yaml) over the shelves' 0.97, plus the SN2201 again
    busbar = Q_(131.61 - 0.196, "kW")
    assert gb200.power.feeds.load.m_as("kW") == pytest.approx((busbar / 0.97).m_as("kW"), abs=0.01)   # 135.48 kW
    assert gb200.metrics["input_power"].m_as("kW") == pytest.approx((busbar / 0.97).m_as("kW") + 0.196, abs=0.01)
    assert checked == 2   # REQ-PWR-001 (gb200-nvl72) and REQ-PWR-030 (gb300-nvl72)
