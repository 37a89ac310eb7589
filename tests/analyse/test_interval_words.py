"""REL005 says what a checkpoint interval far from Daly's optimum costs, and the goodput chart's curve is goodput's.

newuser92, a reliability engineer on a 16,128-GPU GB200 cluster: a checkpoint interval of 60 days (longer than the
run) read "checkpoint interval 8.64×10⁴ min, Daly's optimum 0.118 min", an info, while goodput was 0. The finding
now names the times in days and seconds, gives goodput at the interval and at the optimum, and is a warning where
the interval outlasts the run's time to train. The goodput-vs-interval curve (the document's chart and its alt text)
left the planned interruptions out, so its point at the job's interval was not the goodput the tables give.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from archgen.display import duration
from archgen.perf.train.goodput import ettr
from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.operations import reliability_section

DATA = Path(__file__).parents[1] / "data" / "reliability"
RACK = Path(__file__).parents[2] / "specs" / "racks" / "dgx-h100-4.yaml"
JOB = "workload/llama3-405b-16k"


def _run(tmp_path: Path, checkpoint: str):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace("checkpoint: {tokens: 15.6e12}", checkpoint),
                       encoding="utf-8")
    return run([tree])


def test_an_interval_longer_than_the_run_is_a_warning_with_what_it_costs(tmp_path):
    """At 300 d no number of spares holds 0.9, so REL003 names the interval and Daly's optimum; it says what the
    interval costs as well, once (rel36: REL005 said the same interval and optimum again beside it)."""
    r = _run(tmp_path, "checkpoint: {tokens: 15.6e12, interval: 300 d}")
    g, days = r.operations.goodput[JOB], r.metrics[JOB]["time_to_train"].m_as("d")
    assert days < 300 and g.goodput == 0            # no checkpoint before the run ends: Daly's model gives 0
    assert not [f for f in r.findings if f.id == "REL005"]
    rel3, = (f for f in r.findings if f.id == "REL003")
    assert rel3.severity == "warning"
    assert rel3.message.startswith(f"no number of hot spares holds the goodput target 0.9 at the job's stated "
                                   f"checkpoint interval (300 days); at Daly's optimum interval ({duration(g.optimum)}), "
                                   f"{g.spares_at_optimum} would; goodput 0.000 at the interval, "
                                   f"{g.curve([g.optimum])[0]:.3f} at the optimum; the interval is longer than the run "
                                   f"({duration(days * 86400)} to train at the estimate)")


def test_an_interval_far_from_the_optimum_within_the_run_stays_information(tmp_path):
    """30 min against Daly's 4.15 min, a target of 0.8 that the cluster's idle nodes hold: REL005 alone, as info."""
    r = _run(tmp_path, "checkpoint: {tokens: 15.6e12, interval: 30 min, goodput_target: 0.8}")
    rel5, = (f for f in r.findings if f.id == "REL005")
    g = r.operations.goodput[JOB]
    assert g.spares_needed is not None and not [f for f in r.findings if f.id == "REL003"]
    assert rel5.severity == "info" and "longer than the run" not in rel5.message
    assert rel5.message == (f"checkpoint interval 30 min, Daly's optimum {duration(g.optimum)}: goodput "
                            f"{g.goodput:.3f} at the interval, {g.curve([g.optimum])[0]:.3f} at the optimum")


def test_one_stated_interval_is_compared_with_dalys_once(tmp_path):
    """rel36: the fixture at a stated 30 min against a 0.9 target read, in two findings, REL003 "no number of hot
    spares holds the goodput target 0.9 at the job's stated checkpoint interval (30 min); at Daly's optimum interval
    (4.15 min), 10 would" and REL005 "checkpoint interval 30 min, Daly's optimum 4.15 min: goodput 0.864 at the
    interval, 0.919 at the optimum". REL003 is the more specific (the target, the spares): it now says both."""
    r = _run(tmp_path, "checkpoint: {tokens: 15.6e12, interval: 30 min}")
    g = r.operations.goodput[JOB]
    assert g.spares_needed is None and g.interval / g.optimum > 2
    assert [f.id for f in r.findings if f.id in ("REL003", "REL005")] == ["REL003"]
    rel3, = (f for f in r.findings if f.id == "REL003")
    at, best = g.curve([g.interval, g.optimum])
    assert at == pytest.approx(g.goodput) and best > 0.9 > at
    assert rel3.message == (f"no number of hot spares holds the goodput target 0.9 at the job's stated checkpoint "
                            f"interval (30 min); at Daly's optimum interval ({duration(g.optimum)}), "
                            f"{g.spares_at_optimum} would; goodput {at:.3f} at the interval, {best:.3f} at the optimum")


def test_the_curve_at_the_jobs_interval_is_its_goodput(tmp_path):
    """The shipped set's 47 planned interruptions take (restart + restore) each: the curve left them out."""
    g = _run(tmp_path, "checkpoint: {tokens: 15.6e12}").operations.goodput[JOB]
    assert g.planned > 0
    assert g.curve([g.interval])[0] == pytest.approx(g.goodput, rel=1e-12)


@pytest.mark.parametrize(("seconds", "text"), [(7.075, "7.08 s"), (1800, "30 min"), (34074.8, "9.47 h"),
                                               (60 * 86400, "60 days"), (119, "119 s"), (7199, "120 min")])
def test_duration_reads_as_a_person_writes_it(seconds, text):
    assert duration(seconds) == text


def test_the_document_says_what_planned_interruptions_take(tmp_path):
    """The shipped set's 47 planned interruptions in 54 days on 2,048 servers were folded into goodput, shown nowhere.

    The 16,384-GPU job: 47 / 54 days = 0.870 a day (its 2,048 servers of 8), each stopping it for its 10 min restart
    and its restore; their share of wall time is 1 - goodput / ETTR.
    """
    r = _run(tmp_path, "checkpoint: {tokens: 15.6e12}")
    g = r.operations.goodput[JOB]
    section = reliability_section(r, r.clusters["cluster/llama3-16k"])
    text = " ".join(b.text for b in section.blocks if isinstance(b, Para))
    share = 1 - g.goodput / ettr(g.interval, g.blocking, g.restart + g.wait, g.mtti)
    assert g.planned == pytest.approx(share)
    assert (f"planned interruptions ('field-h100-2024' set's): 0.870 a day, each stopping it for its restart and "
            f"restore, {g.planned * 100:.2f} % of its wall time") in text
