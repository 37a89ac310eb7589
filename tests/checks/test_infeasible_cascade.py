"""What an infeasible fabric causes folds under its error, as a typo's cascade folds under its REF finding (infeasfold42).

A fabric whose topology is infeasible (NET001, NET003, NET018) withholds its wiring figures and refuses every job across
its scale-up domains (infeasraw42): a SHALL on such a job read a REQ002 error beside NET018, its own line, as if a
second problem. `checks.cascade` now marks it, a requirement on a figure the fabric withheld, the fabric's CAB013 and
an unused waiver on the job as caused by the fabric's first such error, from what the analysis recorded
(`Operations.infeasible`, `WorkloadResult.refused_by`), never from the reason's words.
"""

from __future__ import annotations

import json
import pickle

from archgen.errors import WorkloadError
from archgen.pipeline import run
from tests.analyse.test_infeasible_figures import FABRIC, REFUSED, WORKLOAD, _fixed_leaves
from tests.conftest import run_cli
from tests.data.clusters.small import files

CAUSE = "NET018 cluster/c/fabric/f"
#: A Requirements document on the fabric: its bisection (withheld) and its leaves' count (the spec's, still judged).
ON_FABRIC = ("---\nkind: Requirements\nid: net-reqs\nrequirements:\n"
             "- {id: R-BIS, statement: Bisection, subject: cluster/c/fabric/f, metric: bisection_bandwidth, "
             "target: '>= 1 Tb/s', level: should}\n"
             "- {id: R-SW, statement: Switches, subject: cluster/c/fabric/f, metric: leaf.switches, target: '>= 100', "
             "level: should}\n")
#: A waiver of the MFU miss the job would have had: with no estimate there is no miss, so it matches nothing (SPC002).
WAIVER = "level: shall}\nwaivers:\n- {check: PERF001, requirement: W-MFU, reason: accepted}\n"


def _tree(leaves: int | None = 2, tiers: int = 3) -> dict[str, str]:
    tree = files(racks=1, sus=2, switch="sw8", tiers=tiers, rail=False) | WORKLOAD
    tree["w.yaml"] = tree["w.yaml"].replace("level: shall}\n", WAIVER, 1) + ON_FABRIC
    if leaves is not None:
        tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], leaves)
    return tree


def test_what_an_infeasible_fabric_causes_folds_under_its_error(spec_tree) -> None:
    """Its REQ002s (the job's own SHALL, a SHOULD on the job and one on the fabric's bisection), its CAB013 (60 links on
    a leaf's 4 down ports) and the unused waiver fold under NET018 in the text report; JSON and SARIF say
    `caused_by`, and every finding is still counted. What it does not cause keeps its line: REQ001 on the leaves'
    stated count, COST002 (NET017 weighs no count of it: review62)."""
    root = spec_tree(_tree())
    findings = json.loads(run_cli("check", str(root), "--format", "json").out)
    caused = {(f["id"], f.get("requirement")): f.get("caused_by") for f in findings["findings"]}
    assert {k for k, v in caused.items() if v == CAUSE} == {
        ("REQ002", "W-MFU"), ("REQ002", "R-TPS"), ("REQ002", "R-BIS"), ("CAB013", None), ("SPC002", None)}
    assert set(caused.values()) == {CAUSE, None}
    assert caused[("NET018", None)] is None and caused[("REQ001", "R-SW")] is None and caused[("COST002", None)] is None
    assert ("NET017", None) not in caused   # 66 of 72 sw8 "unused" against the 2 leaves NET018 calls too few
    out = run_cli("check", str(root)).out.splitlines()
    lead = next(i for i, line in enumerate(out) if f"error: {CAUSE}:" in line)
    assert lead == 0 and not out[0].startswith(" ")          # the cause leads, as a typo's REF finding does
    folded = [line for line in out[1:] if line.startswith("    ")]
    assert out[1:1 + len(folded)] == folded and len([line for line in folded if "hint:" not in line]) == 5
    assert any(line.startswith("      hint: Remove the waiver") for line in folded)   # a folded finding's hint too
    assert [line for line in out if "REQ001" in line and not line.startswith(" ")]
    s = findings["summary"]
    assert out[-1].startswith(f"{s['errors']} error(s), {s['warnings']} warning(s), {s['info']} info")
    assert s["errors"] == sum(f["severity"] == "error" and not f.get("waived") for f in findings["findings"])
    results = json.loads(run_cli("check", str(root), "--format", "sarif").out)["runs"][0]["results"]
    assert {r.get("properties", {}).get("causedBy") for r in results if r["ruleId"] == "REQ002"} == {CAUSE}


