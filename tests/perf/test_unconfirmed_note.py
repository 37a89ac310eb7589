"""An estimate names the figures of its accelerator it rests on that the part lists as unconfirmed (newuser37).

A Rubin part drafted from NVIDIA's GTC 2025 / CES 2026 announcements (`unconfirmed: [peak, memory_bandwidth,
scale_up, ...]`) gave "mfu 53.64 %, band 24.27 % to 68.22 %" and "mfu_peak: dense fp8 peak of rubin: 16,600
TFLOP/s" with no word that the peak, the HBM bandwidth and the NVLink 6 bandwidth were announced figures: the band
spans the model's error and the efficiency ranges, not them. `check` says as much of a cluster's power (PWR012).
"""

from __future__ import annotations

import json
import shutil

from archgen.model.accelerator import Accelerator
from archgen.perf.workload.unconfirmed_note import unconfirmed_figures, unconfirmed_note
from tests.conftest import SPECS


def _part(unconfirmed) -> Accelerator:
    return Accelerator.model_validate({
        "kind": "Accelerator", "id": "rubin-draft", "source": "announced", "memory": "288 GB",
        "memory_bandwidth": "22 TB/s", "peak": {"bf16": "8300 TFLOPS", "fp8": "16600 TFLOPS", "fp4": "50000 TFLOPS"},
        "tdp": "1800 W", "scale_up": {"technology": "NVLink 6", "bandwidth": "1800 GB/s", "links": 18},
        "unconfirmed": unconfirmed})


def test_the_figures_a_job_reads_are_named_and_no_others():
    figures = unconfirmed_figures(_part(["peak", "memory_bandwidth", "scale_up", "tdp"]))
    # scale_up.latency is marked (under scale_up) but not stated: the defaults note names it, not this one
    assert figures == ("peak.bf16", "peak.fp8", "peak.fp4", "memory_bandwidth", "scale_up.bandwidth",
                       "scale_up.links")
    [note] = unconfirmed_note("rubin-draft", figures, "fp8")
    assert "peak.bf16, peak.fp8, memory_bandwidth, scale_up.bandwidth, scale_up.links;" in note
    assert "peak.fp4" not in note and "tdp" not in note   # an FP8 job reads no FP4 peak; power is PWR012's
    [collective] = unconfirmed_note("rubin-draft", figures, None)
    assert "scale_up.bandwidth, scale_up.links;" in collective and "peak" not in collective


def test_a_part_whose_figures_are_confirmed_gets_no_note():
    assert unconfirmed_figures(_part([])) == ()
    assert unconfirmed_note("x", unconfirmed_figures(_part(["tdp", "efficiency"])), "bf16") == []


def test_the_shipped_tpu_v4_collective_says_its_ici_figures_are_unconfirmed(cli):
    notes = json.loads(cli("estimate", str(SPECS), "--workload", "allreduce-tpu-v4-pod", "--format", "json").out)[
        "notes"]
    [note] = [n for n in notes if n.startswith("the estimate rests on figures tpu-v4 lists as unconfirmed")]
    # tpu-v4.yaml: unconfirmed [scale_up.bandwidth, scale_up.latency]; the latency has its own note
    # (`defaults_note.latency_note`), so this one leaves it out: each named once
    assert "public source): scale_up.bandwidth;" in note
    assert sum("scale_up.latency" in n for n in notes) == 1
    assert [n for n in notes if n.startswith("scale-up latency 1 us per collective step of tpu-v4")]


def test_the_mfu_peak_of_an_unconfirmed_peak_is_not_called_dense(cli, tmp_path):
    """newuser46: a Rubin drafted from NVIDIA's "1.2 EF FP8 training" (fp8 16,670 TFLOP/s, listed unconfirmed, its
    dense basis unstated) gave "mfu_peak: dense fp8 peak of rubin: 16,670 TFLOP/s", an announced figure stated as a
    datasheet's dense one. With the peak unconfirmed, the convention names it so; a confirmed peak stays "dense".
    Here the shipped B200 with its bf16 peak marked unconfirmed, and as shipped."""
    shutil.copytree(SPECS, tmp_path / "specs")
    part = tmp_path / "specs/catalog/accelerators/b200-sxm-180gb.yaml"
    text = part.read_text(encoding="utf-8")
    part.write_text(text.replace("unconfirmed: [memory_bandwidth,", "unconfirmed: [peak.bf16, memory_bandwidth,", 1),
                    encoding="utf-8")

    def mfu_peak(specs) -> str:
        out = cli("estimate", str(specs), "--workload", "llama3-70b-pretrain-b200", "--format", "json").out
        return json.loads(out)["conventions"]["mfu_peak"]

    assert mfu_peak(SPECS) == "dense bf16 peak of b200-sxm-180gb: 2,250 TFLOP/s"
    marked = mfu_peak(tmp_path / "specs")
    assert marked.startswith("bf16 peak of b200-sxm-180gb as the part lists it, unconfirmed (not confirmed dense")
    assert marked.endswith(": 2,250 TFLOP/s") and "dense bf16" not in marked


