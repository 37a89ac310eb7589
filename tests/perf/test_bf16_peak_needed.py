"""An FP8 or FP4 job on a part with no BF16 peak is told why it needs one, at the part's line (newuser37).

Before: "accelerator 'rubin' has no bf16 peak (it has: fp4, fp8)" at the workload's line, with no reason: a part
drafted from announcements (Rubin, MI455X) states FP8 and FP4 peaks only, and a user made one up to get an estimate.
The model runs a training job's attention core and output layer in BF16 under FP8/FP4 (`kernels.training_core_dtype`)
and a serving job's logits GEMM in BF16 (`serve.inference.EMBEDDING_DTYPE`); the peak is not defaulted.
"""

from __future__ import annotations

import pytest

from archgen.commands.common import load_specs, located
from archgen.errors import AnalyseError
from archgen.model.accelerator import Accelerator
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.kernels import training_core_dtype
from archgen.perf.serve.inference import EMBEDDING_DTYPE

PART = """\
kind: Accelerator
id: fp8-only
source: test fixture
memory: 80 GB
memory_bandwidth: 3 TB/s
peak: {fp8: 2000 TFLOPS, fp4: 4000 TFLOPS}
tdp: 700 W
"""


def test_the_model_reads_bf16_under_fp8_and_fp4():
    # what the message says, from the model itself
    assert training_core_dtype("fp8") == training_core_dtype("fp4") == EMBEDDING_DTYPE == "bf16"


def test_the_error_says_why_and_what_to_state_at_the_parts_peak(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "gpu.yaml").write_text(PART, encoding="utf-8")
    specs = load_specs([tmp_path / "specs"])
    part = specs.get("fp8-only")
    assert isinstance(part, Accelerator)
    hw = hardware_for(part, scale_up_size=1)
    with pytest.raises(AnalyseError) as err, located(specs):
        hw.peak_for("bf16")
    text = str(err.value)
    assert text.startswith("accelerator 'fp8-only' has no bf16 peak (it has: fp4, fp8): FP8 and FP4 jobs need it")
    assert "the attention core and the output layer of a training job stay in BF16" in text
    assert "list `peak.bf16` under `unconfirmed:`" in text
    assert err.value.location is not None and err.value.location.line == 6   # `peak:` in gpu.yaml


def test_another_missing_peak_gets_no_bf16_reason():
    hw = hardware_for(Accelerator.model_validate({**_fields(), "peak": {"bf16": "1000 TFLOPS"}}), scale_up_size=1)
    with pytest.raises(AnalyseError, match=r"has no fp8 peak \(it has: bf16\); state `peak.fp8`") as err:
        hw.peak_for("fp8")
    assert "attention core" not in str(err.value) and err.value.subject == ("fp8-only", ("peak",))


def _fields() -> dict:
    return {"kind": "Accelerator", "id": "fp8-only", "source": "test fixture", "memory": "80 GB",
            "memory_bandwidth": "3 TB/s", "tdp": "700 W"}
