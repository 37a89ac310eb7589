"""Hostile input, round two (issue 23 items 1-3): links out of the spec tree, a planted cache, template code.

Each test starts from the input that showed the defect: a pull request adding `specs/racks/zz-leak.yaml ->
~/.git-credentials` got the first characters of the credentials quoted into SARIF, GitHub annotations, JSON and
text; a planted YAML-cache entry changed a rack's IT power with exit 0; `--templates DIR` ran arbitrary Python.
"""

from __future__ import annotations

import json
import shutil

import pytest

from archgen import cache
from archgen.load import LOADED, find_files, load_file
from archgen.render.env import TemplateError, environment, render_template, template_path
from tests.conftest import SECRET, SPECS

FORMATS = ("text", "json", "sarif", "junit", "github")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_link_out_of_the_spec_tree_is_refused_unread_in_every_format(leaky, cli, fmt):
    r = cli("check", "specs/", "--format", fmt)
    assert r.code == 2
    assert "octocat" not in r.out + r.err and "SECRET" not in r.out + r.err
    assert "zz-leak.yaml" in r.out + r.err


def test_the_refusal_names_the_link_and_what_was_expected(leaky, cli):
    r = cli("check", "specs/")
    assert "specs/racks/zz-leak.yaml: error: a symbolic link to a file outside the spec tree: expected a spec " \
           "file inside specs" in r.err


