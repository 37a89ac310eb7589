"""COOL007 in a rack mixing systems that state a rated air flow with ones that do not (newuser29 open 3).

2 DGX H100 (10.2 kW maximum and 1,105 CFM each, NVIDIA DGX H100/H200 User Guide) beside 2 HGX H200 class servers
that state no flow. The stated 2,210 CFM was compared with the air the whole rack's 40.8 kW needs: a false error,
since the HGX servers' fans move their own air. Like with like, the DGX pair's flow is compared with the DGX pair's
heat: V̇ = Q̇ / (ρ c_p ΔT) = 20.4 kW / (1.204 kg/m³ x 1006 J/(kg K) x ΔT).
"""

from __future__ import annotations

import pytest

from tests.conftest import run_specs

CFM = 0.3048 ** 3 / 60          # m³/s in one ft³/min


def _rack(delta_t: int) -> str:
    return f"""kind: Rack
id: mix
form_factor: {{standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}}
slots:
- {{at: 3, part: dgx-h100, count: 2}}
- {{at: 19, part: hgx-h200-8gpu, count: 2}}
power:
  feeds: {{count: 6, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}}
cooling:
  air: {{class: A2, delta_t: {delta_t} K}}
"""


@pytest.mark.parametrize(("delta_t", "severity"), [(20, "info"), (10, "error")])
def test_stating_systems_judged_on_their_own_heat(tmp_path, delta_t: int, severity: str) -> None:
    run = run_specs(tmp_path, {"racks/mix.yaml": _rack(delta_t)})
    (f,) = [f for f in run.findings if f.id == "COOL007"]
    needed = 2 * 10.2e3 / (1.204 * 1006 * delta_t)
    assert f.severity == severity
    assert f.value.m_as("m**3/s") == pytest.approx(2 * 1105 * CFM)
    assert f.limit.m_as("m**3/s") == pytest.approx(needed)
    assert "not judged: hgx-h200-8gpu x2" in f.message
