"""Losses between the UPS output and the rack feeds (newuser70): `feeds.distribution_efficiency`, PWR011, PWR023.

The PWR011 case fail_distribution_losses: two GB200 NVL72 racks on 2 of 3 x 140 kW UPS modules (280 kW usable) with
the distribution below the UPS stated at 0.96. The UPS delivers the rack feeds' load over that efficiency, I = P / η
at each stage being the arithmetic of any lossy stage; without the key the distribution is lossless (a lower bound on
the UPS load) and PWR023 says so, never a default efficiency.
"""

from __future__ import annotations

import pytest

from archgen.units import Q_
from tests.conftest import case_files, run_specs

STATED = "distribution_efficiency: 0.96}"


def _run(tmp_path, stated: bool):
    files = case_files("PWR011", "fail_distribution_losses")
    assert STATED in files["specs.yaml"]
    if not stated:
        files["specs.yaml"] = files["specs.yaml"].replace(", " + STATED, "}")
    return run_specs(tmp_path, files)


def test_the_ups_carries_the_feeds_load_over_the_distribution_efficiency(tmp_path) -> None:
    run = _run(tmp_path, stated=True)
    m = run.metrics["cluster/c"]
    ups_load = m["it_power"] / 0.96                       # 271.3 kW / 0.96 = 282.6 kW
    assert m["ups_headroom"].m_as("kW") == pytest.approx((Q_(280, "kW") - ups_load).m_as("kW"))
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "error" and f.value.m_as("kW") == pytest.approx(ups_load.m_as("kW"))
    assert not [f for f in run.findings if f.id == "PWR023"]


def test_unstated_the_distribution_is_lossless_and_said_so(tmp_path) -> None:
    run = _run(tmp_path, stated=False)
    m = run.metrics["cluster/c"]
    assert m["ups_headroom"].m_as("kW") == pytest.approx((Q_(280, "kW") - m["it_power"]).m_as("kW"))
    assert not [f for f in run.findings if f.id == "PWR011"]       # 271.3 kW within 280 kW
    [f] = [f for f in run.findings if f.id == "PWR023"]
    assert f.severity == "info" and "lower bound" in f.message and "10 CFR 431.196" in f.message


def test_a_shared_storage_counts_once_over_the_distribution(tmp_path) -> None:
    """The PWR011 case pass_deployed_share_a_storage_over_the_distribution (review36): the hall's `ups_headroom` sums
    both clusters' UPS loads, (371.3 + 371.3) / 0.96, less the storage both state counted once, 100 kW / 0.96."""
    run = run_specs(tmp_path, case_files("PWR011", "pass_deployed_share_a_storage_over_the_distribution"))
    it = run.metrics["cluster/c"]["it_power"]
    assert it.m_as("kW") == pytest.approx(271.32 + 100, abs=0.01)
    hall = (2 * it - Q_(100, "kW")) / 0.96
    for path in ("cluster/c", "cluster/d"):
        assert run.metrics[path]["ups_headroom"].m_as("kW") == pytest.approx((Q_(672, "kW") - hall).m_as("kW"))
    assert not [f for f in run.findings if f.id == "PWR011"]
