"""A cluster whose power rests on unconfirmed part figures says so (PWR012), as COST003 says so of assumed prices.

newuser8's trial (tests/data/trn2): AWS publishes no Trainium2 chip power nor a trn2.48xlarge maximum draw, so the
vendor stated 500 W and 12 kW and listed them under `unconfirmed:`; the IT power, the PWR checks, the energy cost
and a sweep's energy per token rested on them with no finding in `archgen check` (only the documents' parts table
tagged the parts "assumed").
"""

from __future__ import annotations

from tests.conftest import REPO, SPECS, run_cli

TRN2 = REPO / "tests" / "data" / "trn2"


def test_check_names_the_unconfirmed_power_figures_of_the_trial():
    out = run_cli("check", str(SPECS), str(TRN2), "--select", "PWR012").out
    [line] = [ln for ln in out.splitlines() if "cluster/trn2-pod" in ln]
    assert ": info: PWR012 cluster/trn2-pod: IT power, energy and their cost rest on unconfirmed figures: " in line
    assert "trn2-48xlarge power.max (16 placed, NICs included)" in line and "trainium2 tdp (fitted in trn2-48xlarge)" in line


def test_a_waiver_accepts_them_knowingly(tmp_path):
    text = (TRN2 / "cluster.yaml").read_text(encoding="utf-8").replace(
        "waivers:\n", "waivers:\n  - {check: PWR012, subject: cluster/trn2-pod, reason: vendor datasheet pending}\n")
    for f in TRN2.iterdir():
        (tmp_path / f.name).write_text(text if f.name == "cluster.yaml" else f.read_text(encoding="utf-8"),
                                       encoding="utf-8")
    out = run_cli("check", str(SPECS), str(tmp_path), "--select", "PWR012").out
    assert "PWR012 cluster/trn2-pod" not in out


def test_a_link_parts_unconfirmed_power_per_end_is_named_with_the_count_it_adds(shipped, example):
    """newuser26: 48,384 smf-1.6t-2xdr4 at a 25 W placeholder put 1.21 MW into IT power, and PWR012 named none.

    The count named is the BOM's, less the modules drawing inside a node's maximum (`BomLine.in_parent`), since
    only those outside add their `power_per_end` to the IT power.
    """
    for run, path, part in ((example, "cluster/gb300-nvl72-su", "smf-1.6t-2xdr4"),
                            (shipped, "cluster/dgx-b200-superpod", "mmf-100g-sr4")):
        [line] = [ln for ln in run.clusters[path].cabling.bom if ln.part == part]
        inside = f", {line.in_parent} more inside a node's maximum" if line.in_parent else ""
        [f] = [f for f in run.findings if f.id == "PWR012" and f.object == path]
        assert f"{part} power_per_end ({line.quantity - line.in_parent} transceivers{inside})" in f.message
    [line] = [ln for ln in example.clusters["cluster/gb300-nvl72-su"].cabling.bom if ln.part == "smf-800g-dr4-rhs"]
    assert line.in_parent == line.quantity    # all in gb300-compute-tray's maximum: its figure adds nothing
    assert "smf-800g-dr4-rhs" not in next(f.message for f in example.findings if f.id == "PWR012")
