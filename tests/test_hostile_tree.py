"""A hostile pull request and a CI pointed at the wrong path (newuser10 items 9, 7 and 2): each test starts from the
reported input and fails without the fix.

- The console script's snapshot key read the bytes of a link that leaves the spec tree (`specs/racks/zz-leak.yaml ->
  ~/.git-credentials`) before `load` refused it "unread".
- A link to a folder outside the tree (`specs/up -> ../../other`) was skipped silently: exit 0, its specs unseen.
- An empty spec directory, or one with only `*.YAML` or hidden files, passed with exit 0.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from archgen import snapshot
from tests.conftest import SPECS


@pytest.mark.parametrize("named", ["specs", "specs/racks/zz-leak.yaml"], ids=["in-tree", "named"])
def test_the_snapshot_key_reads_no_file_outside_the_tree(leaky, monkeypatch, named):
    opened: list[str] = []
    real_open = os.open

    def spy(path, *args, **kwargs):
        opened.append(os.path.realpath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    assert snapshot._key([named]) is None          # refused, as `load` refuses it: `validate` says where
    assert str(leaky / "home" / ".git-credentials") not in opened   # before: opened and read by the key


@pytest.fixture
def linked_out(tmp_path, monkeypatch):
    """`specs/up -> ../other`: a link to a folder outside the tree that holds a failing rack."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "bad.yaml").write_text("kind: Rack\nid: bad\n", encoding="utf-8")
    (tmp_path / "specs" / "up").symlink_to("../other")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_link_to_a_folder_outside_the_tree_is_refused_located(linked_out, cli):
    r = cli("check", "specs/")                     # before: exit 0, the folder skipped silently
    assert r.code == 2 and "Traceback" not in r.err
    assert ("specs/up: error: a symbolic link to a folder outside the spec tree: expected a folder inside specs\n"
            "  hint: archgen reads no file outside the tree it is given: copy the folder into the tree") in r.err


def test_a_link_to_a_folder_outside_the_tree_is_spc000_in_json(linked_out, cli):
    r = cli("check", "specs/", "--format", "json")
    (found,) = json.loads(r.out)["findings"]
    assert (found["id"], found["file"]) == ("SPC000", "specs/up")


def test_a_link_to_a_folder_inside_the_tree_adds_nothing(tmp_path, cli, monkeypatch):
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "specs" / "again").symlink_to("racks")
    monkeypatch.chdir(tmp_path)
    assert cli("validate", "specs/").code == 0


@pytest.mark.parametrize(("files", "named"), [
    ({}, ""),
    ({".r.yaml": "kind: Rack\n", ".github/ci.yml": "on: push\n", "README.md": "x"},
     "; found, not read: .github/ci.yml (hidden), .r.yaml (hidden)"),
], ids=["empty", "hidden"])
def test_a_directory_without_a_spec_file_is_an_error_that_says_what_it_holds(tmp_path, cli, monkeypatch, files,
                                                                            named):
    for name, text in files.items():
        (tmp_path / "specs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "specs" / name).write_text(text, encoding="utf-8")
    (tmp_path / "specs").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs")                      # before: "0 error(s)", exit 0
    assert r.code == 2 and "Traceback" not in r.err
    assert (f"specs: error: no spec file in this directory{named}: expected at least one *.yaml or *.yml file "
            "(hidden files and folders are not read)\n  hint: name the directory that holds the specs, or rename "
            "the files to *.yaml") in r.err


@pytest.mark.parametrize("alone", [False, True], ids=["beside-specs", "alone"])
def test_a_spec_file_with_an_upper_case_suffix_is_refused_located(tmp_path, cli, monkeypatch, alone):
    """trialfix item 1: `specs/racks/b200.YAML` beside the real racks was skipped silently (exit 0, its rack unseen);
    alone in a directory it was named only inside the "no spec file" error."""
    if alone:
        (tmp_path / "specs" / "racks").mkdir(parents=True)
    else:
        shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "specs" / "racks" / "b200.YAML").write_text("kind: Rack\nid: b200\n", encoding="utf-8")
    (tmp_path / "specs" / "racks" / "r.Yml").write_text("kind: Rack\nid: r\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs")                      # before: exit 0 beside the racks, the two files unseen
    assert r.code == 2 and "Traceback" not in r.err
    for name, right in (("b200.YAML", "b200.yaml"), ("r.Yml", "r.yml")):
        suffix = name.split(".")[1]
        assert (f"specs/racks/{name}: error: the suffix '.{suffix}' is not .yaml or .yml as written, so this file "
                "is not read: expected a spec file named *.yaml or *.yml (lower case)\n"
                f"  hint: rename it to {right} to have it read, or move it out of the tree") in r.err
    assert "no spec file in this directory" not in r.err


@pytest.mark.parametrize(("body", "message"), [
    ("ok {{ 1/0 }}\n", "tpl/document.md.j2:1: template error: ZeroDivisionError: division by zero"),
    ("ok\n{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}\n", "tpl/document.md.j2:2: template error: RecursionError"),
], ids=["division", "recursion"])
def test_a_runtime_error_in_a_template_is_a_located_render_error(tmp_path, cli, monkeypatch, body, message):
    """newuser10 item 1: a `--templates` template `ok {{ 1/0 }}` gave a traceback and "internal error"."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "document.md.j2").write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = cli("render", "specs", "--out", "out", "--formats", "md", "--templates", "tpl")
    assert r.code == 2 and "Traceback" not in r.err and "internal error" not in r.err
    assert r.err.startswith(f"error: {message}")


def test_a_file_level_problem_has_no_empty_location_in_any_format(leaky, cli):
    """newuser10 item 5: SARIF text started ": a symbolic link…", GitHub wrote `line=0,col=0,title=SPC000::: a
    symbolic…`, JSON gave line and column 0, JUnit "…zz-leak.yaml: error: : a symbolic…"."""
    said = "a symbolic link to a file outside the spec tree: expected a spec file inside specs"
    sarif = json.loads(cli("check", "specs/", "--format", "sarif").out)
    (result,) = sarif["runs"][0]["results"]
    hint = "hint: archgen reads no file outside the tree it is given: copy the file into the tree"  # newuser57
    assert result["message"]["text"] == f"{said}\n{hint}"
    github = cli("check", "specs/", "--format", "github").out
    assert github == f"::error file=specs/racks/zz-leak.yaml,title=SPC000::{said}%0A{hint}\n"
    (found,) = json.loads(cli("check", "specs/", "--format", "json").out)["findings"]
    assert (found["file"], found["line"], found["column"], found["message"]) == ("specs/racks/zz-leak.yaml", None,
                                                                                 None, said)
    assert f">specs/racks/zz-leak.yaml: error: {said}\n{hint}</failure>" in cli("check", "specs/", "--format", "junit").out


def test_a_spec_problem_names_its_field_once(tmp_path, cli, monkeypatch):
    """newuser10 item 5: a duplicate id read `id: id: duplicate id` in GitHub, SARIF and JUnit."""
    rack = sorted((SPECS / "racks").glob("*.yaml"))[0]
    (tmp_path / "specs").mkdir()
    for name in ("a.yaml", "b.yaml"):
        shutil.copy(rack, tmp_path / "specs" / name)
    monkeypatch.chdir(tmp_path)
    for fmt in ("github", "sarif", "junit"):
        out = cli("check", "specs/", "--format", fmt).out
        assert "id: duplicate id '" in out and "id: id:" not in out, fmt
