"""What a pull request's specs may make a CI job do in all, not only per file (newuser77's leftover 2).

Each file was capped (5 MiB, 200,000 entries) but not the tree: one file of 199,000 items took 29 s to load on a
shared 2-core machine, so a few hundred such files held a job for hours. And a sweep raised its own `max_points` to
1,000,000. Now the files of one load are capped together (`yaml_guard.TreeBudget`: bytes before any is read, entries
as they load), raised only from the environment; and `archgen sweep` evaluates at most 100,000 points a sweep unless
its `--max-points` says more, whatever the sweep's `max_points` says.
"""

from __future__ import annotations

from archgen import load, yaml_guard
from tests.conftest import SPECS

#: A rack-shaped file of 2 + 1 + 30 entries (kind, id, the key `x` and its 30 items), for the entries' totals.
ITEMS = "kind: Rack\nid: r{i}\nx:\n" + "".join(f"  - {j}\n" for j in range(30))


def _tree(tmp_path, n: int, text: str = ITEMS):
    root = tmp_path / "t"
    root.mkdir()
    for i in range(n):
        (root / f"f{i}.yaml").write_text(text.format(i=i), encoding="utf-8")
    return root


def test_the_caps_are_the_documented_multiples_of_the_file_limits():
    assert yaml_guard.MAX_TREE_BYTES == 10 * yaml_guard.MAX_FILE_BYTES == 50 * 2**20
    assert yaml_guard.MAX_TREE_ENTRIES == 5 * load.MAX_NODES == 1_000_000


def test_a_tree_past_its_entries_is_refused_at_the_file_that_passes_the_cap(tmp_path, cli, monkeypatch):
    root = _tree(tmp_path, 4)
    (root / "f3.yaml").write_text("kind: [\n", encoding="utf-8")   # after the cap: never read, so never reported
    monkeypatch.setenv("ARCHGEN_MAX_TREE_ENTRIES", "40")
    r = cli("validate", str(root))
    assert r.code == 2 and "f3.yaml" not in r.err
    assert r.err == (f"{root}/f1.yaml: error: the spec files read reach 66 entries (keys and list items) at this file "
                     "(file 2 of 4): expected at most 40 in all the files of one run\n  hint: a tree this large would "
                     "hold a CI job for long; check its folders one by one, or raise the cap for the run "
                     "deliberately: ARCHGEN_MAX_TREE_ENTRIES=N in the environment\n")
    monkeypatch.setenv("ARCHGEN_MAX_TREE_ENTRIES", "100")              # raised deliberately: read, and judged
    assert "f3.yaml:2:1: error: YAML syntax error" in cli("validate", str(root)).err


def test_a_tree_past_its_bytes_is_refused_before_any_file_is_read(tmp_path, cli, monkeypatch):
    root = _tree(tmp_path, 2, "kind: [\n# {i}" + "x" * 700_000 + "\n")  # each a YAML error, 0.67 MiB
    monkeypatch.setenv("ARCHGEN_MAX_TREE_MIB", "1")
    r = cli("check", str(root))
    assert r.code == 2 and "f0.yaml:1:" not in r.err                     # f0 was not read
    assert f"{root}/f1.yaml: error: the spec files read reach 1.3 MiB at this file (file 2 of 2): expected at " \
           "most 1 MiB in all the files of one run" in r.err and "ARCHGEN_MAX_TREE_MIB=N" in r.err


def test_a_cap_set_to_no_whole_number_is_a_usage_error(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("ARCHGEN_MAX_TREE_ENTRIES", "lots")
    r = cli("validate", str(_tree(tmp_path, 1)))
    assert r.code == 2 and r.err == "error: ARCHGEN_MAX_TREE_ENTRIES='lots': expected a whole number of at least 1 " \
                                    "(default 1,000,000)\n"


def test_the_shipped_specs_are_far_inside_the_caps():
    docs = load.load_paths([SPECS])
    assert sum(len(d.positions) for d in docs) < yaml_guard.MAX_TREE_ENTRIES // 100


SWEEP = "kind: Sweep\nid: s\nworkload: llama3-70b-pretrain-b200\nmax_points: 1000000\n" \
        "objectives: [{metric: tokens_per_second}]\naxes:\n  accelerators: [256, 512]\n"


def test_a_sweep_cannot_raise_the_runs_point_cap_by_its_own_max_points(tmp_path, cli):
    """2 counts x 60,001 bandwidth levels, under the sweep's own max_points of 10^6: refused before any point runs."""
    (tmp_path / "s.yaml").write_text(SWEEP + "  hbm_bandwidth: {from: 0.5, to: 2, step: 0.000025}\n",
                                     encoding="utf-8")
    r = cli("sweep", str(tmp_path / "s.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"))
    assert r.code == 1 and not (tmp_path / "out").exists()
    assert (f"{tmp_path}/s.yaml:6:1: error: axes: the axes make 120,002 points, more than the 100,000 one run of "
            "archgen sweep evaluates\n  hint: shorten an axis, or run `archgen sweep --max-points 120002` to evaluate "
            "them all (a sweep's own max_points cannot raise the run's cap)\n") in r.err


def test_the_command_line_raises_or_lowers_the_runs_point_cap(tmp_path, cli):
    (tmp_path / "s.yaml").write_text(SWEEP + "  precision: [bf16, fp8]\n", encoding="utf-8")   # 4 points
    args = ("sweep", str(tmp_path / "s.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"), "--max-points")
    r = cli(*args, "3")
    assert r.code == 1 and "the axes make 4 points, more than the 3 one run of archgen sweep evaluates" in r.err
    r = cli(*args, "4")
    assert "one run of archgen sweep" not in r.err and (tmp_path / "out" / "s").is_dir()
