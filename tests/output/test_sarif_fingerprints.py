"""SARIF results: one fingerprint per finding, stable across reruns and moved lines; waived findings suppressed.

newuser32's trial (items 1 and 5): the partial fingerprint hashed file, check and object only, so the shipped NET025
pair on dgx-b200-superpod's compute fabric (`core.rack` given and `links.spine_core` given) shared one, as did
REQ001 on REQ-HALL-PWR-001 and REQ-HALL-MECH-001 of one rack when a pull request made the rack too heavy: a SARIF
consumer that matches results by fingerprint keeps one of each pair. And the 12 waived findings were dropped from
SARIF rather than emitted with a suppression (SARIF 2.1.0 3.27.23, 3.35), so a reviewer saw no waived SHALL there.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from archgen.output.findings import FINGERPRINT, sarif
from tests.conftest import REPO, run_specs, shipped_edited

#: A pull request that lowers the hall's rack weight limit under the GB200 NVL72 rack's: REQ001 on REQ-HALL-MECH-001
#: beside the waived REQ001 on REQ-HALL-PWR-001, both about rack/gb200-nvl72 in specs/requirements/ai-hall.yaml.
TIGHTER = ("requirements/ai-hall.yaml", 'target: "<= 1400 kg"', 'target: "<= 1000 kg"')
#: An unrelated edit above those requirements: two comment lines and a requirement every design meets.
ABOVE = ("requirements:\n  - id: REQ-HALL-PWR-001",
         "requirements:\n  # added above\n  # the others\n  - id: REQ-HALL-AAA-001\n    statement: Anything\n"
         "    subject: \"cluster/*\"\n    metric: accelerators\n    target: \">= 1\"\n  - id: REQ-HALL-PWR-001")
# (a count, not a power: a power target met on unconfirmed part figures adds a REQ005 of its own, newuser46)


def _results(root: Path, findings: list) -> list[dict]:
    with contextlib.chdir(root):
        return json.loads(sarif(findings))["runs"][0]["results"]


def _keyed(results: list[dict]) -> list[tuple[str, str, str]]:
    return sorted((r["ruleId"], r["message"]["text"], r["partialFingerprints"][FINGERPRINT]) for r in results)


def _line(r: dict) -> int:
    return r["locations"][0]["physicalLocation"]["region"]["startLine"]


def test_every_shipped_finding_has_a_fingerprint_of_its_own(shipped):
    results = _results(REPO, shipped.findings)
    prints = [r["partialFingerprints"][FINGERPRINT] for r in results]
    assert len(results) == len(shipped.findings)               # the waived ones too
    assert len(set(prints)) == len(prints)
    assert len({p for r, p in zip(results, prints, strict=True) if r["ruleId"] == "NET025"}) == 2


def test_waived_findings_are_suppressed_in_source_with_their_reason(shipped):
    results = _results(REPO, shipped.findings)
    waived = [(f, r) for f, r in zip(shipped.findings, results, strict=True) if f.waived]
    assert len(waived) == sum(1 for r in results if "suppressions" in r) == 25      # `check`'s summary: 25 waived (weight67: 14 rack weights and floor loads not provided, REQ002)
    for f, r in waived:
        assert r["suppressions"] == [{"kind": "inSource", "justification": f.waived.strip()}]
        assert r["ruleId"] == f.id and r["level"] in ("error", "warning", "note")


def test_two_requirements_of_one_rack_and_a_rerun_and_moved_lines(tmp_path):
    base = tmp_path / "base"
    first = _results(base, shipped_edited(base, *TIGHTER).findings)
    pair = [r for r in first if r["ruleId"] == "REQ001" and r["message"]["text"].startswith("rack/gb200-nvl72: ")
            and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "specs/requirements/ai-hall.yaml"]
    assert {r["message"]["text"].split()[1] for r in pair} == {"REQ-HALL-PWR-001", "REQ-HALL-MECH-001"}
    # the rack is the installed catalog's here (outside the working directory): beside the requirement, not first
    # (newuser107; README, a requirement's finding in SARIF)
    assert all(r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
               == {"uri": "racks/gb200-nvl72.yaml", "uriBaseId": "ARCHGEN_CATALOG"} for r in pair)
    assert len({r["partialFingerprints"][FINGERPRINT] for r in pair}) == 2
    assert len({r["partialFingerprints"][FINGERPRINT] for r in first}) == len(first)

    assert _results(base, run_specs(base, {}).findings) == first                  # a rerun: the same results

    moved = tmp_path / "moved"
    shipped_edited(moved, *TIGHTER)
    hall = moved / "specs" / TIGHTER[0]
    hall.write_text("# a comment\n# and another\n" + hall.read_text(encoding="utf-8").replace(*ABOVE), "utf-8")
    after = _results(moved, run_specs(moved, {}).findings)
    assert _keyed(after) == _keyed(first)
    lines = {r["message"]["text"]: _line(r) for r in first if "locations" in r}
    assert all(_line(r) == lines[r["message"]["text"]] + 9 for r in after
               if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "specs/requirements/ai-hall.yaml")
