"""A requirement's verdict on a figure lands in SARIF on the file that states the object judged (newuser107, item 9).

A buyer's requirements file and a vendor's cluster file: a pull request that added a scalable unit to the cluster
changed its figures, yet the REQ001 it failed was located on the requirements file alone, so code scanning annotated a
file the pull request did not touch. A verdict on the subject's figure (REQ001 not met, with its value) now has the
subject's place first and the requirement's as a related location; a finding with no figure (REQ002: not provided,
a glob that matches nothing) stays on the requirement, the subject beside where there is one. The fingerprint is
still the requirement's (`output.findings.fingerprints`), so an alert keeps its identity.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from archgen.units import Q_
from tests.conftest import run_cli
from tests.test_gap import PROPOSAL

REQUIREMENTS = """\
kind: Requirements
id: buyer
requirements:
  - {id: REQ-CL, statement: Size, subject: cluster/acme-pod, metric: accelerators, target: ">= 100000"}
  - {id: REQ-BIS, statement: Bisection, subject: cluster/acme-pod/fabric/compute, metric: bisection_per_accelerator,
     target: ">= 100 Tb/s"}
  - {id: REQ-NONE, statement: Storage, subject: "cluster/*/fabric/storage", metric: bisection_per_accelerator,
     target: ">= 1 Gb/s"}
"""


def _places(result: dict) -> list[tuple[str, int]]:
    return [(p["physicalLocation"]["artifactLocation"]["uri"], p["physicalLocation"]["region"]["startLine"])
            for p in (*result.get("locations", ()), *result.get("relatedLocations", ()))]


def test_a_verdict_on_a_clusters_figure_lands_on_the_cluster_file(tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(PROPOSAL, tmp_path / "proposal")
    (tmp_path / "buyer.yaml").write_text(REQUIREMENTS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = run_cli("check", "proposal", "buyer.yaml", "--format", "sarif")
    results = {(x["ruleId"], x["message"]["text"].split(": ")[1].split(" ")[0]): x
               for x in json.loads(r.out)["runs"][0]["results"] if x["ruleId"].startswith("REQ")}
    cluster = "proposal/clusters/acme-pod.yaml"
    lines = (tmp_path / cluster).read_text(encoding="utf-8").splitlines()
    size = _places(results[("REQ001", "REQ-CL")])
    assert size == [(cluster, 3), ("buyer.yaml", 4)] and lines[2].startswith("kind: Cluster")
    bisection = _places(results[("REQ001", "REQ-BIS")])   # the fabric's entry in its cluster
    assert bisection[0][0] == cluster and lines[bisection[0][1] - 1] == "  - id: compute"
    assert bisection[1] == ("buyer.yaml", 6)
    assert _places(results[("REQ002", "REQ-NONE")]) == [("buyer.yaml", 7)]   # no figure, no object: the requirement


def test_an_object_of_the_installed_catalog_stays_beside_the_requirement(tmp_path: Path, monkeypatch) -> None:
    """Run outside the checkout, a catalog rack is no file of the user's repository (`spec_files.packaged`): its
    verdict stays on the user's requirement, which code scanning can annotate, the rack beside."""
    from archgen.checks import Finding
    from archgen.errors import Location
    from archgen.output.findings import sarif
    from archgen.spec_files import shipped_catalog

    monkeypatch.chdir(tmp_path)
    rack = Location(str(shipped_catalog() / "racks" / "gb200-nvl72.yaml"), 7, 1)
    verdict = Finding(id="REQ001", severity="error", object="rack/gb200-nvl72", message="over", summary="", hint="",
                      location=Location(str(tmp_path / "buyer.yaml"), 4, 5), value=Q_(140, "kW"), judged=rack)
    (result,) = json.loads(sarif([verdict]))["runs"][0]["results"]
    assert _places(result) == [("buyer.yaml", 4), ("racks/gb200-nvl72.yaml", 7)]
    assert result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "ARCHGEN_CATALOG"
