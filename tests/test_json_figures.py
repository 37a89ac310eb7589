"""A JSON quantity is written to 15 significant figures: no product's or conversion's float noise (servetidy42).

newuser104's estimate read tokens_per_second 15359.999999999998 for 60 requests/s x 256 tokens, where the text read
15,360; a Llama 3.1 70B FP8 server run on one DGX B200 wrote 30 of its quantities with figures past the 15th.
"""

from __future__ import annotations

import json

from archgen.quantity_json import JSON_FIGURES, json_magnitude, to_json
from archgen.units import Q_
from tests.conftest import SPECS, run_cli

SERVER = ("kind: Workload\nid: server60\nname: server at 60 requests/s\nmodel: llama3-70b\ncluster: dgx-b200-superpod\n"
          "accelerators: 8\ninference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256, scenario: server, "
          "arrival_rate: \"60 1/s\"}\n")


def _noisy(node: object, path: str = "") -> list[tuple[str, float]]:
    """Every JSON quantity under `node` whose value has figures past the 15th."""
    if isinstance(node, list):
        return [n for i, v in enumerate(node) for n in _noisy(v, f"{path}.{i}")]
    if not isinstance(node, dict):
        return []
    own = node.get("value")
    mine = [(path, own)] if "unit" in node and isinstance(own, float) and float(f"{own:.15g}") != own else []
    return mine + [n for k, v in node.items() for n in _noisy(v, f"{path}.{k}")]


def test_a_product_is_written_without_its_noise():
    rate = Q_(60 * (1 + 2 ** -52), "1/s") * 256   # a rate off by one bit, as a simulated run's mean can be
    assert json_magnitude(rate) != 15360.0 and to_json(rate) == {"value": 15360.0, "unit": "1/s"}
    assert JSON_FIGURES == 15


def test_figures_a_source_states_are_kept():
    assert to_json(Q_(1.8, "TB/s"))["value"] == 1.8e12
    assert to_json(Q_(0.1287074069631958, "s"))["value"] == 0.128707406963196   # 15 figures, the rest noise


def test_an_estimates_json_holds_no_float_noise(spec_tree):
    specs = spec_tree({"workloads/server.yaml": SERVER})
    doc = json.loads(run_cli("estimate", "--workload", "server60", "--format", "json", "--path", str(SPECS),
                             "--path", str(specs)).out)
    assert doc["metrics"]["tokens_per_second"]["value"] > 0
    assert _noisy(doc) == []
