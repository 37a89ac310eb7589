"""The check registry: IDs unique and well-formed, prefix matches the module, docstrings documented, case files."""

from __future__ import annotations

from pathlib import Path

from archgen.checks import MODULE_PARTS, MODULES, REGISTRY, RESERVED
from archgen.checks.registry import ID_RE
from archgen.errors import InternalError

CASES = Path(__file__).parent / "cases"


def test_ids_well_formed_and_prefix_matches_module():
    for cid, chk in REGISTRY.items():
        assert ID_RE.match(cid), cid
        prefix = cid.rstrip("0123456789")
        assert prefix in MODULES, f"{cid}: no module for prefix {prefix}"
        homes = {MODULES[prefix].__name__, *(f"archgen.checks.{part}" for part in MODULE_PARTS.get(prefix, ()))}
        assert chk.func.__module__ in homes, f"{cid} defined in {chk.func.__module__}"


def test_a_prefix_module_imports_its_parts():
    """A module split from a prefix's module for its size registers when the prefix's module is imported."""
    for prefix, parts in MODULE_PARTS.items():
        assert prefix in MODULES, prefix
        for part in parts:
            assert getattr(MODULES[prefix], part, None) is not None, f"{MODULES[prefix].__name__} imports no {part}"


def test_reserved_ids_do_not_collide():
    assert not set(RESERVED) & set(REGISTRY)
    assert all(ID_RE.match(c) for c in RESERVED)


def test_names_unique():
    names = [c.name for c in REGISTRY.values()]
    assert len(names) == len(set(names))


def test_docstrings_have_summary_and_fix():
    for cid, chk in REGISTRY.items():
        assert chk.summary and chk.summary.endswith("."), f"{cid}: first docstring line is the summary"
        assert chk.fix, f"{cid}: docstring needs a 'Fix:' paragraph"


def test_every_id_has_a_case_file_with_pass_and_fail():
    from tests.checks.test_cases import _load  # parsed once a process: test_cases read them all at collection
    for cid in sorted(set(REGISTRY) | {"SPC002"}):
        path = CASES / f"{cid}.yml"
        assert path.exists(), f"{cid}: add {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}"
        names = [c["name"] for c in _load(path)["cases"]]
        assert any(n.startswith("pass") for n in names) and any(n.startswith("fail") for n in names), cid


def test_registering_a_duplicate_id_fails():
    import pytest

    from archgen.checks import check
    with pytest.raises(InternalError, match="registered twice"):
        check("PWR001", "dup")(lambda ctx: iter(()))
    with pytest.raises(InternalError, match="does not match"):
        check("pwr1", "bad")


def test_waiver_covers_only_findings_about_its_subject(tmp_path):
    """Issue 11, item 10: `check` applies a waiver per subject. Our hall requirements fail twice on ACME's rack
    acme-r4 (REQ001, weight and free space); a waiver naming rack/acme-r4 and the weight requirement waives that
    one (newuser32: a waiver covers the requirement it names), one naming rack/acme-net neither."""
    from archgen.pipeline import run
    from tests.test_gap import fixed_proposal, requirements_without

    def req001(subject: str, root) -> list:
        reqs = requirements_without(root / "r", "REQ-HALL-NET-002", extra=(
            f"waivers:\n  - {{check: REQ001, subject: {subject}, requirement: REQ-HALL-MECH-001, reason: a lighter "
            "frame in rev C}\n"))
        result = run([fixed_proposal(root / "p"), reqs])
        return sorted((f.object, f.requirement, bool(f.waived)) for f in result.findings if f.id == "REQ001")

    assert req001("rack/acme-r4", tmp_path / "a") == [("rack/acme-r4", "REQ-HALL-MECH-001", True),
                                                      ("rack/acme-r4", "REQ-HALL-MECH-002", False)]
    assert req001("rack/acme-net", tmp_path / "b") == [("rack/acme-r4", "REQ-HALL-MECH-001", False),
                                                       ("rack/acme-r4", "REQ-HALL-MECH-002", False)]
