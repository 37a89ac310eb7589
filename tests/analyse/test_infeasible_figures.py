"""A fabric whose topology its errors make impossible gives no figures of the broken wiring (newuser101, PR2).

A tier's fixed count too few for its links (NET018) left the fabric counting 72 links on a spine's 64 ports: its ports
used, free, the bisection and the failure figures read as numbers beside the errors. They are not provided now, with
why (`analyse.network.infeasible`, held in `Operations.withheld`); the counts the spec states stay.
"""

from __future__ import annotations

import pytest

from archgen.analyse.network import infeasible, withheld_tiers
from archgen.pipeline import run
from archgen.render.blocks import Para, Table
from archgen.render.cluster import abstract, architecture
from archgen.render.cluster_fabrics import fabrics
from archgen.render.common import Scope
from tests.data.clusters.small import files

FABRIC = "cluster/c/fabric/f"


def test_an_infeasible_fabric_withholds_its_wiring_figures(spec_tree) -> None:
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("leaf: {rack: net}", "leaf: {rack: net, count: 2}")
    r = run([spec_tree(tree)])
    fa = r.clusters["cluster/c"].fabrics[0]
    assert "NET018" in {f.id for f in r.findings if f.severity == "error"}
    why = r.operations.withheld[FABRIC]
    gone = {"leaf.ports_used", "leaf.ports_free", "spine.ports_used", "core.ports_used", "bisection_bandwidth",
            "bisection_per_accelerator", "leaf.oversubscription", "spine.oversubscription"}
    assert gone <= set(why) and not gone & set(fa.metrics)
    assert why["leaf.ports_used"] == "the topology of fabric f is infeasible (NET018): its figures of tier(s) leaf, " \
                                    "spine, core would count links on ports its switches do not have"
    assert {"leaf.switches", "spine.switches", "injection_bandwidth"} <= set(fa.metrics)   # the spec's counts stay
    assert infeasible(fa) == ((), "")            # popped once: nothing is left to withhold
    # the cluster document says so where it gave the bisection and the failure cases
    from archgen.render.cluster_fabrics import _failure_row, bisection_text
    assert bisection_text(fa) == "bisection not provided: the topology is infeasible (NET018)"
    assert _failure_row("failure.spine.bisection_per_accelerator", None, fa) == (
        "Bisection with a spine lost", "not provided: the topology is infeasible (NET018)")
    # and its tier table gives no ports used of the tiers withheld: 576 read on 8 x 64-port spines (infeas41)
    sub, table = _tiers_of(r)
    used = [i for i, c in enumerate(table.columns) if c.title in ("Down used", "Up used")]
    assert [[row[i] for i in used] for row in table.rows] == [["not provided"] * 2] * 3
    # nor their oversubscription as used, which counts those ports; the core, the top tier, has none (oversub41)
    assert fa.oversubscription.keys() == {"leaf", "spine"}   # the model still holds them: the document withholds
    assert [row[_col(table, "Oversubscription as used")] for row in table.rows] == ["not provided"] * 2 + [None]
    assert any(isinstance(b, Para) and b.text == "Down used, Up used and Oversubscription as used of tier(s) leaf, "
               "spine, core: not provided: the topology is infeasible (NET018)." for b in sub.blocks)
    assert _rows(r, "fabrics")[0][_col(_table(r, "fabrics"), "Max oversubscription as used")] == "not provided"
    scaling = _scaling(r)
    assert [row[_col(scaling, "Ports used")] for row in scaling.rows] == ["not provided"] * 3
    assert [row[_col(scaling, "Oversubscription as used")] for row in scaling.rows] == ["not provided"] * 2 + [None]
    assert _key_metric(r).endswith(", oversubscription as used not provided")


