"""In-row CDU pumps on the UPS (power3, newuser35 open item 7): `feeds.cdus_on_ups` adds their draw to PWR011's load.

The PWR011 case pass_n_plus_1: two GB200 NVL72 racks, 271.3 kW at their feeds, on 2 of 3 x 150 kW UPS modules
(300 kW usable). Their in-row CDU group (the shipped 1.3 MW class part, here with a test draw of 15 kW; the shipped
part states none) is on the hall's UPS: the load is the feed power plus the CDUs the cluster buys x 15 kW, and
271.3 kW that passed becomes 301.3 kW over 300 kW.
"""

from __future__ import annotations

import pytest

from archgen.units import Q_
from tests.conftest import SPECS, case_files, run_specs

CDU = (SPECS / "catalog" / "cooling" / "in-row-cdu-1.3mw.yaml").read_text(encoding="utf-8") + "power: 15 kW\n"
ON_UPS = ("feeds: {ups: N+1, ups_units: {count: 3, capacity: 150 kW},",
          "feeds: {cdus_on_ups: true, ups: N+1, ups_units: {count: 3, capacity: 150 kW},")


def _run(tmp_path, on_ups: bool, cdu: bool):
    files = case_files("PWR011", "pass_n_plus_1")
    if on_ups:
        assert ON_UPS[0] in files["specs.yaml"]
        files["specs.yaml"] = files["specs.yaml"].replace(*ON_UPS)
    if cdu:
        files["cdu.yaml"] = CDU
    return run_specs(tmp_path, files)


def test_pumps_on_the_ups_are_in_its_load(tmp_path) -> None:
    off = _run(tmp_path / "off", on_ups=False, cdu=True)
    assert not [f for f in off.findings if f.id == "PWR011"]          # 271.3 kW within 300 kW, pumps not counted
    on = _run(tmp_path / "on", on_ups=True, cdu=True)
    m = on.metrics["cluster/c"]
    load = m["it_power"] + m["cdu_power"]
    assert m["cdu_power"] == Q_(2 * 15, "kW")      # two CDUs of the group bought (test_cdu_power), 15 kW each
    [f] = [f for f in on.findings if f.id == "PWR011"]
    # 271.3 + 30.0 = 301.3 kW over 2 x 150 kW: pass -> error
    assert f.severity == "error" and f.value.m_as("kW") == pytest.approx(load.m_as("kW"))
    assert f.limit == Q_(300, "kW") and "the in-row CDUs' pumps (30.0 kW, on the UPS)" in f.message


def test_pumps_on_the_ups_without_a_stated_draw_are_named(tmp_path) -> None:
    run = _run(tmp_path, on_ups=True, cdu=False)
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "info" and "states no `power`" in f.message and "optimistic" in f.message
