"""The note of a command that wrote its documents over failing specs names the failing checks (newuser107).

`archgen sweep` of a sweep asking for 2,048 accelerators of a 1,016-GPU cluster said "1 error finding(s) in the
specs: the documents are marked as failing checks; `archgen check` lists them", and named none: the planner had to
run `check` over the whole tree to learn it was the sweep's own SWP002. The note names the checks, as the
documents' control table does ("Draft — has failing checks: SWP002").
"""

from __future__ import annotations

from tests.conftest import SPECS

SWEEP = """kind: Sweep
id: big
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [2048]
objectives:
  - {metric: tokens_per_second}
"""


def test_the_failing_note_names_the_checks(cli, tmp_path):
    (tmp_path / "s.yaml").write_text(SWEEP, encoding="utf-8")
    r = cli("sweep", str(tmp_path / "s.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"), "--formats", "md")
    assert r.code == 1
    assert "1 error finding(s) in the specs: the documents are marked as failing checks: SWP002; `archgen check` " \
           "lists them" in r.err, r.err
