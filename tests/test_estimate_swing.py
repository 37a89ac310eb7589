"""`archgen estimate` says how often a training job's load swings: once a step (newuser55).

A utility engineer signing a training campus's interconnection asks how far, how fast and how often its load
swings; the frequency matters because a swing at a grid or turbine-generator critical frequency can harm it
(Choukse et al., "Power Stabilization for AI Training Datacenters", arXiv:2508.14318, abstract: a
computation-heavy and a communication-heavy phase "during every iteration"). The model estimates the step time
with its band, so the swing's period and fundamental frequency are 1 / step time; the depth, the shape within a step
and the ramp rate stay not provided. Before, `estimate` said nothing of the load's dynamics.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def estimates():
    from archgen.pipeline import built, job_on_cluster
    specs, design = built(["specs"])
    return {w: job_on_cluster(specs, design, w).estimate(with_sensitivity=False)
            for w in ("llama3-70b-pretrain-b200", "llama3-70b-serve-b200")}


def test_training_estimate_gives_the_swing_period_from_its_step_time(estimates) -> None:
    est = estimates["llama3-70b-pretrain-b200"]
    step = est.metrics["step_time"].m_as("s")
    low, high = est.bands["step_time"].values(step)   # the step time's band, as the estimate prints it
    [note] = [n for n in est.notes if n.startswith("load swing:")]
    assert f"a period of the step time, {step:.4g} s, {1 / step:.3g} Hz" in note
    assert f"(band {low:.3g} to {high:.3g} s: {1 / high:.3g} to {1 / low:.3g} Hz)" in note
    share = est.metrics["exposed_communication_share"].m_as("")   # the phase split, from the step breakdown (nu81)
    assert f"; {share * 100:.1f} % of each step is exposed communication, the low-draw phase" in note
    assert "depth and its ramp rate are not provided here" in note


def test_serving_estimate_has_no_swing_note(estimates) -> None:
    assert not [n for n in estimates["llama3-70b-serve-b200"].notes if n.startswith("load swing:")]
