"""Every validation error of a document in one run: a validator that checks several things reports each it finds.

Each case writes a spec with two or more independent mistakes that one validator judges (and, where the validator
runs beside the model's field checks, a field error elsewhere in the same model) and asserts that every one is
reported at its own key and line, worded as when it is alone (STYLE.md, habit 6: "the user sees every problem in one
run").
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.pipeline import run
from tests.conftest import REPO as ROOT
from tests.data.clusters import small
from tests.test_fabric_examples import DRAGONFLY, TORUS


def _problems(spec_tree, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    """{dotted path: (message, the source line it points at, stripped)} of the run's validation errors."""
    root = spec_tree(files)
    with pytest.raises(SpecError) as err:
        run([root])
    out = {}
    for p in err.value.problems:
        lines = (root / p.location.file).read_text(encoding="utf-8").splitlines() if p.location.line else []
        out[p.path] = (p.message, lines[p.location.line - 1].strip() if lines else "")
    return out


def test_fabric_keys_nothing_reads_are_all_refused_with_the_fabrics_other_errors(spec_tree) -> None:
    """`ports_per_node` and `endpoints.systems` with `endpoints.nodes: false`, `endpoints.storage` on a compute fabric,
    and a bad `terminals`: four mistakes, four errors (the first of the three stopped the others, and a field error
    elsewhere in the fabric hid them all)."""
    text = DRAGONFLY.replace("GLOBAL", "8").replace("terminals: 16", "terminals: 0") + (
        "  ports_per_node: 4\n"
        "  endpoints: {nodes: false, extra: 8, storage: 4,\n"
        "    systems: [dgx-h100]}\n")
    found = _problems(spec_tree, {"clusters/d.yaml": text})
    assert set(found) == {"fabrics.0.terminals", "fabrics.0.ports_per_node", "fabrics.0.endpoints.storage",
                          "fabrics.0.endpoints.systems"}
    assert found["fabrics.0.ports_per_node"] == (
        "ports_per_node 4 given, but endpoints.nodes is false, so no node attaches: leave ports_per_node out, or "
        "attach the nodes", "ports_per_node: 4")
    assert found["fabrics.0.endpoints.storage"] == (
        "endpoints.storage 4 given on a fabric of role 'compute', which carries no checkpoint storage: leave it out, "
        "or give it on the storage (or converged) fabric (storage reached over the compute fabric, e.g. Lustre on "
        "InfiniBand, is written as that fabric with `role: converged` and `nic_role: compute`: it carries the "
        "scale-out traffic where the cluster has no compute fabric, and the checkpoints where it has no storage "
        "fabric; docs/clusters.md)", "endpoints: {nodes: false, extra: 8, storage: 4,")
    assert found["fabrics.0.endpoints.systems"] == (
        "endpoints.systems ['dgx-h100'] given, but endpoints.nodes is false, so no node attaches: leave systems out, "
        "or attach the nodes", "systems: [dgx-h100]}")
    assert found["fabrics.0.terminals"][1] == "terminals: 0"


def test_dragonfly_without_global_or_pair_links_is_refused_with_the_fabrics_other_errors(spec_tree) -> None:
    """Neither `global_links` nor `pair_links`, and a bad `group_size`: both reported (the model validator that
    asked for the links ran only once every field had passed)."""
    text = DRAGONFLY.replace("  global_links: GLOBAL\n", "").replace("group_size: 8", "group_size: 0")
    found = _problems(spec_tree, {"clusters/d.yaml": text})
    assert set(found) == {"fabrics.0.group_size", "fabrics.0.global_links"}
    assert found["fabrics.0.global_links"][0] == "give global_links (per router), pair_links (per pair of groups), " \
                                                 "or both"
    assert found["fabrics.0.group_size"][1] == "group_size: 0"
    assert found["fabrics.0.global_links"][1] == "- id: df"   # a key left out: the fabric that lacks it


