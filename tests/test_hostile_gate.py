"""archgen as a pull-request gate over untrusted specs (newuser77's audit): each test starts from the input that
showed the defect, and fails without the fix.

- A pull request committing ``specs -> ../outside`` (the spec folder itself a link, or a folder above a file named)
  had the README's `archgen check specs/ --format sarif` read every YAML file there and quote its keys and values
  (``unknown key 'token'``, ``got 'ghp_...'``) into SARIF, annotations and text: the link rule judged links under
  the folder named, never the folder itself.
- `archgen estimate --cases FILE` read its file without `find_files`, so ``cases.yaml -> ~/.git-credentials`` (or
  any file) was read and its values quoted (``schema: expected 'archgen-validation/1', got '...'``).
- `--templates DIR` refused links inside the folder but read one that is itself a link out of the checkout.
- A requirement's statement holding U+202E (RIGHT-TO-LEFT OVERRIDE) showed reordered in the terminal, SARIF, the
  diff comment and the documents ("Trojan Source", CVE-2021-42574).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import SPECS, git

#: What the file outside the checkout holds: neither its keys nor its values may reach any output.
OUTSIDE = "kind: Rack\nid: hosts\ntoken: ghp_SECRET0123456789\n"
LEAD_OUT = "a symbolic link leading out of the git work tree (the working directory)"


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git work tree `repo` with the shipped racks under `real/`, beside `outside/` holding a YAML file; cwd repo."""
    repo = tmp_path / "repo"
    shutil.copytree(SPECS / "racks", repo / "real" / "racks")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "hosts.yml").write_text(OUTSIDE, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    monkeypatch.chdir(repo)
    return repo


def _quiet(r) -> bool:
    """Nothing of the file outside reached the output."""
    return "SECRET" not in r.out + r.err and "'token'" not in r.out + r.err and "hosts.yml:" not in r.out + r.err


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_spec_folder_that_is_a_link_out_of_the_checkout_is_refused_unread(checkout, cli, fmt):
    (checkout / "specs").symlink_to("../outside")
    r = cli("check", "specs/", "--format", fmt)
    assert r.code == 2 and _quiet(r)
    assert LEAD_OUT in r.out + r.err


def test_the_refusal_names_the_link_and_what_was_expected(checkout, cli):
    (checkout / "specs").symlink_to("../outside")
    r = cli("check", "specs")
    assert r.err == (f"specs: error: {LEAD_OUT}: expected a spec folder or file inside it\n  hint: archgen reads "
                     "no file through a link that leaves the repository: name the folder it points at, or copy the "
                     "files into the tree\n")


@pytest.mark.parametrize("args", [("check", "specs/hosts.yml"), ("validate", "specs/x/../hosts.yml"),
                                  ("gap", "real/racks", "--against", "specs")])
def test_a_file_or_folder_under_a_folder_linked_out_is_refused_unread(checkout, cli, args):
    (checkout / "specs").symlink_to("../outside")
    (checkout.parent / "outside" / "x").mkdir()
    r = cli(*args)
    assert r.code == 2 and _quiet(r) and LEAD_OUT in r.err


def test_a_dangling_link_out_reads_as_one_whose_target_exists(checkout, cli):
    """Said the same whether or not the runner holds that path: the message tells the author nothing of it."""
    (checkout / "specs").symlink_to("../nowhere")
    r = cli("check", "specs")
    assert r.code == 2 and LEAD_OUT in r.err


def test_links_inside_the_checkout_and_paths_written_outside_it_are_read(checkout, cli, tmp_path):
    (checkout / "specs").symlink_to("real")
    assert cli("validate", "specs").code == 0
    shutil.copytree(SPECS / "racks", tmp_path / "elsewhere")
    assert cli("validate", str(tmp_path / "elsewhere")).code == 0      # written out: the user's own choice


CASES = "schema: hunter2-SECRET\ncases: [1]\n"


@pytest.mark.parametrize("how", ["file", "folder"])
def test_a_case_file_reached_through_a_link_out_is_refused_unread(checkout, cli, how):
    (checkout.parent / "outside" / "cases.yaml").write_text(CASES, encoding="utf-8")
    if how == "file":
        (checkout / "cases.yaml").symlink_to("../outside/cases.yaml")
        name = "cases.yaml"
    else:
        (checkout / "validation").symlink_to("../outside")
        name = "validation/cases.yaml"
    for fmt in ("text", "json"):
        r = cli("estimate", "--cases", name, "--format", fmt)
        assert r.code == 2 and "SECRET" not in r.out + r.err and "symbolic link" in r.err


def test_a_case_file_written_outside_the_checkout_is_still_read(checkout, cli):
    (checkout.parent / "outside" / "cases.yaml").write_text(CASES, encoding="utf-8")
    r = cli("estimate", "--cases", "../outside/cases.yaml")
    assert r.code == 1 and "got 'hunter2-SECRET'" in r.err          # the user named it: read as before


@pytest.mark.parametrize("link", ["validation/cases.yaml", "cases.yaml"])
def test_a_case_file_linked_inside_the_checkout_is_read(checkout, cli, link):
    """review40: `--cases validation/cases.yaml -> ../data/cases.yaml`, a link that stays in the checkout, was refused
    ("a symbolic link to a file outside the spec tree: expected a spec file inside validation"): `find_files` judged
    the case file as a spec file named alone, against its own folder, not by the one link rule of docs/security.md
    (`path_links.leaving_link`: a link out of the checkout)."""
    (checkout / "data").mkdir()
    (checkout / "data" / "cases.yaml").write_text(CASES, encoding="utf-8")
    (checkout / "validation").mkdir()
    (checkout / link).symlink_to("../data/cases.yaml" if "/" in link else "data/cases.yaml")
    r = cli("estimate", "--cases", link)
    assert r.code == 1 and "got 'hunter2-SECRET'" in r.err and "symbolic link" not in r.err   # read, as written


def test_a_case_file_refusal_names_a_case_file(checkout, cli):
    (checkout / "cases.yaml").symlink_to("../outside/cases.yaml")
    r = cli("estimate", "--cases", "cases.yaml")
    assert r.code == 2 and f"cases.yaml: error: {LEAD_OUT}: expected a case file inside it" in r.err


def test_a_case_file_linked_into_a_hidden_folder_is_refused_unread(checkout, cli):
    (checkout / ".git" / "config").write_text(CASES, encoding="utf-8")   # where actions/checkout keeps its token
    (checkout / "cases.yaml").symlink_to(".git/config")
    r = cli("estimate", "--cases", "cases.yaml")
    assert r.code == 2 and "SECRET" not in r.out + r.err and "hidden" in r.err


def test_a_template_folder_that_is_a_link_out_of_the_checkout_is_refused(checkout, cli):
    (checkout / "tpl").symlink_to("../outside")
    r = cli("render", "real/racks/dgx-h100-4.yaml", "--templates", "tpl", "--formats", "md", "--out", "out")
    assert r.code == 2 and r.err == ("error: --templates tpl: tpl is a link to ../outside, outside the git work tree "
                                     "(the working directory); archgen reads no template through a link that "
                                     "leaves it\n")
    assert not (checkout / "out").exists()


@pytest.mark.parametrize("written", ['"Rack IT load \\u202e deliaf"', "Rack IT load \u202e deliaf",
                                     '"x \\u2066y\\u2069"'])
def test_a_directional_override_in_a_string_is_refused_where_written(checkout, cli, written):
    rack = checkout / "real" / "racks" / "dgx-h100-4.yaml"
    rack.write_text(rack.read_text(encoding="utf-8").replace("statement: Rack IT load", f"statement: {written}"),
                    encoding="utf-8")
    r = cli("check", "real", "--format", "sarif")
    assert r.code == 2
    (said,) = [x["message"]["text"] for x in json.loads(r.out)["runs"][0]["results"]]
    assert said.startswith("directional formatting character U+")
    assert "\u202e" not in r.out + r.err and "\u2066" not in r.out + r.err
    line = cli("check", "real").err.splitlines()[0]
    assert line.startswith("real/racks/dgx-h100-4.yaml:22:") and "expected printable text, got '" in line


def test_a_directional_override_in_a_comment_is_left_alone(checkout, cli):
    """A comment reaches no output: refusing it would only break a file whose text nobody is shown."""
    rack = checkout / "real" / "racks" / "dgx-h100-4.yaml"
    rack.write_text("# \u202e a comment\n" + rack.read_text(encoding="utf-8"), encoding="utf-8")
    assert cli("validate", "real").code == 0


def test_a_file_name_holding_a_directional_override_is_refused_unread(checkout, cli):
    (checkout / "real" / "racks" / "x\u202elmay.yaml").write_text(OUTSIDE, encoding="utf-8")
    r = cli("check", "real")
    assert r.code == 2 and "\u202e" not in r.out + r.err and "SECRET" not in r.out + r.err
    assert ("real/racks/x\\u202elmay.yaml: error: the path holds directional formatting character U+202E (RLO), which "
            "would show the path reordered, so this file is not read") in r.err
