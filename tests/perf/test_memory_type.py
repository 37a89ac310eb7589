"""A GDDR card's memory is not called HBM: `Accelerator.memory_type` in the datasheet's words words the outputs.

newuser73's trial (four-card L40S servers): the L40S's 48 GB of GDDR6 (NVIDIA L40S datasheet, "48 GB GDDR6 with ECC",
the catalog entry's source) showed as `hbm_capacity`, "HBM efficiency" and "90% of HBM", and its copy efficiency
range, the catalog's BabelStream copies of HBM parts (0.783 mi300x to 0.866 h100-sxm5-80gb), read as its own.
"""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from archgen.model.accelerator import Accelerator
from archgen.model.kv_memory import KV_RULES
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.profile_peak import memory_reserve
from archgen.perf.workload.efficiency_range import memory_name, memory_note
from archgen.perf.workload.roofline import Roofline
from archgen.render import alt_text
from archgen.render.roofline import roofline_blocks
from tests.conftest import REPO

PCIE = REPO / "tests" / "data" / "pcie"


def _part(**extra) -> Accelerator:
    return Accelerator.model_validate({"kind": "Accelerator", "id": "card", "vendor": "NVIDIA", "source": "s",
                                       "memory": "48 GiB", "memory_bandwidth": "864 GB/s",
                                       "peak": {"bf16": "362.05 TFLOPS"}, "tdp": "350 W", **extra})


def test_memory_type_defaults_to_hbm_and_takes_the_datasheet_word():
    assert _part().memory_word == "HBM"
    assert _part(memory_type="GDDR6").memory_word == "GDDR6"
    assert hardware_for(_part(memory_type="GDDR6"), scale_up_size=1).memory_type == "GDDR6"
    assert hardware_for(_part(), scale_up_size=1).memory_type == "HBM"


def test_an_unknown_memory_family_is_refused():
    with pytest.raises(ValidationError, match="expected a memory type starting with HBM, GDDR, LPDDR or DDR"):
        _part(memory_type="48 GB")


def test_a_gddr_part_is_named_by_its_memory():
    gddr = hardware_for(_part(memory_type="GDDR6"), scale_up_size=1)
    hbm = hardware_for(_part(memory_type="HBM3e"), scale_up_size=1)
    assert memory_name(gddr) == "GDDR6 memory efficiency" and memory_name(hbm) == "HBM efficiency"
    assert "GDDR6, not HBM" in memory_note(gddr) and memory_note(hbm) == ""
    vllm = KV_RULES["vllm"]
    assert "90% of HBM, less its profiling peak" in memory_reserve("HBM", vllm, 0.9, "NVIDIA")
    gddr6 = memory_reserve("GDDR6", vllm, 0.9, "NVIDIA")
    assert "90% of GDDR6, less its profiling peak" in gddr6 and "HBM" not in gddr6


def test_the_l40s_estimate_says_gddr6_and_that_its_copy_range_is_hbm_parts(cli):
    out = json.loads(cli("estimate", str(PCIE), "--workload", "l40s-serve-70b", "--format", "json").out)
    notes = " ".join(out["notes"])
    assert out["memory_type"] == "GDDR6"
    assert "HBM efficiency" not in notes
    assert ("GDDR6 memory efficiency (catalog point 0.85, range 0.783 to 0.866, of HBM parts' copies: no GDDR6 copy "
            "is measured in the catalog)") in notes
    assert "l40s's memory is GDDR6, not HBM" in notes
    # an NVIDIA part: TensorRT-LLM's share of what the weights leave (model/kv_memory.py)
    assert "90% of the GDDR6 left after its profiling peak" in out["conventions"]["memory_reserve"]
    text = cli("estimate", str(PCIE), "--workload", "l40s-serve-70b").out
    assert "hbm_capacity                 48 GiB (51.54 GB)  (GDDR6, not HBM)" in text


def test_the_roofline_names_the_memory():
    rf = Roofline("l40s", "fp8", 733e12, 513e12, 864e9, 734e9, (), {"prefill": 8192, "decode": 64}, 4, "assumed",
                  "range", "GDDR6")
    figure, _ = roofline_blocks(rf, "w")
    assert "(GDDR6 bandwidth × GDDR6 efficiency at a point of its stated range)" in figure.caption
    assert "HBM" not in figure.caption and "the GDDR6 bandwidth" in alt_text.roofline(rf)