def test_every_ocs_cube_side_that_does_not_tile_the_torus_is_refused(spec_tree) -> None:
    """Cube sides 4 of torus sides 6 and 10, and a bad `links_per_neighbour`: three errors in one run (the first
    side stopped the second, and a field error elsewhere in the fabric hid both)."""
    text = TORUS.replace("dims: [4, 0, 4]", "dims: [6, 10, 4]\n  links_per_neighbour: 0\n"
                         "  ocs: {switch: palomar-ocs, cube: [4, 4, 4]}")
    found = _problems(spec_tree, {"clusters/t.yaml": text})
    assert set(found) == {"fabrics.0.links_per_neighbour", "fabrics.0.ocs.cube.0", "fabrics.0.ocs.cube.1"}
    assert found["fabrics.0.ocs.cube.0"] == ("cube side 4 does not divide dimension 0 of the torus (6): give a "
                                             "divisor of 6", "ocs: {switch: palomar-ocs, cube: [4, 4, 4]}")
    assert found["fabrics.0.ocs.cube.1"][0] == "cube side 4 does not divide dimension 1 of the torus (10): give a " \
                                               "divisor of 10"
    assert found["fabrics.0.links_per_neighbour"][1] == "links_per_neighbour: 0"


def test_links_and_tier_keys_a_one_tier_fat_tree_does_not_build_are_all_refused(spec_tree) -> None:
    """On a 1-tier fabric: `links.leaf_spine` and `links.spine_core` (no tier to link), and `leaf.count` and
    `leaf.uplinks` (one switch per plane, with nothing above it): four errors, where each validator stopped at its
    first."""
    tree = small.files(tiers=1)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(
        "  leaf: {rack: net}\n", "  leaf: {rack: net, count: 4,\n    uplinks: 8}\n").replace(
        "smf-800g-dr8]\n", "smf-800g-dr8]\n    leaf_spine: [mmf-800g-sr8]\n    spine_core: [mmf-800g-sr8]\n")
    found = _problems(spec_tree, tree)
    assert set(found) == {"fabrics.0.links.leaf_spine", "fabrics.0.links.spine_core", "fabrics.0.leaf.count",
                          "fabrics.0.leaf.uplinks"}
    assert found["fabrics.0.links.leaf_spine"] == ("links.leaf_spine given, but a 1-tier fabric has no spine tier to "
                                                   "link: leave links.leaf_spine out, or set tiers: 2",
                                                   "leaf_spine: [mmf-800g-sr8]")
    assert found["fabrics.0.links.spine_core"][1] == "spine_core: [mmf-800g-sr8]"
    assert found["fabrics.0.leaf.count"] == ("4 leaves given, but a 1-tier fabric is one switch per plane: leave "
                                             "leaf.count out (or 1), or set tiers: 2 to join several leaves",
                                             "leaf: {rack: net, count: 4,")
    assert found["fabrics.0.leaf.uplinks"][1] == "uplinks: 8}"


def test_control_plane_names_and_converged_storage_ports_are_all_refused(spec_tree) -> None:
    """Two control-plane fabrics and a rack the cluster does not have, and `endpoints.storage` on two converged
    fabrics beside a storage fabric: five errors from the cluster's two checks (the first of either stopped its
    others, and the control plane's hid the storage's)."""
    tree = small.files()
    fabric = ("- id: {id}\n  topology: fat-tree\n  role: {role}\n  speed: 400 Gb/s\n  switch: qm9700\n"
              "  endpoints: {{nodes: false, extra: 8{storage}}}\n")
    tree["clusters/c.yaml"] += (
        fabric.format(id="st", role="storage", storage="")
        + fabric.format(id="cv1", role="converged", storage=", storage: 4")
        + fabric.format(id="cv2", role="converged", storage=", storage: 2")
        + "control_plane:\n  groups:\n"
          "  - {role: head nodes, rack: mgmt, fabrics: [f, oob]}\n"
          "  - {role: UFM, fabrics: [ib]}\n")
    found = _problems(spec_tree, tree)
    assert set(found) == {"control_plane.groups.0.fabrics.1", "control_plane.groups.0.rack",
                          "control_plane.groups.1.fabrics.0", "fabrics.2.endpoints.storage",
                          "fabrics.3.endpoints.storage"}
    assert found["control_plane.groups.0.fabrics.1"] == (
        "'oob' is not a fabric of this cluster (one of: cv1, cv2, f, st)",
        "- {role: head nodes, rack: mgmt, fabrics: [f, oob]}")
    assert found["control_plane.groups.0.rack"][0] == "'mgmt' is not a rack type placed by this cluster's units or " \
                                                      "layout (one of: c4, net)"
    assert found["control_plane.groups.1.fabrics.0"][1] == "- {role: UFM, fabrics: [ib]}"
    assert found["fabrics.2.endpoints.storage"] == (
        "endpoints.storage 4 given on converged fabric 'cv1', but checkpoints are written over the storage fabric "
        "'st', so it would not be read: state the storage's ports on that fabric, or leave this out",
        "endpoints: {nodes: false, extra: 8, storage: 4}")
    assert found["fabrics.3.endpoints.storage"][1] == "endpoints: {nodes: false, extra: 8, storage: 2}"


