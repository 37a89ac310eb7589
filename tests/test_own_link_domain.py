"""An accelerator whose own scale-up link is not UALink in a UALink domain is a located CAB010 warning (nu83fix).

newuser83: MI355X platforms (Infinity Fabric / xGMI, specs/catalog/accelerators/mi355x.yaml) on UALink switches passed
`check`; only the estimate's note said the step latency was borrowed. An MI355X has no UALink port, so the domain
cannot be built as stated; where the part stands in for a UALink accelerator, a waiver says so (a warning: newuser83's
trial is such a stand-in). A domain that leaves `technology` out (the default, not a statement) and one on the part's
own link are not judged; an Ethernet scale-up domain is left to the estimate's note (no accelerator-side Ethernet
scale-up port is modelled, so the fixtures of tests/test_fabric_examples.py keep MI355X there).
"""

from __future__ import annotations

from tests.analyse.test_scale_up_racks import _text
from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK


def _cab010(tmp_path, rack: str) -> list:
    r = run_specs(tmp_path, {"c.yaml": PARTS.split("---\nkind: Rack")[0] + rack})
    return [f for f in r.findings if f.id == "CAB010" and "own scale-up link" in f.message]


def test_an_infinity_fabric_part_in_a_ualink_domain_is_refused_at_technology(tmp_path) -> None:
    (f,) = _cab010(tmp_path, RACK)
    assert f.message == (
        "a UALink domain of mi355x, whose own scale-up link is Infinity Fabric (4th gen): it has no UALink port to join "
        "the domain's switches, so the domain cannot be built of it as stated, and its `scale_up.latency` is not a "
        "UALink step: expected an accelerator whose scale-up link is UALink")
    assert f.severity == "warning"
    assert f.location is not None and f.location.line > 0


def test_a_domain_stating_no_technology_is_not_judged(tmp_path) -> None:
    assert _cab010(tmp_path, RACK.replace("technology: ualink, ", "")) == []


def test_a_part_on_its_own_link_passes(tmp_path) -> None:
    text = _text().replace("scale_up: {domain: rack,", "scale_up: {domain: rack, technology: nvlink,")
    r = run_specs(tmp_path, {"c.yaml": text})
    assert not [f for f in r.findings if f.id == "CAB010" and "own scale-up link" in f.message]
