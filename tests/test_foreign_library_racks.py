"""One PATH's requirement globs that judge a library rack another PATH's clusters place are named (newuser41 item 9).

The input that showed it (new-user trial): vendor A's `gb300-hall.yaml` (`rack/*` rules: 150 kW, 1,400 kg a rack;
examples/gb300-nvl72-su/requirements/) also judged vendor B's `rack/mi355x-compute`, a shipped library rack that
vendor B's MI355X cluster places, and `foreign_requirements` (render's warning, gap's note) named only objects defined
in a PATH's own files: a library rack belongs to no PATH, so it was never another's. Now a library rack belongs to the
PATHs whose clusters place it. (`gap A/ B/` now runs each proposal on its own, so there A's rules no longer reach B's
racks at all: tests/test_gap_designs.py; `render A B` still runs them together.)
"""

from __future__ import annotations

import shutil

from archgen.commands.render import foreign_requirements
from archgen.pipeline import run
from tests.conftest import REPO, SPECS


def test_a_library_rack_of_another_path_is_named(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(REPO / "examples" / "gb300-nvl72-su", a)
    b.mkdir()
    shutil.copy(SPECS / "clusters" / "mi355x-th5.yaml", b / "mi355x.yaml")   # places library racks mi355x-compute
    result = run([a, b])
    judged = {j.bound.subject for j in result.requirements if j.bound.req.id.startswith("REQ-GB300")}
    assert "rack/mi355x-compute" in judged                          # the case: A's rack/* rules judge B's rack
    (note,) = foreign_requirements(result, [a, b])
    assert "rack/mi355x-compute" in note, note                      # before: only cluster/mi355x-th5 objects
    assert "rack/gb300-nvl72" not in note                           # A's own library rack is A's
