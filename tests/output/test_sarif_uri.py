"""SARIF artifact URIs are RFC 3986 URI references (SARIF 2.1.0, 3.10.2): a spec file name with a space or a `#`
was written as it stands, an invalid URI that code-scanning tools reject or cut at the `#`."""

import json

from archgen.checks import Finding
from archgen.errors import Location
from archgen.output.findings import github, sarif


def test_file_names_are_percent_encoded_in_sarif_uris():
    finding = Finding(id="PWR002", severity="error", object="rack/r", message="over", summary="", hint="",
                      location=Location("specs/racks/my rack #2.yaml", 3, 1))
    (result,) = json.loads(sarif([finding]))["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "specs/racks/my%20rack%20%232.yaml", "uriBaseId": "%SRCROOT%"}


def _rack_finding(file: str) -> Finding:
    return Finding(id="REQ001", severity="error", object="rack/r", message="over", summary="", hint="",
                   location=Location(file, 22, 74))


def test_a_job_below_the_repository_root_names_files_from_the_root(tmp_path, monkeypatch):
    """newuser10: a monorepo job with `working-directory: infra` running `archgen check specs` wrote
    `specs/r.yaml` under %SRCROOT% and `file=specs/r.yaml` in annotations, and `check ..` from `specs/racks`
    wrote `../r.yaml`: paths GitHub resolves from the repository's root, where no such file is."""
    (tmp_path / ".git").mkdir()                   # the root of a work tree, as actions/checkout leaves it
    (tmp_path / "infra" / "specs" / "racks").mkdir(parents=True)
    for written, cwd in (("specs/r.yaml", "infra"), ("../r.yaml", "infra/specs/racks")):
        monkeypatch.chdir(tmp_path / cwd)
        (result,) = json.loads(sarif([_rack_finding(written)]))["runs"][0]["results"]
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        expected = "infra/specs/r.yaml"
        assert artifact == {"uri": expected, "uriBaseId": "%SRCROOT%"}, cwd
        assert github([_rack_finding(written)]).startswith(f"::error file={expected},line=22,col=74,"), cwd


def test_outside_a_work_tree_or_at_its_root_files_keep_their_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                   # no .git above: named from the working directory, as before
    assert github([_rack_finding("specs/r.yaml")]).startswith("::error file=specs/r.yaml,")
    (tmp_path / ".git").mkdir()
    assert github([_rack_finding("specs/r.yaml")]).startswith("::error file=specs/r.yaml,")
    assert github([_rack_finding("../elsewhere/r.yaml")]).startswith("::error file=../elsewhere/r.yaml,")