def test_a_fabric_the_model_sizes_keeps_them(spec_tree) -> None:
    r = run([spec_tree(files(racks=1, sus=2, switch="sw8", tiers=3, rail=False))])
    fa = r.clusters["cluster/c"].fabrics[0]
    assert infeasible(fa) == ((), "") and "bisection_bandwidth" in fa.metrics and "leaf.ports_used" in fa.metrics
    assert not any("infeasible" in why for why in r.operations.withheld.get(FABRIC, {}).values())
    _, table = _tiers_of(r)
    at = next(i for i, c in enumerate(table.columns) if c.title == "Down used")
    assert [row[at] for row in table.rows] == [t.down_used * fa.planes for t in fa.tiers]
    # its oversubscription as used stays a number, in the metrics and in every table of the document
    over = [fa.oversubscription["leaf"], fa.oversubscription["spine"], None]
    assert [fa.metrics[f"{t}.oversubscription"].magnitude for t in ("leaf", "spine")] == over[:2]
    assert [row[_col(table, "Oversubscription as used")] for row in table.rows] == over
    assert [row[_col(_scaling(r), "Oversubscription as used")] for row in _scaling(r).rows] == over
    assert _rows(r, "fabrics")[0][_col(_table(r, "fabrics"), "Max oversubscription as used")] == max(over[:2])
    assert _key_metric(r).endswith(f", oversubscription as used {max(over[:2]):.2f}:1")


def test_too_few_tiers_withhold_only_the_top_tier(spec_tree) -> None:
    """NET003 names the tier that cannot reach, the top one, so the leaves' wiring stays (infeastail42).

    Two tiers of 8-port switches for 64 ports: 16 leaves, each 4 down and 4 up as stated, under 8-port spines. The
    leaves' ports used and taper count their own ports; the spines' wiring, the leaf-spine links and the bisection
    would count links on spine ports that do not exist. A requirement on the leaves' taper is judged (a miss here), not REQ002.
    """
    tree = files(racks=1, sus=2, switch="sw8", tiers=2, rail=False)
    tree["reqs.yaml"] = ("kind: Requirements\nid: net-reqs\nrequirements:\n- {id: R-LEAF, statement: Leaf taper, "
                         "subject: cluster/c/fabric/f, metric: leaf.oversubscription, target: '>= 2', level: should}\n")
    r = run([spec_tree(tree)])
    fa = r.clusters["cluster/c"].fabrics[0]
    assert [(p.check, p.tier) for p in fa.problems if p.check == "NET003"] == [("NET003", "spine")]
    why = r.operations.withheld[FABRIC]
    assert {"spine.ports_used", "links.leaf_spine", "bisection_bandwidth",
            "failure.spine.uplink_bandwidth_lost"} <= set(why)
    assert why["spine.ports_used"] == "the topology of fabric f is infeasible (NET003): its figures of tier(s) " \
                                      "spine would count links on ports its switches do not have"
    assert fa.metrics["leaf.ports_used"].magnitude == 128 and fa.metrics["leaf.oversubscription"].magnitude == 1
    assert not {n for n in why if n.startswith(("leaf.", "failure.leaf."))}
    assert [f.id for f in r.findings if "R-LEAF" in f.message] == ["REQ001"]   # a miss judged on 1:1, not REQ002


def _col(table, title):
    """The index of `table`'s column whose title starts with `title`."""
    return next(i for i, c in enumerate(table.columns) if c.title.startswith(title))


def _table(r, id_):
    """Table `id_` of the cluster document's network section."""
    a = r.clusters["cluster/c"]
    return next(b for b in fabrics(Scope(r, a.cluster.path, a.cluster.spec, []), a).blocks
                if isinstance(b, Table) and b.id == id_)


def _rows(r, id_):
    return _table(r, id_).rows


def _scaling(r):
    """The cluster document's scaling table: switches per fabric tier."""
    a = r.clusters["cluster/c"]
    return next(b for b in architecture(a).blocks if isinstance(b, Table) and b.id == "scaling")


def _key_metric(r):
    """The key-metrics line of fabric f."""
    a = r.clusters["cluster/c"]
    table = next(b for b in abstract(Scope(r, a.cluster.path, a.cluster.spec, []), a).blocks
                 if isinstance(b, Table))
    return next(row[1] for row in table.rows if row[0] == "Fabric f")


def _tiers_of(r):
    """Fabric f's section of the cluster document and its tier table."""
    a = r.clusters["cluster/c"]
    sub = next(s for s in fabrics(Scope(r, a.cluster.path, a.cluster.spec, []), a).sections if s.id == "fabric-f")
    return sub, next(b for b in sub.blocks if isinstance(b, Table) and b.id == "tiers-f")


