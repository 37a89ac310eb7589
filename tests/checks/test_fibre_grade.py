"""A run past every fibre grade its part states is the part's error (CAT012), a length bin past the last a warning.

The grades are NVIDIA's for its 400/800G multimode optics ("OM3: L<=30m, OM4: 30m<L<=50m", "MPO/LC Cable
Requirements", https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements). On main
`fibre_cords._grade` ordered both as the last grade without a finding (review41's open item, cab29). The specs are
the case files' (tests/checks/cases/CAB009.yml: 32 access runs of 43.0 m across a 38 m row pitch). net30: the run
past every grade (a part stating OM3 only, 30 m, with a 50 m reach) is CAT012's error at the part, which no
shipped part raises; CAB009 keeps the length bin's warning and says nothing of those runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks.test_cases import CASES, _load, findings_of
from tests.conftest import run_specs


def _case(name: str) -> dict:
    return next(c for c in _load(CASES / "CAB009.yml")["cases"] if c["name"] == name)


def test_a_bin_past_the_last_grade_is_a_warning(tmp_path: Path) -> None:
    """The 60 m bin, past OM4's 50 m; the 43 m run fits."""
    (finding,) = findings_of("CAB009", _case("fail_bins_past_the_last_grade"), tmp_path)
    assert finding.severity == "warning"
    assert (finding.value.m_as("m"), finding.limit.m_as("m")) == pytest.approx((60.0, 50.0))


def test_runs_past_every_grade_are_the_parts_error(tmp_path: Path) -> None:
    """cab29's error case: the OM3-only part's 43 m runs give CAT012 at the part (50 m against 30 m), no CAB009."""
    case = _case("pass_cords_within_their_grades")
    part = next(c for c in _load(CASES / "CAT012.yml")["cases"] if c["name"] == "fail_reach_past_every_grade")
    text = case["files"]["specs.yaml"].replace("[dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]",
                                               "[mmf-800g-sr8-om3, smf-800g-dr8]")
    files = {"specs.yaml": text, "link.yaml": part["files"]["link.yaml"]}
    found = run_specs(tmp_path, files).findings
    assert not [f for f in found if f.id == "CAB009"]
    (finding,) = [f for f in found if f.id == "CAT012"]
    assert (finding.object, finding.severity) == ("part/mmf-800g-sr8-om3", "error")
    assert (finding.value.m_as("m"), finding.limit.m_as("m")) == pytest.approx((50.0, 30.0))