def test_every_efficiency_range_that_does_not_hold_its_point_is_refused(spec_tree) -> None:
    """Two GEMM ranges and the HBM range that miss their points: three errors, each at its range (they were one
    unlocated error about the first, at the accelerator's `efficiency`)."""
    text = (ROOT / "specs" / "catalog" / "accelerators" / "a100-sxm4-80gb.yaml").read_text(encoding="utf-8")
    text = text.replace("gemm_range: {fp16: [0.859, 0.869], bf16: [0.859, 0.869], tf32: [0.511, 0.859]}",
                        "gemm_range: {fp16: [0.9, 0.95], bf16: [0.859, 0.869], tf32: [0.511, 0.6]}\n"
                        "  hbm_range: [0.5, 0.7]")
    found = _problems(spec_tree, {"accelerators/a.yaml": text})
    assert set(found) == {"efficiency.gemm_range.fp16", "efficiency.gemm_range.tf32", "efficiency.hbm_range"}
    assert found["efficiency.gemm_range.fp16"][0] == "gemm_range.fp16 [0.9, 0.95] must lie in (0, 1] and hold " \
                                                     "gemm.fp16 (0.859)"
    assert found["efficiency.gemm_range.tf32"][1].startswith("gemm_range: {fp16: [0.9, 0.95]")
    assert found["efficiency.hbm_range"] == ("hbm_range [0.5, 0.7] must lie in (0, 1] and hold hbm (0.79)",
                                             "hbm_range: [0.5, 0.7]")


def test_a_range_without_its_point_names_the_key_to_set(spec_tree) -> None:
    """A range stated without its point says which key is missing, not Python's None (review63: "... hold
    gemm_k_fixed_steps (None)"), for the GEMM ranges per data type and the K-loop steps alike."""
    text = (ROOT / "specs" / "catalog" / "accelerators" / "h100-sxm5-80gb.yaml").read_text(encoding="utf-8")
    assert "  gemm_k_fixed_steps: 5.35\n" in text
    text = text.replace("  gemm_k_fixed_steps: 5.35\n", "  gemm_range: {fp64: [0.5, 0.6]}\n")
    found = _problems(spec_tree, {"accelerators/a.yaml": text})
    assert set(found) == {"efficiency.gemm_k_fixed_steps_range", "efficiency.gemm_range.fp64"}
    assert found["efficiency.gemm_k_fixed_steps_range"][0] == (
        "gemm_k_fixed_steps_range [1.33, 5.98] is given without gemm_k_fixed_steps, the point estimates use: "
        "expected gemm_k_fixed_steps set to a figure inside the range, or no gemm_k_fixed_steps_range")
    assert found["efficiency.gemm_range.fp64"][0].startswith("gemm_range.fp64 [0.5, 0.6] is given without gemm.fp64,")
    assert all("None" not in words for words, _ in found.values())
