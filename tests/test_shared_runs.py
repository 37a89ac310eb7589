"""tests/shared_runs.py: the in-process command line runs the pipeline once for the same files; nothing else shares."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

from archgen import pipeline
from tests import shared_runs
from tests.conftest import SPECS, run_cli

GAP = Path(__file__).parent / "data" / "gap"


def _counted(tmp_path, steps):
    """Run `steps(tree)` with every pipeline run counted (a plain assignment, not a monkeypatch, which would stop the
    sharing); the count."""
    tree = tmp_path / "specs"
    shutil.copytree(SPECS / "racks", tree / "racks")
    calls = []
    original = pipeline.judged
    pipeline.judged = lambda *a, **k: calls.append(1) or original(*a, **k)
    try:
        steps(tree)
    finally:
        pipeline.judged = original
    return len(calls)


def test_a_command_run_again_on_the_same_files_runs_the_pipeline_once_and_says_the_same(tmp_path):
    said = []
    assert _counted(tmp_path, lambda tree: said.extend(run_cli("check", str(tree)).out for _ in range(3))) == 1
    assert said[0] == said[1] == said[2] and "rack/" in said[0]


def test_an_edited_file_a_direct_call_or_a_patch_runs_it_again(tmp_path, monkeypatch):
    def steps(tree):
        run_cli("check", str(tree))
        pipeline.run([tree])                               # a test's own call: its own run
        rack = sorted((tree / "racks").glob("*.yaml"))[0]
        rack.write_text(rack.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        run_cli("check", str(tree))                        # other bytes: run again
        with monkeypatch.context() as mp:
            mp.setenv("ARCHGEN_PROBE", "1")                # a patch in force: nothing shared
            run_cli("check", str(tree))
    assert _counted(tmp_path, steps) == 4


def test_a_tree_with_a_named_pipe_has_no_key(tmp_path):
    """The key reads every file; a named pipe would block it, so such a tree is run as always (and refused)."""
    (tmp_path / "racks").mkdir()
    os.mkfifo(tmp_path / "racks" / "pipe.yaml")
    assert shared_runs.run_key(([tmp_path],), {}) is None


def test_the_commands_leave_a_shared_run_as_they_found_it(tmp_path):
    """What makes one `Run` safe to give every command: none changes it. Each command that takes one
    (`test_only_four_commands_take_a_run`) run twice; every run kept for the tree pickles the same before and after
    the second, which says the same as the first. The documents' diagrams are placeholders (assigned, not
    monkeypatched, which would stop the sharing): they draw from the run, never into it."""
    import pickle

    from archgen.render import diagrams
    from tests.render.golden_util import PLACEHOLDER

    tree = tmp_path / "specs"
    shutil.copytree(SPECS / "racks", tree / "racks")
    proposal, ours = tmp_path / "proposal", tmp_path / "requirements"   # ACME's proposal and our requirements
    shutil.copytree(GAP / "proposal", proposal)
    shutil.copytree(GAP / "requirements", ours)

    def kept(where: str) -> list[bytes]:
        return [pickle.dumps(r) for key, r in shared_runs._RUNS.items() if where in key[0]]
    draw = diagrams.render
    diagrams.render = lambda name, draw, formats: {f: PLACEHOLDER[f] for f in formats}
    try:
        for args in (("check", str(tree)), ("check", str(tree), "--format", "json"),
                     ("render", str(tree), "--out", str(tmp_path / "out"), "--formats", "md,html,csv"),
                     ("diff", str(tree), str(tree)), ("gap", str(proposal), "--against", str(ours)),
                     ("gap", str(proposal), "--against", str(ours), "--format", "json", "--audience", "customer")):
            first = run_cli(*args).out
            before = kept(args[1])
            assert before, args
            assert run_cli(*args).out == first and kept(args[1]) == before, args
    finally:
        diagrams.render = draw


def _takes_run(tree: ast.Module) -> bool:
    """Whether a module's code names `archgen.pipeline.run` (imports it, or reads `pipeline.run`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "archgen.pipeline" and \
                any(a.name in ("run", "*") for a in node.names):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "run" and isinstance(node.value, ast.Name) and \
                node.value.id == "pipeline":
            return True
    return False


def test_only_four_commands_take_a_run():
    """The shared `Run`s reach only the commands that call `pipeline.run`: check, render, diff and gap (each held to
    leaving it unchanged above). sweep, catalog, estimate, validate and schema read the specs through
    `analyse_paths`, `judged`, `built`, `references` or `load_specs`, which are not shared, so they cannot change a
    kept run; a module that starts calling `pipeline.run` fails here until it joins the test above."""
    root = Path(pipeline.__file__).parent
    texts = {f: f.read_text(encoding="utf-8") for f in root.rglob("*.py") if f.name != "pipeline.py"}
    takers = sorted(str(f.relative_to(root)) for f, text in texts.items()
                    if "pipeline" in text and _takes_run(ast.parse(text)))
    assert takers == ["commands/check.py", "commands/diff.py", "commands/gap.py", "commands/render.py"]


def test_sweep_and_catalog_keep_no_run(tmp_path):
    """`catalog list`, `catalog show` and a sweep through the in-process command line keep no run (they make none)."""
    before = list(shared_runs._RUNS)
    assert run_cli("catalog", "list", "--path", SPECS / "racks").code == 0
    assert run_cli("catalog", "show", "dgx-h100", "--path", SPECS / "racks").code == 0
    sweep = tmp_path / "one.yaml"   # one point (test_derived's)
    sweep.write_text("kind: Sweep\nid: one\nworkload: llama3-70b-pretrain-b200\naxes:\n  precision: [bf16]\n"
                     "objectives: [{metric: cost_per_token}]\n", encoding="utf-8")
    r = run_cli("sweep", sweep, "--path", SPECS, "--out", tmp_path / "out", "--format", "json")
    assert r.code == 0, r.err
    assert list(shared_runs._RUNS) == before
