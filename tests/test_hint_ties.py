"""A "did you mean" offers every known name tied for closest, not the first of them (newuser22's finding 1).

Before: a requirement on `bandwidth_per_accelerator` for the MI355X compute fabric got "did you mean
'bisection_per_accelerator'?" only. That is half the injection on a 1:1 fat tree (docs/metrics.md: "Bisection
bandwidth over the accelerators"), so a ">= 400 Gb/s" target written against it read not met by 50 % on a fabric of
one 400G NIC per GPU. `injection_per_accelerator` is as close (difflib ratio 0.72 both) and is offered too.
"""

from __future__ import annotations

import difflib

from tests.conftest import SPECS, run_cli

REQUIREMENT = """\
kind: Requirements
id: partner-requirements
requirements:
  - {id: REQ-BW-001, statement: Scale-out bandwidth per GPU, subject: cluster/mi355x-th5/fabric/compute,
     metric: bandwidth_per_accelerator, target: ">= 400 Gb/s"}
"""


def test_both_equally_close_metrics_are_offered(tmp_path) -> None:
    (tmp_path / "req.yaml").write_text(REQUIREMENT, encoding="utf-8")
    result = run_cli("check", str(SPECS), str(tmp_path))
    assert result.code != 0
    assert ("unknown metric 'bandwidth_per_accelerator'; did you mean 'bisection_per_accelerator' or "
            "'injection_per_accelerator'?") in result.err + result.out


def test_only_names_tied_for_the_best_ratio_are_offered() -> None:
    from archgen.errors import did_you_mean

    known = ["injection_per_accelerator", "bisection_per_accelerator", "injection_bandwidth"]
    ratio = {k: difflib.SequenceMatcher(None, "bandwidth_per_accelerator", k).ratio() for k in known}
    assert ratio["injection_per_accelerator"] == ratio["bisection_per_accelerator"] == 0.72
    assert ratio["injection_bandwidth"] < 0.72
    assert did_you_mean("bandwidth_per_accelerator", known) == \
        "did you mean 'bisection_per_accelerator' or 'injection_per_accelerator'?"
    assert did_you_mean("injection_per_acelerator", known) == "did you mean 'injection_per_accelerator'?"
