"""A host or software rate can be read per node instead of per accelerator: a set of one's own that leaves out
`per_accelerators`.

Trial item 3 (fleet reliability engineer): field-h100-2024 counts Llama 3's host and software interruptions per
8-GPU server (`per_accelerators: 8`), so a 4-GPU GB200 tray takes half a server's rate, though a tray holds two
CPUs as an 8-GPU server does. Which reading holds for Blackwell trays is unpublished; the other one is an input: a
set with `base: field-h100-2024` that restates `host` and `software` without `per_accelerators` applies them per
unit of the class, one node (tray). On the shipped SU's 144 trays that doubles both classes.
"""

from __future__ import annotations

import pytest

from tests.conftest import shipped_edited

CLUSTER = "cluster/gb200-nvl72-su"
#: Llama 3 405B, Table 5: 46 host and 63 software interruptions in 54 days on 2,048 8-GPU servers.
SERVER_YEARS = 2048 * 54 / 365.25
PER_NODE = """kind: FailureRates
id: per-tray
base: field-h100-2024
classes:
  host: {afr: 0.1519, events: 46, basis: sourced, source: "Llama 3 Table 5, read per node (tray)"}
  software: {afr: 0.2081, events: 63, repair: 0 h, basis: sourced, source: "Llama 3 Table 5, read per node (tray)"}
"""


@pytest.fixture(scope="module")
def per_tray(tmp_path_factory):
    """The shipped specs with the GB200 SU naming the per-tray reading of the host and software rates."""
    return shipped_edited(tmp_path_factory.mktemp("pernode"), "clusters/gb200-nvl72-su.yaml",
                          "facility: hall-liquid\nstorage:", "facility: hall-liquid\nfailure_rates: per-tray\nstorage:",
                          {"per-tray.yaml": PER_NODE})


def test_a_rate_without_per_accelerators_applies_per_tray(per_tray, shipped):
    rel, before = per_tray.operations.reliability[CLUSTER], shipped.operations.reliability[CLUSTER]
    by = {c.name: c for c in rel.classes}
    was = {c.name: c for c in before.classes}
    for name, events in (("host", 46), ("software", 63)):
        assert by[name].per_day * 365.25 == pytest.approx(144 * events / SERVER_YEARS, rel=1e-3)
        assert by[name].per_day == pytest.approx(2 * was[name].per_day, rel=1e-3)
    assert rel.metrics["mtti"] < before.metrics["mtti"]
