"""The document's fit sentence says where in the memory's allocator range the job fits (newuser102).

memband41 gave a training job's memory a range, from no allocator waste (the model's figure) to the most a published
measurement found (43 % of the memory PyTorch's caching allocator reserves holding no tensor, arXiv:2507.16274). The
DGX B200 SuperPOD document still read "Fits in accelerator memory." over its searched layout's 0.035 GB of 193.3 GB
left, while the Band column beside it gave memory_headroom -144.4 GB to 0.035 GB: a partner read both as true with
nothing between them. The fit (PERF002, the layout search) stays at the model's figure; the sentence now says so and
what the range's high end needs.
"""

from __future__ import annotations

from types import SimpleNamespace

from archgen.perf.hw.reserve import memory_ends
from archgen.render.blocks import Para
from archgen.render.performance import fits_text, section
from archgen.units import Q_

GB = 1e9


def _estimate(total: float, reserve: float, capacity: float, fits: bool = True) -> SimpleNamespace:
    ends = memory_ends(total, reserve, capacity) | {"memory_per_gpu": total, "memory_headroom": capacity - total}
    return SimpleNamespace(fits=fits, metrics={k: Q_(v, "B") for k, v in ends.items()})


def test_a_layout_that_fits_only_at_the_model_figure_says_what_the_high_end_needs():
    """100 GB, 2 GB of it the runtime's, on 150 GB: the high end is 2 + 98 / 0.57 = 173.9 GB, 23.9 GB over."""
    text = fits_text(_estimate(100 * GB, 2 * GB, 150 * GB))
    assert text.startswith(" Fits in accelerator memory at the model's figure, 100 GB with 50 GB left; ")
    assert "not at its range's high end, 173.9 GB with the most allocator waste a published measurement found " \
           "(43% of the memory it reserves holding no tensor), 23.93 GB over" in text


def test_a_layout_with_room_for_the_waste_fits_at_both_ends():
    text = fits_text(_estimate(100 * GB, 2 * GB, 193 * GB))
    assert text == (" Fits in accelerator memory at both ends of its range, 173.9 GB with the most allocator waste a "
                    "published measurement found (43% of the memory it reserves holding no tensor) included.")


def test_no_range_and_no_fit_read_as_before():
    serving = SimpleNamespace(fits=True, metrics={"memory_per_gpu": Q_(80 * GB, "B"),
                                                  "memory_headroom": Q_(100 * GB, "B")})
    assert fits_text(serving) == " Fits in accelerator memory."
    assert fits_text(_estimate(200 * GB, 2 * GB, 150 * GB, fits=False)) == " Does not fit in accelerator memory."


def test_the_shipped_b200_job_searched_to_the_brim_says_it(shipped):
    r = shipped.workloads["workload/llama3-70b-pretrain-b200"]
    texts = [b.text for sub in section([r]).sections for b in sub.blocks if isinstance(b, Para)]
    (line,) = [t for t in texts if t.startswith("Training on 512")]
    assert "Fits in accelerator memory at the model's figure, 193.2 GB with 0.03516 GB left; not at its range's " \
           "high end, 337.7 GB" in line
    assert "144.4 GB over" in line


def test_estimate_prints_the_documents_fit_sentence(shipped):
    """`archgen estimate`'s text gives the document's sentence as one line under the layout (memfit41): the shipped
    B200 job's 193.2 GB at the model's figure is 1.776 + (193.24 - 1.776) / 0.57 = 337.7 GB at the high end, 144.4 GB
    over the B200's 193.27 GB; one function writes both (`render.fits.fits_text`)."""
    from archgen.output.estimate import estimate_text

    r = shipped.workloads["workload/llama3-70b-pretrain-b200"]
    lines = estimate_text(r.estimate).splitlines()
    assert lines[1].startswith("layout: tp=1, pp=2, dp=256")
    assert lines[2] == fits_text(r.estimate).strip()
    assert lines[2].startswith("Fits in accelerator memory at the model's figure, 193.2 GB with 0.03516 GB left; not "
                               "at its range's high end, 337.7 GB with the most allocator waste")
    assert "144.4 GB over" in lines[2]
    texts = [b.text for sub in section([r]).sections for b in sub.blocks if isinstance(b, Para)]
    assert any(lines[2] in t for t in texts)   # the document's, word for word


def test_estimate_says_a_layout_kept_within_a_margin_fits_at_both_ends(cli, spec_tree):
    """`memory_headroom >= 0 GB` keeps the layout that fits at the high end (memfit41): tp 2, ZeRO-3, 99.98 GB at the
    model's figure, 1.776 + (99.98 - 1.776) / 0.57 = 174.1 GB at the high end; a serving job has no range."""
    from tests.conftest import SPECS

    root = spec_tree({"w.yaml": """\
kind: Workload
id: l70-margin
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training: {seq_len: 8192, global_batch: 512, precision: bf16, stack: nemo-2025}
requirements:
  - {id: REQ-MEM-1, statement: Memory margin, metric: memory_headroom, target: ">= 0 GB"}
"""})
    lines = cli("estimate", SPECS, root, "--workload", "l70-margin").out.splitlines()
    assert lines[2] == ("Fits in accelerator memory at both ends of its range, 174.1 GB with the most allocator waste "
                        "a published measurement found (43% of the memory it reserves holding no tensor) included.")
    serve = cli("estimate", SPECS, "--workload", "llama3-70b-serve-gb200").out.splitlines()
    assert "Fits in accelerator memory." in serve