@pytest.mark.parametrize("target", ["missing.yaml", "zz-loop.yaml"], ids=["dangling", "loop"])
def test_a_link_to_no_file_is_refused_not_skipped(tmp_path, cli, monkeypatch, target):
    """The fuzz round: a dangling link or a link loop in the spec tree was skipped and `check` exited 0, as if the
    spec were not there."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "specs" / "racks" / "zz-loop.yaml").symlink_to(target)
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs/")
    assert r.code == 2 and "Traceback" not in r.err
    assert "specs/racks/zz-loop.yaml: error: a symbolic link to no file\n  hint: remove it" in r.err


@pytest.mark.parametrize("target", ["missing.yaml", "zz-loop.yaml"], ids=["dangling", "loop"])
def test_a_named_link_to_no_file_is_named_as_one(tmp_path, cli, monkeypatch, target):
    """A link named on the command line itself (`archgen check zz-loop.yaml`) read "no such file or directory" where
    a tree holding it reads "a symbolic link to no file"; with `gap`'s proposal roots (newuser85) a loop named so
    raised in `Path.resolve` (the fuzz round's traceback, thirtieth session). Both now say what it is, exit 2."""
    (tmp_path / "zz-loop.yaml").symlink_to(target)
    monkeypatch.chdir(tmp_path)
    r = cli("check", "zz-loop.yaml")
    assert r.code == 2 and "Traceback" not in r.err and "internal error" not in r.err
    assert "zz-loop.yaml: error: a symbolic link to no file\n  hint: remove it" in r.err


@pytest.mark.parametrize("there", [True, False], ids=["existing", "missing"])
def test_a_link_out_of_the_tree_reads_the_same_whether_its_target_exists(tmp_path, cli, monkeypatch, there):
    """newuser65: `-> /elsewhere/id_rsa` was "outside the spec tree" where the file existed and "a symbolic link to
    no file" where it did not, so a pull request's annotations told its author which files the runner holds."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    target = tmp_path / "runner" / "id_rsa"
    if there:
        target.parent.mkdir()
        target.write_text("SECRET", encoding="utf-8")
    (tmp_path / "specs" / "racks" / "zz-probe.yaml").symlink_to(target)
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs/", "--format", "sarif")
    assert r.code == 2 and "SECRET" not in r.out + r.err and "runner" not in r.out + r.err
    said = [x["message"]["text"] for x in json.loads(r.out)["runs"][0]["results"]
            if "zz-probe" in x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]]
    assert said == ["a symbolic link to a file outside the spec tree: expected a spec file inside specs\nhint: archgen "
                    "reads no file outside the tree it is given: copy the file into the tree"]


def test_a_link_named_on_the_command_line_is_refused_too(leaky, cli):
    r = cli("validate", "specs/racks/zz-leak.yaml")
    assert r.code == 2 and "SECRET" not in r.out + r.err and "outside the spec tree" in r.err


def test_links_inside_the_tree_still_load(tmp_path):
    (tmp_path / "specs" / "shared").mkdir(parents=True)
    (tmp_path / "specs" / "shared" / "a.yaml").write_text("kind: A\nid: a\n", encoding="utf-8")
    (tmp_path / "specs" / "b.yaml").symlink_to(tmp_path / "specs" / "shared" / "a.yaml")
    assert len(find_files([tmp_path / "specs"])) == 1   # the same file, loaded once


def test_a_file_that_is_not_a_mapping_is_never_quoted(tmp_path, cli, monkeypatch):
    """A credentials file copied into the tree under a .yaml name is one YAML scalar: say so, do not quote it."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "creds.yaml").write_text(SECRET + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for fmt in FORMATS:
        r = cli("check", "specs/", "--format", fmt)
        assert r.code == 2 and "octocat" not in r.out + r.err
    assert "specs/creds.yaml:1:1: error: a document must be a mapping, got a scalar" in cli("check", "specs/").err


def test_a_planted_cache_entry_under_the_right_key_is_not_trusted(tmp_path, monkeypatch):
    """The entry's name is the content hash anyone can compute; without this machine's MAC it is parsed again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    f = tmp_path / "a.yaml"
    f.write_text("kind: A\nid: a\npower: 40898 W\n", encoding="utf-8")
    assert load_file(f)[0].data["power"] == "40898 W"
    (entry,) = (tmp_path / "cache" / "archgen" / "yaml").glob("*.json")
    mac, _, body = entry.read_text(encoding="utf-8").partition("\n")
    planted = body.replace("40898 W", "32098 W")
    for text in (planted, mac + "\n" + planted, "0" * 64 + "\n" + planted):
        entry.write_text(text, encoding="utf-8")
        LOADED.clear()                                  # the cache directory is read, not this process's memo
        assert load_file(f)[0].data["power"] == "40898 W"
    entry.write_text(mac + "\n" + body, encoding="utf-8")
    LOADED.clear()
    assert load_file(f)[0].data["power"] == "40898 W"


def test_another_machines_sealed_entry_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-a"))
    cache.store("yaml", "k", {"x": 1})
    assert cache.load("yaml", "k") == {"x": 1}
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-b"))
    assert cache.load("yaml", "k") is None
    monkeypatch.setenv("XDG_CONFIG_HOME", "/proc/not-writable")
    assert cache.load("yaml", "k") is None                # no key: nothing is trusted, nothing is written
    cache.store("yaml", "k2", {"x": 2})
    assert not (tmp_path / "cache" / "archgen" / "yaml" / "k2.json").exists()


@pytest.mark.parametrize("payload", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ [].append(1) }}",
])
def test_templates_run_in_a_sandbox(tmp_path, payload):
    (tmp_path / "document.md.j2").write_text(f"# x\n\n{payload}\n", encoding="utf-8")
    with pytest.raises(TemplateError, match=r"document\.md\.j2:3: template error"):
        render_template(environment(tmp_path), "document.md.j2")


def test_a_template_directory_with_a_link_out_of_it_is_refused(tmp_path):
    (tmp_path / "secret").write_text(SECRET, encoding="utf-8")
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "leak").symlink_to(tmp_path / "secret")
    (tmp_path / "tpl" / "document.md.j2").write_text('{% include "leak" %}\n', encoding="utf-8")
    with pytest.raises(TemplateError, match="symbolic link out of the template directory"):
        environment(tmp_path / "tpl")
    with pytest.raises(TemplateError, match="symbolic link out of the template directory"):
        template_path("document.typ", tmp_path / "tpl")


def test_json_of_a_refused_link_is_still_one_strict_document(leaky, cli):
    r = cli("check", "specs/", "--format", "json")
    doc = json.loads(r.out)
    assert doc["summary"]["errors"] >= 1 and any(f["id"] == "SPC000" for f in doc["findings"])
