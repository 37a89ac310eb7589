"""A pod whose largest slice is smaller than the pod: its reliability figures are the slice's (nu71fix).

newuser71's trial (TPU v5p, 8,960 chips in 140 cubes, torus dims 16x16x24: the largest slice Google schedules,
6,144 chips, Google Cloud TPU v5p documentation) read "A job on all 8,960 accelerators sees 4.14 interruptions per
day, a mean time to interruption of 5.8 h", a job that cannot run; now 6,144 chips, 2.84 a day, 8.5 h. Every shipped
rate set is a GPU fleet's, and the output now says that a TPU borrows another part family's rates (`family`).
Here the shipped TPU v4 pod (64 cubes) is given a 16x16x8 torus (32 cubes) with `ocs.cubes: 64`.
"""

from __future__ import annotations

import pytest

from archgen.analyse.failure_model import Reliability
from tests.conftest import shipped_edited


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return shipped_edited(tmp_path_factory.mktemp("slice"), "clusters/tpu-v4-pod.yaml",
                          "    dims: [16, 16, 16]\n    ocs: {switch: palomar-ocs, cube: [4, 4, 4], rack: tpu-v4-ocs}",
                          "    dims: [16, 16, 8]\n    ocs: {switch: palomar-ocs, cube: [4, 4, 4], rack: tpu-v4-ocs, "
                          "cubes: 64}")


def _rel(result) -> Reliability:
    return next(r for path, r in result.operations.reliability.items() if "tpu-v4-pod" in str(path))


def test_the_figures_are_of_the_largest_slice(result):
    rel = _rel(result)
    assert (rel.accelerators, rel.largest_job, rel.job_size) == (4096, 2048, 2048)
    assert rel.largest_why == "the 'ici' torus's 16x16x8 slice"
    # interruptions of a job on 2,048 chips (its accelerators and whole nodes of 4), not on 4,096
    assert rel.metrics["interruptions_per_day"].m_as("1/day") == pytest.approx(rel.interrupts_per_day(2048))
    assert rel.interrupts_per_day(2048) < rel.interrupts_per_day(4096)
    assert rel.metrics["mtti"].m_as("h") == pytest.approx(24 / rel.interrupts_per_day(2048))


def test_a_gpu_fleets_rates_are_named_as_another_family(result):
    rel = _rel(result)
    assert "every one measured on GPU fleets, and tpu-v4 is a TPU: another part family's failure rates stand in " \
        "for its own, which no rate set gives (not provided)" in rel.borrowed, rel.borrowed
    (rel007,) = [f for f in result.findings if f.id == "REL007" and f.object == "cluster/tpu-v4-pod"]
    assert "tpu-v4 is a TPU" in rel007.message


def test_a_pod_of_one_slice_keeps_every_accelerator(shipped):
    rel = next(r for path, r in shipped.operations.reliability.items() if "tpu-v4-pod" in str(path))
    assert (rel.largest_job, rel.job_size) == (0, 4096)


def test_the_document_says_which_job(result):
    from archgen.render.operations import _job_words

    assert _job_words(_rel(result)) == ("A job on the largest slice the spec allows, 2,048 of the 4,096 accelerators "
                                        "(the 'ici' torus's 16x16x8 slice; no job runs on all of them),")
