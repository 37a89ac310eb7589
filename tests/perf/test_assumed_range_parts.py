"""An assumed efficiency's range names the parts its ends were measured on (newuser63).

A part that states no efficiency runs at an assumed point inside the range the shipped catalog measures
(`perf.hw.assumed_gemm`, `perf.hw.assumed_efficiency`); its estimate said "the catalog's measured fractions" and not
whose. For an NVIDIA part (Rubin, from announced figures) the fp4 range runs from B300's NVFP4 at training shapes
(0.382) to MI355X's MXFP4 (0.574): another vendor's part and format at the optimistic end, which the note now names.
"""

from __future__ import annotations

from archgen.model.accelerator import Accelerator
from archgen.perf.hw.assumed_efficiency import MEASURED_ENDS, MEASURED_RANGE
from archgen.perf.hw.assumed_gemm import MEASURED_GEMM_ENDS, MEASURED_GEMM_RANGE
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.efficiency_range import unmeasured
from archgen.scoring.catalog import load_accelerators

from .conftest import user_accelerator

USER = user_accelerator({"bf16": "900 TFLOPS", "fp4": "3600 TFLOPS"})


def _ends(figures, field: str) -> dict[str, tuple[str, str]]:
    """Per name, the ids of the shipped parts holding the lowest and the highest measured figure."""
    seen: dict[str, list[tuple[float, str]]] = {}
    for pid, acc in sorted(load_accelerators().items()):
        for name, value in figures(acc):
            if not acc.is_unconfirmed(field.format(name)):
                seen.setdefault(name, []).append((value, pid))
    return {name: (min(v)[1], max(v, key=lambda x: (x[0], x[1]))[1]) for name, v in seen.items()}


def test_the_gemm_ends_are_the_catalogs_parts():
    ends = _ends(lambda acc: acc.efficiency.gemm.items(), "efficiency.gemm.{}")
    assert set(MEASURED_GEMM_ENDS) == set(MEASURED_GEMM_RANGE)
    for dt, (lo, hi) in MEASURED_GEMM_ENDS.items():
        accs = load_accelerators()
        assert accs[lo].efficiency.gemm[dt] == MEASURED_GEMM_RANGE[dt][0], dt
        assert accs[hi].efficiency.gemm[dt] == MEASURED_GEMM_RANGE[dt][1], dt
        assert ends[dt][0] == lo or accs[ends[dt][0]].efficiency.gemm[dt] == MEASURED_GEMM_RANGE[dt][0]


def test_the_other_ends_are_the_catalogs_parts():
    accs = load_accelerators()
    for name, (lo, hi) in MEASURED_ENDS.items():
        assert float(getattr(accs[lo].efficiency, name)) == MEASURED_RANGE[name][0], name
        assert float(getattr(accs[hi].efficiency, name)) == MEASURED_RANGE[name][1], name
        assert not accs[lo].is_unconfirmed(f"efficiency.{name}") and not accs[hi].is_unconfirmed(f"efficiency.{name}")


def test_an_unmeasured_parts_note_names_whose_measurements_its_range_spans():
    hw = hardware_for(Accelerator.model_validate(USER), scale_up_size=8)
    note = unmeasured(hw, ["fp4"])
    assert ("fp4 GEMM efficiency (not measured: the part states none; assumed point 0.478, range 0.382 "
            "(b300-sxm-288gb) to 0.574 (mi355x), the catalog's measured fractions)") in note
    assert "HBM efficiency (not measured: the part states none; assumed point 0.85, range 0.783 (mi300x) to 0.866 " \
           "(h100-sxm5-80gb)" in note
