"""A spec outside the working directory, named by an absolute path (``check /tmp/x``), was shown as
``../../../tmp/x/r.yaml`` in text and JSON, and SARIF wrote that under ``%SRCROOT%``: a path that names no file of the
repository and says where the working directory is. `check`'s text and JSON show the absolute path now; SARIF an
absolute ``file://`` URI with no base (SARIF 2.1.0, 3.4.4). Paths under the working directory are named as before, and
documents keep ``../`` steps (tests/render/test_golden.py: no machine's absolute path in a document)."""

import json

from archgen.checks import Finding
from archgen.errors import Location
from archgen.output.findings import artifact_location, sarif
from tests.conftest import run_cli, write_tree
from tests.test_cli import OVERLOADED


def _artifacts(out: str) -> set[tuple[str, str | None]]:
    results = json.loads(out)["runs"][0]["results"]
    return {(a["uri"], a.get("uriBaseId")) for r in results for loc in r.get("locations", [])
            if (a := loc["physicalLocation"]["artifactLocation"]).get("uriBaseId") != "ARCHGEN_CATALOG"}


def test_a_spec_outside_the_working_directory_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    outside = write_tree(tmp_path / "elsewhere" / "my specs", {"r.yaml": OVERLOADED})
    (tmp_path / "work" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    text = run_cli("check", outside).out
    assert f"\n{outside.as_posix()}/r.yaml:" in "\n" + text and "../" not in text
    assert {f["file"] for f in json.loads(run_cli("check", outside, "--format", "json").out)["findings"]
            if "catalog" not in f["file"]} == {f"{outside.as_posix()}/r.yaml"}
    uri = (outside / "r.yaml").as_uri()
    assert "%20" in uri and _artifacts(run_cli("check", outside, "--format", "sarif").out) == {(uri, None)}
    # GitHub annotations, as documents, never name a machine's absolute path: `../` steps, as before
    assert "file=../elsewhere/my specs/r.yaml," in run_cli("check", outside, "--format", "github").out


def test_a_relative_path_is_shown_as_written_and_a_uri_only_under_the_root(tmp_path, monkeypatch):
    write_tree(tmp_path / "elsewhere", {"r.yaml": OVERLOADED})
    (tmp_path / "work" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    text = run_cli("check", "../elsewhere").out
    assert "\n../elsewhere/r.yaml:" in "\n" + text and str(tmp_path) not in text
    assert _artifacts(run_cli("check", "../elsewhere", "--format", "sarif").out) == {
        ((tmp_path / "elsewhere" / "r.yaml").as_uri(), None)}


def test_paths_under_the_root_keep_their_relative_uri(tmp_path, monkeypatch):
    specs = write_tree(tmp_path / "specs", {"r.yaml": OVERLOADED})
    monkeypatch.chdir(tmp_path)
    for given in (specs, "specs"):
        assert "\nspecs/r.yaml:" in "\n" + run_cli("check", given).out
        assert _artifacts(run_cli("check", given, "--format", "sarif").out) == {("specs/r.yaml", "%SRCROOT%")}


def test_artifact_locations(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert artifact_location("specs/a b.yaml") == {"uri": "specs/a%20b.yaml", "uriBaseId": "%SRCROOT%"}
    assert artifact_location("..r/x.yaml") == {"uri": "..r/x.yaml", "uriBaseId": "%SRCROOT%"}   # a folder's name
    assert artifact_location("specs/../../x.yaml") == {"uri": (tmp_path.parent / "x.yaml").as_uri()}
    assert artifact_location("/abs/x #1.yaml") == {"uri": "file:///abs/x%20%231.yaml"}
    finding = Finding(id="PWR002", severity="error", object="rack/r", message="over", summary="", hint="",
                      location=Location("/abs/r.yaml", 3, 1))
    (result,) = json.loads(sarif([finding]))["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///abs/r.yaml"}