def test_net006_judges_no_withheld_figure(spec_tree) -> None:
    """NET006 judges the metrics `<tier>.oversubscription` and the bisection: none where they are withheld (oversub41).

    The same requirements, out of reach of any 1:1 fabric, fail the sized fabric on every tier and its bisection;
    the infeasible one says only its errors, not a ratio or bisection counted on ports its spines do not have.
    """
    need = 'oversubscription: "1:1"\n  max_oversubscription: "1:4"\n  min_bisection_per_accelerator: 100 Tb/s'
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace('oversubscription: "1:1"', need)
    sized = [f.message for f in run([spec_tree(tree)]).findings if f.id == "NET006"]
    assert len(sized) == 3 and sum("oversubscription as used" in m for m in sized) == 2   # leaf, spine; bisection
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("leaf: {rack: net}", "leaf: {rack: net, count: 2}")
    r = run([spec_tree(tree)])
    assert "NET018" in {f.id for f in r.findings} and not [f for f in r.findings if f.id == "NET006"]


def test_checks_say_nothing_of_a_figure_withheld(spec_tree, monkeypatch) -> None:
    """NET031, NET034 and NET027 judge no wiring an infeasible topology withheld (infeasraw42).

    The half-SU rail plane, its bisection cut over the even share (as past `SEARCH_LIMIT`), sized by the model: its
    partial last pod cabled as full (NET031, which quotes the spines' oversubscription) and its even-share bisection
    (NET034). Its leaves fixed at 28 of the 32 the endpoints need (NET018): neither, each counted on those leaves'
    links; fixed at 2: not "3 tiers over one pod" either (NET027), one pod of leaves that cannot hold the endpoints.
    """
    from tests.test_rail_leaf_loads import _with_half_su
    monkeypatch.setattr("archgen.analyse.leaf_loads.SEARCH_LIMIT", 0)
    tree = _with_half_su(1, 2, "sw8", "3:1")
    sized = {f.id for f in run([spec_tree(tree)]).findings}
    assert {"NET031", "NET034"} <= sized and not {"NET018", "NET027"} & sized
    for leaves, quiet in ((28, {"NET031", "NET034"}), (2, {"NET027", "NET034"})):
        tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], leaves)
        r = run([spec_tree(tree)])
        fa = r.clusters["cluster/c"].fabrics[0]
        assert fa.even_share and "NET018" in {f.id for f in r.findings}   # the model's figures are still there
        assert not quiet & {f.id for f in r.findings}, leaves


def test_net021_and_cab008_judge_no_tier_withheld(spec_tree, monkeypatch) -> None:
    """NET021 and CAB008 judge no tier's ports or links that an infeasible topology withheld (infeastail42).

    Cores fixed at 8 over 2 leaves fixed where the endpoints need 16 (NET018): "8 core switches use 8 of their 64
    ports (12.5%), under a quarter" and "8 of 8 switch pairs" of spine_core on copper holding one link each counted
    links on a wiring that cannot be built. Sized by the model, 16 cores use 64 of 128 ports: at a share raised to
    60 % for the test they are weighed, and their spine-core pairs are judged, so both checks read those tiers.
    """
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False)
    text = tree["clusters/c.yaml"]
    tree["clusters/c.yaml"] = text.replace("core: {rack: net}", "core: {rack: net, count: 16}")
    monkeypatch.setattr("archgen.checks.proportion.PORT_SHARE", 0.6)
    sized = run([spec_tree(tree)]).findings
    assert [f.message.split(" (")[0] for f in sized if f.id == "NET021"] == ["16 core switches use 64 of their 128 ports"]
    assert any(f.id == "CAB008" and f.message.startswith("spine_core:") for f in sized)
    monkeypatch.undo()
    tree["clusters/c.yaml"] = _fixed_leaves(text.replace("core: {rack: net}", "core: {rack: net, count: 8}"), 2)
    r = run([spec_tree(tree)])
    assert "core" in withheld_tiers(r.clusters["cluster/c"].fabrics[0]) and "NET018" in {f.id for f in r.findings}
    assert not [f for f in r.findings if f.id in ("NET021", "CAB008")]


