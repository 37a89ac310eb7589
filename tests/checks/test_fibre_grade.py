"""CAB009's severity: a run past every fibre grade its part states is an error, a length bin past the last a warning.

The grades are NVIDIA's for its 400/800G multimode optics ("OM3: L<=30m, OM4: 30m<L<=50m", "MPO/LC Cable
Requirements", https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements). On main
`fibre_cords._grade` ordered both as the last grade without a finding (review41's open item, cab29). The specs are
the case file's (tests/checks/cases/CAB009.yml): 32 access runs of 43.0 m across a 38 m row pitch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks.test_cases import CASES, _load, findings_of


def _case(name: str) -> dict:
    return next(c for c in _load(CASES / "CAB009.yml")["cases"] if c["name"] == name)


@pytest.mark.parametrize(("name", "severity", "value", "limit"), [
    ("fail_runs_past_every_grade", "error", 43.0, 30.0),     # the run, past OM3's 30 m (the only grade stated)
    ("fail_bins_past_the_last_grade", "warning", 60.0, 50.0),   # the 60 m bin, past OM4's 50 m; the run fits
])
def test_severity_follows_what_is_past_the_grade(tmp_path: Path, name: str, severity: str, value: float,
                                                 limit: float) -> None:
    (finding,) = findings_of("CAB009", _case(name), tmp_path)
    assert finding.severity == severity
    assert (finding.value.m_as("m"), finding.limit.m_as("m")) == pytest.approx((value, limit))
