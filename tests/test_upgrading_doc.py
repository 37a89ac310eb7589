"""docs/upgrading.md, the page an upgrading team reads, names what archgen moves under an older spec (newuser57).

It lists every renamed metric and key (`archgen.metric.RENAMED`, `archgen.model.renamed.RENAMED`) and every default
training stack (`stack_profiles.DEFAULT_STACK`, `VENDOR_STACKS`) with PERF006, which reports a job that takes one.
The README's documentation table links it. A rename or a new default without a line there fails here.
"""

from __future__ import annotations

from archgen import __version__
from archgen.checks import REGISTRY  # the package imports every check module first (registry alone: none)
from archgen.metric import RENAMED as RENAMED_METRICS
from archgen.model.moved import MOVED, release
from archgen.model.renamed import RENAMED
from archgen.model.stack_profiles import DEFAULT_STACK, VENDOR_STACKS, vendor_stack
from tests.conftest import REPO as ROOT

PAGE = ROOT / "docs" / "upgrading.md"


def test_every_rename_is_listed():
    text = PAGE.read_text(encoding="utf-8")
    for old, (new, since) in RENAMED_METRICS.items():
        assert f"| metric | `{old}` | `{new}` | {since} |" in text, old
    for kind, renames in RENAMED.items():
        for r in renames:
            assert f"| {kind} | `{r.old}` | `{r.new}` | {r.since} |" in text, r.old


def test_every_default_stack_is_listed_with_the_check_that_reports_it():
    text = PAGE.read_text(encoding="utf-8")
    for stack in (DEFAULT_STACK, *VENDOR_STACKS.values()):
        assert f"| `{stack}` |" in text, stack
    assert "PERF006" in REGISTRY and "PERF006" in text


def test_the_readme_links_it():
    assert "[`docs/upgrading.md`](docs/upgrading.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_moved_defaults_table_is_the_packages_moved():
    """pr27: the page's table and `model.moved.MOVED` (what SPC005 lists) are one list, row for row, in order."""
    text = PAGE.read_text(encoding="utf-8")
    rows = [line.strip() for line in text.splitlines() if line.strip().startswith("| ") and "`training.stack`" in line]
    assert rows == [f"| {m.which} | `{m.key}` | `{m.before}` | `{m.after}` | {m.since} ({m.commit}, {m.date}) |"
                    for m in MOVED]


def test_the_newest_move_is_the_default_a_job_takes_today():
    """A new default without its line in MOVED (or a move whose value is not the default) fails here."""
    for vendor in ("", *VENDOR_STACKS):
        newest = [m for m in MOVED if m.key == "training.stack" and m.vendor in ("", vendor)][-1]
        assert newest.after == vendor_stack(vendor), vendor


def test_every_move_is_in_a_release_at_most_this_one_in_order():
    releases = [release(m.since) for m in MOVED]
    assert releases == sorted(releases) and releases[-1] <= release(__version__)