def _fixed_leaves(text: str, count: int) -> str:
    """Cluster `text` with its leaf count fixed at `count` (per plane), whatever it fixed before."""
    import re
    return re.sub(r"leaf: \{rack: net(, count: \d+)?\}", f"leaf: {{rack: net, count: {count}}}", text)


#: A training job on the small cluster's 64 GPUs, a SHALL of its own and a SHOULD a Requirements document puts on it.
WORKLOAD = {"models.yaml": "kind: Model\nid: gpt-1.3b\nsource: Narayanan et al., SC21, Table 1\nlayers: 24\n"
                           "hidden: 2048\nheads: 16\nffn: 8192\nvocab: 51200\n",
            "w.yaml": "kind: Workload\nid: w\nmodel: gpt-1.3b\ncluster: c\naccelerators: 64\ntraining:\n"
                      "  seq_len: 2048\n  global_batch: 512\n  precision: bf16\nrequirements:\n"
                      "- {id: W-MFU, statement: MFU, metric: mfu, target: '>= 1 %', level: shall}\n---\n"
                      "kind: Requirements\nid: reqs\nrequirements:\n- {id: R-TPS, statement: Speed, subject: workload/w,"
                      " metric: tokens_per_second, target: '>= 1 1/s', level: should}\n"}
WHY = ("its traffic between scale-up domains runs on fabric f, whose topology is infeasible (NET018): its "
       "figures of tier(s) leaf, spine, core would count links on ports its switches do not have")
#: Why a job across its scale-up domains is refused: the path's reason, and that its layout was not looked at.
REFUSED = f"{WHY}; its layout was not searched or checked"


def test_no_workload_is_estimated_on_an_infeasible_fabric(spec_tree) -> None:
    """The performance model reads the fabric's taper and non-blocking pod, counted on ports the switches lack: no
    job across scale-up domains is estimated on them (`ScaleOutPath.withheld`, `estimate_hardware`), and every figure
    of the job, and each requirement on one, is not provided with why. The NET018 error stands alone: no PERF003 says
    it again. A job inside one domain meets no fabric and is estimated.
    """
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False) | WORKLOAD
    sized = run([spec_tree(tree)])
    assert sized.clusters["cluster/c"].scale_out.withheld == ""
    assert sized.workloads["workload/w"].estimate is not None and sized.metrics["workload/w"]["mfu"].m > 0.01
    assert {j.bound.req.id: j.outcome.status.value for j in sized.requirements} == {"W-MFU": "met", "R-TPS": "met"}
    tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], 2)
    r = run([spec_tree(tree)])
    assert r.clusters["cluster/c"].scale_out.withheld == WHY
    result = r.workloads["workload/w"]
    # the fabric comes with the refusal as data (`WorkloadError.fabric`): its words are not the path's (REFUSED)
    assert result.estimate is None and result.refused_by == FABRIC and result.error == REFUSED != WHY
    assert r.metrics["workload/w"] == {} and r.operations.withheld["workload/w"]["mfu"] == \
        f"the job cannot be estimated: {REFUSED}"
    ids = [(f.id, f.severity) for f in r.findings if f.object == "workload/w"]
    assert ("REQ002", "error") in ids and ("REQ002", "warning") in ids and "PERF003" not in dict(ids)
    notes = {j.bound.req.id: (j.outcome.status.value, j.outcome.note) for j in r.requirements}
    assert notes == {"W-MFU": ("not provided", f"the job cannot be estimated: {REFUSED}"),
                     "R-TPS": ("not provided", f"workload/w's tokens_per_second is not provided: the job cannot "
                               f"be estimated: {REFUSED}")}
    tree["w.yaml"] = tree["w.yaml"].replace("accelerators: 64", "accelerators: 8")   # one DGX: one domain, no fabric
    alone = run([spec_tree(tree)])
    assert alone.workloads["workload/w"].estimate is not None and "mfu" in alone.metrics["workload/w"]


