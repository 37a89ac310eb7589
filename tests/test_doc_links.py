"""Every relative link in README.md and docs/*.md resolves to a file inside the repository (lo23cli).

A user's clone holds the repository and nothing beside it: README named the style guide as `../shared/STYLE.md` and
docs/architecture.md the design as `../shared/ARCHITECTURE.md`, the developers' workspace, which a clone does not
have. A Markdown link (`[text](docs/sweeps.md#anchor)`) is resolved from its page's folder and must land on a file
inside the repository; so must a path written out as text that leaves the page's folder (`../x`) and names a page
(`.md`) or the developers' `shared/` folder. Other `../` paths in the docs are examples of hostile inputs
(`out -> ../victim`), not references, and are not read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
UPWARD = re.compile(r"(?<![\w./-])\.\./[\w./-]*[\w/]")


def _targets(page: Path) -> list[tuple[int, str]]:
    """(line, path) of each relative link of `page` and each `../` path in its text that names a page or shared/."""
    found = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        for target in LINK.findall(line):
            if not re.match(r"[a-z][a-z0-9+.-]*:|#", target):  # a URL (https:, mailto:) or an anchor on the page
                found.append((number, target.split("#")[0]))
        found += [(number, path) for path in UPWARD.findall(line) if path.endswith(".md") or "shared/" in path + "/"]
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve_inside_the_repository(page):
    bad = []
    for number, target in _targets(page):
        resolved = (page.parent / target).resolve()
        if not resolved.is_relative_to(REPO) or not resolved.exists():
            bad.append(f"{page.relative_to(REPO)}:{number}: {target}")
    assert not bad, "links to no file inside the repository:\n" + "\n".join(bad)


def test_the_check_sees_a_link_out_of_the_repository(tmp_path):
    page = tmp_path / "README.md"
    page.write_text("style: `../shared/STYLE.md`, [design](docs/x.md#top), [web](https://x.org), `../victim`\n", encoding="utf-8")
    assert _targets(page) == [(1, "docs/x.md"), (1, "../shared/STYLE.md")]
