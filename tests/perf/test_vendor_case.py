"""One reading of an accelerator's `vendor` for every rule keyed on it (review of this session's merges).

`is_nvidia` (CAT008, the generation and stack notes) compared the vendor without case, while RCCL's tuning model
(`perf.comm.rccl.uses_rccl`), the collective library named in notes and curves (`COLLECTIVE_LIBRARY`), the HybridEP/TP
overlap notes (`nvidia_only`) and the default stack (`VENDOR_STACKS`) compared it exactly: a part stating
`vendor: amd` got NCCL's tuning model and nemo-2025, one stating `Nvidia` was flagged as NVIDIA by CAT008 yet had its
curve named "collective-tests". The part's `vendor` is now read as NVIDIA or AMD whatever its case.
"""

from __future__ import annotations

import pytest

from archgen.model.accelerator import AMD, NVIDIA, Accelerator
from archgen.model.stack_profiles import vendor_stack
from archgen.perf.comm.rccl import uses_rccl
from archgen.perf.workload.cluster import COLLECTIVE_LIBRARY


def _part(vendor: str) -> Accelerator:
    return Accelerator.model_validate({
        "kind": "Accelerator", "id": "draft", "vendor": vendor, "source": "test", "memory": "288 GB",
        "memory_bandwidth": "8 TB/s", "peak": {"bf16": "2500 TFLOPS"}, "tdp": "1400 W"})


@pytest.mark.parametrize(("stated", "read"), [("amd", AMD), (" Amd ", AMD), ("Nvidia", NVIDIA), ("NVIDIA", NVIDIA),
                                              ("Google", "Google")])
def test_the_vendor_is_read_as_the_rules_key_it(stated, read):
    assert _part(stated).vendor == read


def test_a_lower_case_amd_part_takes_rccl_and_primus():
    vendor = _part("amd").vendor
    assert uses_rccl(vendor, 0.0)
    assert COLLECTIVE_LIBRARY[vendor] == "RCCL"
    assert vendor_stack(vendor) == "primus-2025"
