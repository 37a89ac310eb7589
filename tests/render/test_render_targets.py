"""`render --target` is repeatable (newuser108).

Before: `archgen render specs/ --target gb200-nvl72 --target gb200-nvl72-su --target mi355x-compute` wrote only
the last target's documents, with no word that the first two were dropped (typer keeps the last value of an
option given more than once). Expected: each target named is rendered, and an unknown one among them is refused
by name.
"""

from __future__ import annotations

from tests.conftest import SPECS


def test_each_target_given_is_rendered(cli, tmp_path):
    r = cli("render", SPECS, "--out", tmp_path, "--formats", "md", "--target", "dgx-h100-4", "--target", "tpu-v4-cube")
    assert r.code == 0, r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dgx-h100-4", "tpu-v4-cube"]
    assert (tmp_path / "dgx-h100-4" / "dgx-h100-4.md").is_file() and (tmp_path / "tpu-v4-cube" / "tpu-v4-cube.md").is_file()


def test_an_unknown_target_among_several_is_refused_by_name(cli, tmp_path):
    r = cli("render", SPECS, "--out", tmp_path, "--formats", "md", "--target", "dgx-h100-4", "--target", "nope")
    assert r.code == 2
    assert "no rack or cluster 'nope' (known: " in r.err
    assert not (tmp_path / "dgx-h100-4").exists()