def test_estimate_refuses_an_infeasible_fabric(spec_tree) -> None:
    """`archgen estimate` says why, at the workload's line, instead of a step time on the impossible taper."""
    from archgen.commands.estimate import run as estimate
    from archgen.errors import WorkloadError
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False) | WORKLOAD
    text, code = estimate(None, None, "w", [spec_tree(tree)])
    assert code == 0 and "mfu" in text
    tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], 2)
    with pytest.raises(WorkloadError) as err:
        estimate(None, None, "w", [spec_tree(tree)])
    assert err.value.reason == REFUSED and err.value.fabric == FABRIC and err.value.location is not None and err.value.location.line == 6


def test_the_refusal_says_each_thing_once_and_that_the_job_took_the_cluster(spec_tree) -> None:
    """A REQ002 on a refused job names the fabric and the job once (review62: twice and three times in one line).

    Where the workload gives no accelerator count, `check` says, as `estimate` does, that it took all of the
    cluster's: a user who grows a cluster sees why a job is refused. The estimate keeps the fabric as data.
    """
    from archgen.commands.estimate import run as estimate
    from archgen.errors import WorkloadError
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False) | WORKLOAD
    tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], 2)
    tree["w.yaml"] = tree["w.yaml"].replace("accelerators: 64\n", "")
    whole = f"{REFUSED} (the workload gives no accelerator count, so it takes all 64 of cluster 'c')"
    r = run([spec_tree(tree)])
    assert r.workloads["workload/w"].error == whole and r.workloads["workload/w"].refused_by == FABRIC
    mfu = next(f for f in r.findings if f.id == "REQ002" and f.requirement == "W-MFU")
    assert mfu.message == f"W-MFU: workload/w's mfu is not provided: the job cannot be estimated: {whole}"
    assert mfu.message.count("fabric f") == 1 and mfu.message.count("w's") == 1 and "w cannot" not in mfu.message
    with pytest.raises(WorkloadError) as err:
        estimate(None, None, "w", [spec_tree(tree)])
    assert err.value.reason == whole and err.value.fabric == FABRIC


def test_a_workload_not_estimated_leaves_a_requirement_on_it_not_provided(spec_tree) -> None:
    """A job its cluster cannot run (PERF003): a Requirements document's requirement on it reads not provided, with
    why, not "unknown subject 'workload/w'" (its figures were missing, not withheld)."""
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False) | WORKLOAD
    tree["w.yaml"] = tree["w.yaml"].replace("accelerators: 64", "accelerators: 128")
    r = run([spec_tree(tree)])
    assert [f.message for f in r.findings if f.id == "PERF003"] == [
        "w cannot be estimated: asks for 128 accelerators; cluster 'c' has 64"]
    [tps] = [f for f in r.findings if f.requirement == "R-TPS"]
    assert (tps.id, tps.severity) == ("REQ002", "warning")
    assert tps.message.endswith("is not provided: the job cannot be estimated: asks for 128 accelerators; cluster 'c' has 64")


def test_diff_says_why_the_job_lost_its_figures(tmp_path) -> None:
    """`diff` of the sized fabric (BASE) against its leaves fixed too few (HEAD): every figure of the job reads "not
    provided in HEAD" with why, a class's share (`interruptions_per_day.cable`) too, and its own SHALL on MFU met →
    not provided, not "absent" (a workload not estimated kept no judgement of its own requirements in `diff`)."""
    from archgen.compare.diff import compare
    from tests.conftest import write_tree
    tree = files(racks=1, sus=2, switch="sw8", tiers=3, rail=False) | WORKLOAD
    base = run([write_tree(tmp_path / "base", tree)])
    tree["clusters/c.yaml"] = _fixed_leaves(tree["clusters/c.yaml"], 2)
    d = compare(base, run([write_tree(tmp_path / "head", tree)]))
    rows = [c for c in d.metrics if c.object == "workload/w"]
    assert {"mfu", "step_time", "interruptions_per_day.cable"} <= {c.metric for c in rows}
    assert {(c.head, c.why) for c in rows} == {(None, f"the job cannot be estimated: {REFUSED}")}
    states = {c.base.requirement: (c.base.status.value, c.head.status.value) for c in d.requirements
              if c.base is not None and c.head is not None}
    assert states == {"W-MFU": ("met", "not provided"), "R-TPS": ("met", "not provided")}
