"""CAT013 and CAT014 (checks/catalog_bounds.py): the shipped catalog passes both, and CAT014's bound is the catalog's."""

from __future__ import annotations

from archgen.checks.catalog_bounds import LEAD_FACTOR, _beyond_catalog, _figures, _largest, _peak_order
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q
from tests.conftest import run_specs


def test_every_shipped_accelerator_keeps_its_peaks_ordered_and_within_the_bound():
    """The rule CAT013 states is the catalog's: no shipped part breaks it (nor, trivially, CAT014's bound)."""
    parts = tuple(sorted(load_accelerators().values(), key=lambda a: a.id))
    assert len(parts) >= 10
    largest = _largest(parts)
    assert {a.id: [v.message for v in (*_peak_order(a), *_beyond_catalog(a, largest))] for a in parts} == {
        a.id: [] for a in parts}


def test_a_replaced_entry_is_judged_against_the_rest_of_the_catalog(tmp_path):
    """A spec document replacing b200-sxm-180gb is not part of the bound it is judged by: the first other part with
    the catalog's largest memory bandwidth (8 TB/s) is named, and `Specs.library` leaves the replaced id out."""
    doc = ("kind: Accelerator\nid: b200-sxm-180gb\nvendor: NVIDIA\nsource: a typo\nmemory: 180 GiB\n"
           "memory_bandwidth: 81 TB/s\npeak: {bf16: 2250 TFLOPS}\ntdp: 1000 W\ncompute_capability: 10.0\n")
    run = run_specs(tmp_path, {"b200.yaml": doc})
    assert "b200-sxm-180gb" not in run.specs.library and "gb200" in run.specs.library
    (found,) = [f for f in run.findings if f.id == "CAT014"]
    assert found.message.startswith("memory bandwidth 81 TB/s is 10.1x the catalog's largest, 8 TB/s (gb200)")
    assert LEAD_FACTOR == 10 and found.limit is not None and found.limit.to("TB/s").magnitude == 80


def test_exactly_ten_times_the_largest_passes_and_just_past_it_reads_past_it():
    """The bound is 'past 10x': a figure of exactly ten times the largest passes whatever its floating-point quotient
    (41 / 4.1 TB/s is 10.000000000000002), and one just past it prints the decimals that show it is past (10.002x,
    not 10.0x); at 100 or more the ratio is whole."""
    part = load_accelerators()["b200-sxm-180gb"]

    def found(top: str, mine: str) -> list[str]:
        p = part.model_copy(update={"memory_bandwidth": Q(mine)})
        largest = tuple((fig, Q(top) if fig[0] == ("memory_bandwidth",) else v * 100, "ref") for fig, v in _figures(p))
        return [v.message.split(" the catalog's")[0] for v in _beyond_catalog(p, largest)]

    assert Q("41 TB/s").to_root_units().magnitude / Q("4.1 TB/s").to_root_units().magnitude > LEAD_FACTOR  # the trap
    assert found("4.1 TB/s", "41 TB/s") == [] and found("8 TB/s", "80 TB/s") == []
    assert found("4.1 TB/s", "41.01 TB/s") == ["memory bandwidth 41.01 TB/s is 10.002x"]
    assert found("8 TB/s", "80.8 TB/s") == ["memory bandwidth 80.8 TB/s is 10.1x"]
    assert found("8 TB/s", "1200 TB/s") == ["memory bandwidth 1,200 TB/s is 150x"]


def test_peaks_equal_in_other_prefixes_are_in_order():
    """An equal narrower peak is allowed (Gaudi 3's FP8 = BF16), whichever prefix each is written in: 4.1 PFLOPS is
    4,100 TFLOPS, though the two differ by one unit in the last place as floats; a peak just below is still flagged."""
    part = load_accelerators()["b200-sxm-180gb"]

    def found(fp8: str, bf16: str) -> list[str]:
        return [v.message.split(":")[0] for v in _peak_order(part.model_copy(update={"peak": {"bf16": Q(bf16),
                                                                                                "fp8": Q(fp8)}}))]

    assert Q("4.1 PFLOPS") < Q("4100 TFLOPS") and Q("2200 TFLOPS") < Q("2.2 PFLOPS")   # the trap, both ways
    for fp8, bf16 in (("4.1 PFLOPS", "4100 TFLOPS"), ("2200 TFLOPS", "2.2 PFLOPS"), ("4100 TFLOPS", "4.1 PFLOPS")):
        assert found(fp8, bf16) == [], (fp8, bf16)
    assert found("4.099 PFLOPS", "4100 TFLOPS") == ["fp8 peak 4.099 PFLOPS is below the bf16 peak, 4,100 TFLOPS"]
