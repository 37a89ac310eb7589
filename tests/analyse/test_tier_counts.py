"""Fixed switch counts (`leaf.count`, `spine.count`, `core.count`): honoured, or rejected where they are given.

The cluster is tests/data/clusters/small.py: units of two racks of four DGX H100 (8 x 400G CX-7 ports each, so
64 node ports per unit) and one network rack, on 64-port QM9700s at 400 Gb/s, 1:1 (32 down, 32 up per leaf).
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.pipeline import run
from tests.data.clusters.small import files


def _tree(replace: dict[str, str], **kw) -> dict[str, str]:
    """The small cluster's files with the tier lines in `replace` rewritten (each must occur)."""
    tree = files(**kw)
    text = tree["clusters/c.yaml"]
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    tree["clusters/c.yaml"] = text
    return tree


@pytest.mark.parametrize(("tiers", "line", "field", "message"), [
    (1, "leaf: {rack: net, count: 2}", "leaf.count", "2 leaves given, but a 1-tier fabric is one switch per plane"),
    (1, "spine: {rack: net, count: 2}", "spine.count", "2 spines given, but a 1-tier fabric has no spine tier"),
    (2, "core: {rack: net, count: 4}", "core.count", "4 cores given, but a 2-tier fabric has no core tier"),
])
def test_count_on_a_tier_the_fabric_does_not_build_is_rejected(spec_tree, tiers, line, field, message) -> None:
    """A count the fixed `tiers` would never use is a validation error located at the count's value."""
    tier = line.split(":")[0]
    tree = _tree({f"{tier}: {{rack: net}}": line}, tiers=tiers)
    with pytest.raises(SpecError) as err:
        run([spec_tree(tree)])
    [problem] = err.value.problems
    text = f"  {line}"                                    # the line as it stands in c.yaml, under `fabrics: - `
    where = (tree["clusters/c.yaml"].splitlines().index(text) + 1, text.rindex(" ") + 2)
    assert (problem.path, (problem.location.line, problem.location.column)) == (f"fabrics.0.{field}", where)
    assert problem.message.startswith(message)


def test_count_above_the_typo_guard_is_rejected(spec_tree) -> None:
    """100,000 switches per tier and plane is the most a count may say."""
    with pytest.raises(SpecError) as err:
        run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 100001}"}))])
    [problem] = err.value.problems
    assert (problem.path, problem.value, problem.expected) == ("fabrics.0.leaf.count", 100001,
                                                                "a number of at most 100000")