def test_a_fabric_with_too_few_tiers_leads_its_cascade(spec_tree) -> None:
    """Two tiers of 8-port switches for 64 ports: NET003 is the cause the job's requirements name."""
    r = run([spec_tree(_tree(leaves=None, tiers=2))])
    assert "NET003" in {f.id for f in r.findings}
    assert {f.caused_by for f in r.findings if f.id == "REQ002"} == {"NET003 cluster/c/fabric/f"}


def test_a_sized_fabric_and_a_job_refused_for_its_own_reason_fold_nothing(spec_tree) -> None:
    """The sized fabric causes nothing. A job asking for more accelerators than the cluster has is refused first for
    that (PERF003, `refused_by` empty): on the infeasible fabric its requirements are not the fabric's doing, and
    keep their lines; the fabric's bisection requirement still folds."""
    sized = run([spec_tree(_tree(leaves=None))])
    assert not [f for f in sized.findings if f.caused_by]
    tree = _tree()
    tree["w.yaml"] = tree["w.yaml"].replace("accelerators: 64", "accelerators: 128")
    r = run([spec_tree(tree)])
    assert r.workloads["workload/w"].refused_by == "" and "PERF003" in {f.id for f in r.findings}
    caused = {f.requirement: f.caused_by for f in r.findings if f.id == "REQ002"}
    assert caused == {"W-MFU": "", "R-TPS": "", "R-BIS": CAUSE}


def test_the_refusal_says_the_layout_was_not_looked_at(spec_tree) -> None:
    """A layout that cannot run (TP 3 does not divide 16 heads): PERF003 on the sized fabric; on the infeasible one
    the refusal comes first and says the layout was not searched or checked, so it is not taken for a good one."""
    tree = _tree(leaves=None)
    tree["w.yaml"] = tree["w.yaml"].replace("  precision: bf16\n", "  precision: bf16\n  parallelism: {tp: 3}\n", 1)
    sized = run([spec_tree(tree)])
    assert [f.id for f in sized.findings if f.object == "workload/w" and f.severity == "error"][:1] == ["PERF003"]
    tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], 2)
    r = run([spec_tree(tree)]).workloads["workload/w"]
    assert r.error == REFUSED and r.refused_by == FABRIC


def test_the_refusal_keeps_its_fabric_across_processes() -> None:
    """A sweep's workers send errors back pickled: the fabric travels with the reason."""
    err = pickle.loads(pickle.dumps(WorkloadError("w", "why", fabric=FABRIC)))
    assert (err.reason, err.fabric) == ("why", FABRIC)


def test_a_typo_the_fabric_rests_on_stays_the_one_root(spec_tree) -> None:
    """A PDU typo in both racks: the REF cascade takes the fabric's NET018 too (the fabric rests on its racks), so
    what NET018 causes names the typo, the root, and folds once under it: no finding is lost from the text report."""
    tree = _tree()
    tree["racks/r.yaml"] = tree["racks/r.yaml"].replace("pdu-415v-60a-3ph", "pdu-415v-60a-3px")
    root = spec_tree(tree)
    findings = json.loads(run_cli("check", str(root), "--format", "json").out)["findings"]
    caused = {(f["id"], f.get("requirement")): f.get("caused_by", "") for f in findings}
    assert caused[("NET018", None)].startswith("REF001 ")
    assert caused[("REQ002", "W-MFU")] == caused[("CAB013", None)] == caused[("NET018", None)]
    out = run_cli("check", str(root)).out.splitlines()
    assert len([line for line in out[:-1] if "hint:" not in line]) == len([f for f in findings if not f.get("waived")])
    assert sum("REQ002 workload/w: W-MFU" in line for line in out) == 1


def test_cab007_folds_only_where_the_fabric_cannot_be_built(tmp_path) -> None:
    """CAB007 folds under NET003 where the fabric cannot be built, not where a dragonfly is only counted (infeastail42).

    Its words name both causes ("cannot be built as specified (NET003)", "a dragonfly fabric's runs are not laid
    out"): the check marks the first as following from the fabric (`Violation.follows`), never the words.
    """
    from tests.checks.test_cases import CASES, _load, findings_of
    cases = {c["name"]: c for c in _load(CASES / "CAB007.yml")["cases"]}
    built = findings_of("CAB007", cases["fail_unbuildable_fat_tree_of_two_units"], tmp_path / "ft")
    counted = findings_of("CAB007", cases["fail_dragonfly_access_listed_by_reach"], tmp_path / "df")
    assert built and {f.caused_by for f in built} == {"NET003 cluster/c/fabric/f"}
    assert counted and {f.caused_by for f in counted} == {""}
