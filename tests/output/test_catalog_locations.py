"""Where `archgen check` reports say a finding on a shipped catalog part is (SARIF, GitHub annotations, text).

The shipped catalog was shown as ``catalog/<kind>/<file>``, a path that exists neither in the repository (the files
are under specs/catalog/) nor for a user of the wheel, and SARIF set it under ``%SRCROOT%``. Now a checkout's catalog
under the working directory is named relative to it (a path that resolves), and the catalog installed with the
package under SARIF's ``ARCHGEN_CATALOG`` base, declared in ``originalUriBaseIds`` without a machine path.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from archgen import load, spec_files
from archgen.output import findings as report
from tests.conftest import REPO, write_tree

RACK = """kind: Rack
id: hot
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}
slots:
  - {at: 1, part: dgx-h100, count: 5}
power:
  feeds: {count: 1, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A}
cooling:
  air: {class: A2, delta_t: 20 K}
"""


@pytest.fixture(scope="module")
def on_catalog(tmp_path_factory):
    """The findings the pipeline located in the shipped catalog (dgx-h100's CAT001, its waiver lifted), and all the
    run's findings (the overloaded rack's own included); the rack is given by its absolute path, as CI runners do."""
    from archgen.pipeline import run
    root = write_tree(tmp_path_factory.mktemp("project") / "specs", {"r.yaml": RACK})
    found = run([root]).findings
    ours = [f for f in found
            if f.location and Path(f.location.file).resolve().is_relative_to(load.shipped_catalog().resolve())]
    assert ours, "no finding located in the shipped catalog"
    return [replace(f, waived="") for f in ours], found


def _locations(sarif_text: str) -> tuple[dict, list[dict]]:
    run = json.loads(sarif_text)["runs"][0]
    return run, [loc["physicalLocation"]["artifactLocation"] for r in run["results"] for loc in r.get("locations", [])]


def test_a_checkouts_catalog_is_named_relative_to_the_working_directory(on_catalog, monkeypatch):
    monkeypatch.chdir(REPO)
    findings, _ = on_catalog
    run, artifacts = _locations(report.sarif(findings))
    assert artifacts and {a["uriBaseId"] for a in artifacts} == {"%SRCROOT%"}
    assert {a["uri"] for a in artifacts} == {"specs/catalog/systems/dgx-h100.yaml"}  # not archgen/catalog, the link
    assert all((REPO / a["uri"]).is_file() for a in artifacts) and "originalUriBaseIds" not in run
    assert "file=specs/catalog/systems/dgx-h100.yaml,line=" in report.github(findings)
    assert report.text(findings).startswith("specs/catalog/systems/dgx-h100.yaml:")


def test_the_installed_catalog_is_named_under_its_own_sarif_base(on_catalog, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                   # the catalog is not under the working directory: the wheel's case
    findings, _ = on_catalog
    text = report.sarif(findings)
    run, artifacts = _locations(text)
    assert artifacts == [{"uri": "systems/dgx-h100.yaml", "uriBaseId": "ARCHGEN_CATALOG"}] * len(findings)
    assert (load.shipped_catalog() / artifacts[0]["uri"]).is_file()
    base = run["originalUriBaseIds"]["ARCHGEN_CATALOG"]
    assert "uri" not in base and "archgen/catalog" in base["description"]["text"]   # SARIF 3.14.14: no machine path
    annotations = report.github(findings).splitlines()
    assert annotations and all("file=" not in a.split("::")[1] for a in annotations)  # in no file of the repo
    assert all(a.split("::")[2].startswith("catalog/systems/dgx-h100.yaml:") for a in annotations)
    assert report.text(findings).startswith("catalog/systems/dgx-h100.yaml:")
    for out in (text, report.github(findings), report.text(findings), report.junit(findings)):
        assert str(REPO) not in out and str(tmp_path) not in out


def test_a_catalog_installed_in_a_virtual_environment_under_the_working_directory_is_the_packages(
        on_catalog, monkeypatch):
    """`pip install .` into ./.venv puts the wheel's catalog under the working directory; its path there
    (.venv/lib/python3.x/site-packages/...) is no file of the repository, so it is named as the package's."""
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(spec_files, "_PACKAGE", load.shipped_catalog().resolve().parent)  # the catalog inside the package
    findings, _ = on_catalog
    _, artifacts = _locations(report.sarif(findings))
    assert {a["uriBaseId"] for a in artifacts} == {"ARCHGEN_CATALOG"}


def test_the_users_files_keep_their_paths(on_catalog, monkeypatch):
    _, found = on_catalog
    users = [f for f in found if f.location and f.location.file.endswith("r.yaml") and not f.waived]
    assert users
    monkeypatch.chdir(Path(users[0].location.file).parents[1])    # the project (tests/output/test_paths_outside.py:
    _, artifacts = _locations(report.sarif(users))                   # a file outside it is a file:// URI)
    assert {(a["uriBaseId"], a["uri"]) for a in artifacts} == {("%SRCROOT%", "specs/r.yaml")}


def test_markdown_reports_say_a_location_is_the_shipped_catalogs(on_catalog, tmp_path, monkeypatch):
    """gap's and diff's Markdown name a shipped catalog file as `check`'s text does, and say it is archgen's: in a
    user's repository ``catalog/systems/...`` names no folder of it, or a ``catalog/`` of its own (newuser101)."""
    from archgen.output.diff_waivers import where
    from archgen.output.envelope import SHIPPED, located
    findings, found = on_catalog
    monkeypatch.chdir(tmp_path)                   # the wheel's case: the catalog is not under the working directory
    cell = where(findings[0])
    assert cell == located(findings[0].location) and cell.endswith(SHIPPED)
    assert cell.startswith("`" + report.text(findings[:1]).split(": ")[0] + "`")   # check's own text for it
    monkeypatch.chdir(REPO)                       # a checkout's catalog: a path of the repository, said plainly
    assert located(findings[0].location) == "`" + report.text(findings[:1]).split(": ")[0] + "`"
    users = [f for f in found if f.location and f.location.file.endswith("r.yaml")]
    assert users and not located(users[0].location).endswith(SHIPPED) and located(None) == ""