def test_the_hardware_rows_that_show_an_unconfirmed_figure_say_so(cli, tmp_path):
    """newuser46: the "hardware per accelerator" block showed a Rubin's announced "peak 35,000 TFLOP/s", "hbm_bandwidth
    22 TB/s" and "scale_up_bandwidth 1,800 GB/s" exactly as the GB300's datasheet figures, with the note naming them
    unconfirmed twenty lines above. Each row that shows such a figure now says so, in text, JSON and the document's
    table (`Estimate.hardware_mark`). The shipped B200 lists memory_bandwidth unconfirmed (8 vs 7.7 TB/s,
    docs/catalog-audit.md); its bf16 peak is confirmed."""
    run = cli("estimate", str(SPECS), "--workload", "llama3-70b-pretrain-b200")
    block = run.out[run.out.index("hardware per accelerator:\n"):run.out.index("metrics:\n")]
    assert "  hbm_bandwidth                8 TB/s  (unconfirmed: b200-sxm-180gb memory_bandwidth, not confirmed" in block
    assert "  peak                         2,250 TFLOP/s\n" in block   # confirmed: unmarked
    assert "  hbm_capacity                 " in block and block.count("(unconfirmed:") == 1
    shutil.copytree(SPECS, tmp_path / "specs")
    part = tmp_path / "specs/catalog/accelerators/b200-sxm-180gb.yaml"
    text = part.read_text(encoding="utf-8")
    part.write_text(text.replace("unconfirmed: [memory_bandwidth,", "unconfirmed: [peak.bf16, memory_bandwidth,", 1),
                    encoding="utf-8")
    doc = json.loads(cli("estimate", str(tmp_path / "specs"), "--workload", "llama3-70b-pretrain-b200", "--format",
                         "json").out)
    assert doc["hardware_unconfirmed"] == {"hbm_bandwidth": "memory_bandwidth", "peak": "peak.bf16"}
    assert doc["hardware"]["peak"] == {"value": 2.25e15, "unit": "FLOP/s"}   # the figure itself is unchanged


def test_a_misspelt_unconfirmed_field_is_refused_at_its_place(tmp_path):
    """`unconfirmed: [memory_bandwith]` (review21b) validated and marked nothing: the estimate then showed the
    announced bandwidth with no mark and no note, as a datasheet's. Each name must be a field of the part
    (`spec_paths.names_a_field`), dotted through nested models and a mapping's keys (`peak.fp8`, Dtype's values)."""
    import pytest

    from archgen.errors import ValidateError
    from archgen.model.spec_paths import names_a_field
    from tests.conftest import run_specs

    ok = ("peak", "peak.fp8", "memory_bandwidth", "scale_up.bandwidth", "efficiency.gemm.bf16", "tdp")
    assert all(names_a_field(Accelerator, name) for name in ok)
    assert not any(names_a_field(Accelerator, name) for name in ("memory_bandwith", "peak.fp9", "tdp.max", "power"))
    text = (SPECS / "catalog" / "accelerators" / "h100-sxm5-80gb.yaml").read_text(encoding="utf-8")
    text = text.replace("id: h100-sxm5-80gb", "id: draft") + "unconfirmed: [memory_bandwith, peak.fp8, peak.fp9]\n"
    with pytest.raises(ValidateError) as err:
        run_specs(tmp_path, {"draft.yaml": text})
    lines = [line for line in str(err.value).splitlines() if "unconfirmed." in line]
    assert len(lines) == 2 and "unconfirmed.0: 'memory_bandwith' is no field of Accelerator 'draft'" in lines[0]
    assert lines[0].startswith("specs/draft.yaml:") and "unconfirmed.2: 'peak.fp9'" in lines[1]
