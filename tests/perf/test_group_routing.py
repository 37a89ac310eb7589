"""Group-limited (node-limited) MoE routing: the domains a token's copies reach, and the model fields' checks.

Hand-derived: with G groups, M chosen uniformly, and a group a domain, an other domain is chosen with chance M/G and
then holds one of the token's k copies with chance 1 - (1 - 1/M)^k (copies independent, as the uniform count takes
them). DeepSeek-V3 (config.json n_group 8, topk_group 4, k 8) at EP 64 over 8 nodes: 7·(1/2)·(1 - (3/4)^8) = 3.1496
other nodes, against 7·(1 - (7/8)^8) = 4.5947 under uniform routing (newuser89's 4.59 and 3.15).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from archgen.model.workload import MoE
from archgen.perf.comm.dispatcher import kernel_times
from archgen.perf.comm.group_routing import domains_hit, remote_domains
from archgen.perf.train.experts import permute_h


def test_deepseek_v3_node_limited_dispatch_reaches_fewer_nodes():
    assert remote_domains(8, 8) == pytest.approx(7 * (1 - (7 / 8) ** 8))  # 4.5947
    assert remote_domains(8, 8, 8, 4) == pytest.approx(7 * 0.5 * (1 - 0.75 ** 8))  # 3.1496
    assert remote_domains(8, 8, 8, 4) == pytest.approx(3.1496, abs=1e-4)
    assert domains_hit(8, 8, 8, 4) <= 4.0  # at most M nodes in all


def test_no_limit_is_the_uniform_count():
    d = np.array([1.0, 2.0, 8.0, 64.0])
    assert np.allclose(domains_hit(8, d, 8, 8), d * (1 - (1 - 1 / d) ** 8))  # M = G: every expert a candidate
    assert np.allclose(domains_hit(8, d), d * (1 - (1 - 1 / d) ** 8))
    assert domains_hit(8, 1.0, 8, 4) == 1.0 and remote_domains(8, 1.0, 8, 4) == 0.0


def test_groups_spanning_several_domains_and_domains_holding_several_groups():
    # 64 EP ranks, 8 groups of 8 ranks: a rank is in a chosen group with chance 1/2, then holds 1/32 of its experts
    assert domains_hit(8, 64, 8, 4) == pytest.approx(64 * 0.5 * (1 - (1 - 1 / 32) ** 8))
    # 2 nodes of 4 groups each: j of a node's 4 groups chosen (hypergeometric, 4 of 8), the node missed (1 - j/4)^8
    miss = sum(math.comb(4, j) * math.comb(4, 4 - j) / math.comb(8, 4) * (1 - j / 4) ** 8 for j in range(5))
    assert domains_hit(8, 2, 8, 4) == pytest.approx(2 * (1 - miss))
    # 3 nodes cut across 8 groups: never above the uniform count, and a scalar for a scalar
    assert isinstance(domains_hit(8, 3, 8, 4), float)
    assert domains_hit(8, 3, 8, 4) < domains_hit(8, 3)


def test_permute_and_hybridep_counts_follow_the_limit():
    assert permute_h(8, 64, "deepep", groups=(8, 4)) == pytest.approx(2 * (64 * 0.5 * (1 - (31 / 32) ** 8) + 8))
    assert permute_h(8, 64, "deepep") == pytest.approx(2 * (64 * (1 - (63 / 64) ** 8) + 8))
    plain = kernel_times(1000.0, 7168, 256, 8, 64.0, 8.0)
    limited = kernel_times(1000.0, 7168, 256, 8, 64.0, 8.0, (8, 4))
    assert all(b / a == pytest.approx(domains_hit(8, 8, 8, 4) / (8 * (1 - math.comb(224, 8) / math.comb(256, 8))))
               for a, b in zip(plain, limited, strict=True))


@pytest.mark.parametrize(("fields", "message"), [
    ({"router_num_groups": 8}, r"router_num_groups \(8\) and router_group_topk \(None\) go together"),
    ({"router_num_groups": 7, "router_group_topk": 4}, r"router_num_groups \(7\) does not divide experts \(256\)"),
    ({"router_num_groups": 8, "router_group_topk": 9}, r"router_group_topk \(9\) is larger than router_num_groups"),
    ({"router_num_groups": 64, "router_group_topk": 1}, r"router_group_topk \(1\) groups of 4 experts hold 4, fewer "
                                                        r"than top_k \(8\); expected at least 2 groups"),
    ({"router_num_groups": 16, "router_group_topk": 9}, r"router_group_topk \(9\) is larger than top_k \(8\); "
                                                        r"expected at most 8"),
])
def test_group_fields_are_checked(fields, message):
    with pytest.raises(ValueError, match=message):
        MoE(experts=256, top_k=8, expert_ffn=2048, **fields)


def test_deepseek_v3_fields_validate():
    m = MoE(experts=256, top_k=8, expert_ffn=2048, router_num_groups=8, router_group_topk=4)
    assert (m.router_num_groups, m.router_group_topk) == (8, 4)
    # each rule's edge is allowed: group_topk = top_k (one expert scores a group), = groups, and just enough experts
    for groups, group_topk in ((16, 8), (8, 8), (128, 4)):
        assert MoE(experts=256, top_k=8, expert_ffn=2048, router_num_groups=groups, router_group_topk=group_topk)


@pytest.mark.parametrize(("groups", "group_topk", "line", "message"), [
    (7, 4, 12, "router_num_groups (7) does not divide experts (256); expected a divisor"),
    (8, 9, 13, "router_group_topk (9) is larger than router_num_groups (8); expected at most 8"),
    (32, 1, 13, "router_group_topk (1) groups of 8 experts hold 8, fewer than top_k (16); expected at least 2 groups"),
    (32, 20, 13, "router_group_topk (20) is larger than top_k (16); expected at most 16"),
])
def test_a_bad_group_routing_is_refused_at_load_with_its_line(tmp_path, groups, group_topk, line, message):
    """tidy35: a model file breaking a rule of Megatron-core's group-limited routing is a validation error at the
    field's file:line, with the value and what is expected; no traceback."""
    from tests.conftest import run_cli

    path = tmp_path / "m.yaml"
    path.write_text("kind: Model\nid: m\nlayers: 4\nhidden: 1024\nheads: 8\nffn: 4096\nvocab: 32000\nmoe:\n"
                    "  experts: 256\n  top_k: 16\n  expert_ffn: 512\n"
                    f"  router_num_groups: {groups}\n  router_group_topk: {group_topk}\n", encoding="utf-8")
    result = run_cli("validate", str(path))
    assert result.code == 1 and "Traceback" not in result.out + result.err
    assert f"{path}:{line}:22: error: moe.router_" in result.err and message in result.err, result.err


def test_deepseek_v3_states_its_node_limited_routing():
    """config.json n_group 8, topk_group 4: the catalog model and the held-out run state it, and it reaches Arch."""
    import yaml

    from archgen.model.workload import Model
    from archgen.perf.hw.arch import Arch

    root = Path(__file__).resolve().parents[2]
    doc = yaml.safe_load((root / "specs" / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    arch = Arch.from_model(Model.model_validate(doc))
    assert (arch.router_groups, arch.router_group_topk) == (8, 4)
    held = yaml.safe_load((root / "tests" / "perf" / "data" / "heldout-v5.yaml").read_text(encoding="utf-8"))
    case = next(c for c in held["cases"] if c["id"] == "ho-deepseek-v3-2048xh800")
    assert (case["model"]["moe"]["router_num_groups"], case["model"]["moe"]["router_group_topk"]) == (8, 4)
