"""`archgen estimate` claims no cost or hall energy that `archgen check` does not give (nu68fix, newuser68's item 7).

`estimate` runs no cost or energy analysis (tests/test_startup.py keeps analyse.cost out of it), so a requirement on
them is not provided there. It said "`archgen check` computes cost_per_million_tokens" for the GB300 NVL72 example,
whose parts carry no price, where `check` says "not provided: gb300-nvl72-su's capex rests on unpriced parts (...;
COST002)"; and a hall energy requirement named check where check gives none (its hall states no `cost:`). Now the cost
reason says where check computes it, and the energy reason is check's own.
"""

from __future__ import annotations

from tests.test_estimate_energy import _superpod

SERVE = """kind: Workload
id: serve-e
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 128}
requirements:
  - {id: OWN-C, statement: cost, metric: cost_per_million_tokens, target: "<= 5 USD"}
  - {id: OWN-F, statement: energy, metric: facility_energy_per_million_tokens, target: "<= 50 kWh"}
"""


def test_cost_reason_says_where_check_computes_it_and_energy_gives_checks_reason(tmp_path, cli):
    root = _superpod(tmp_path, facility=False)
    (root / "s.yaml").write_text(SERVE, encoding="utf-8")
    r = cli("estimate", "--workload", "serve-e", "--path", str(root))
    assert ("OWN-C: cost_per_million_tokens <= 5 USD: not provided (`archgen estimate` gives the performance estimate "
            "only; `archgen check` computes cost_per_million_tokens where every part on the cluster's bill of "
            "materials is priced, and otherwise names the unpriced parts (COST002))") in r.out
    assert ("OWN-F: facility_energy_per_million_tokens <= 50 kWh: not provided (`archgen estimate` gives the "
            "performance estimate only, and `archgen check` does not provide facility_energy_per_million_tokens "
            "either: cluster 'dgx-b200-superpod' names no `facility:`)") in r.out
