"""A design where nothing that stops a job fails says why it has no MTTI (newuser98, issue 22's zero-failure defect).

On a rate set of zero rates the job's goodput is 1 with no spares (the defect the issue lists: it warned that no
spare count reached 0.9 while reporting 1.0), and a requirement on `mtti` or `checkpoint_interval` is *not
provided*: there is no interruption, so no mean time to one, and Daly's optimum has no bound. Before, REQ002 said
only "not provided for this cluster (docs/metrics.md)", as if the metric were not computed for such a design.
"""

from __future__ import annotations

import shutil

from archgen.pipeline import run
from tests.conftest import REPO

DATA = REPO / "tests" / "data" / "reliability"
CLASSES = ("accelerator", "host", "nic", "software", "switch", "transceiver", "cable", "pdu", "power_shelf", "cdu")
RATES = "kind: FailureRates\nid: none-fail\nclasses:\n" + "".join(
    f"  {c}: {{afr: 0, basis: assumed, source: \"a trial of no failures\"}}\n" for c in CLASSES)
REQS = """kind: Requirements
id: rel
requirements:
  - {id: R-MTTI, statement: MTTI, subject: cluster/llama3-16k, metric: mtti, target: ">= 24 h"}
  - {id: R-JOB, statement: MTTI of the job, subject: workload/llama3-405b-16k, metric: mtti, target: ">= 24 h"}
  - {id: R-INT, statement: Interval, subject: workload/llama3-405b-16k, metric: checkpoint_interval, target: ">= 1 h"}
"""


def test_no_failure_says_why_there_is_no_mtti(tmp_path):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(REPO / "specs" / "racks" / "dgx-h100-4.yaml", tree / "rack.yaml")
    (tree / "rates.yaml").write_text(RATES, encoding="utf-8")
    (tree / "reqs.yaml").write_text(REQS, encoding="utf-8")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(
        "facility: hall-air", "facility: hall-air\nfailure_rates: none-fail", 1), encoding="utf-8")
    r = run([tree])
    job = r.metrics["workload/llama3-405b-16k"]
    assert job["goodput"].m == 1.0 and job["spares"].m == 0 and "mtti" not in job
    assert not [f for f in r.findings if f.id == "REL003"]
    why = {f.message.split(":")[0]: f.message for f in r.findings if f.id == "REQ002"}
    none = "docs/metrics.md gives none where nothing that stops {} fails at the rates"
    assert none.format("it") + " (no interruption, so no mean time to one)" in why["R-MTTI"]
    assert none.format("it") + " (no interruption, so no mean time to one)" in why["R-JOB"]
    assert none.format("the job") + " and it states none (Daly's optimum has no bound)" in why["R-INT"]
