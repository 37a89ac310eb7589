"""A named rate set whose classes state no `events` says that their uncertainty is in no range.

Trial item 8 (fleet reliability engineer): a user's FailureRates with `basis: assumed` rates and no `events` gave
an almost point range (MTTI 33.3-35.4 h) read as if the rates were known that well: only the classes with a
failure count have a Poisson interval (`Reliability.interval`), and nothing bounds an assumed rate's error. The
range stays what can be computed; its words (REQ004, `gap`, the document) now name the classes it leaves out.
Here the Llama 3 stand-in on a set of assumed rates with no events (its switches and optics too: the base's network
rate has a count since netrates): the interval is a point, and says why.
"""

from __future__ import annotations

import shutil

from archgen.analyse.goodput_range import spanned
from archgen.pipeline import run
from tests.conftest import REPO

DATA = REPO / "tests" / "data" / "reliability"
RATES = """kind: FailureRates
id: guessed
base: field-h100-2024
classes:
  accelerator: {afr: 0.12, basis: assumed, source: "a guess"}
  host: {afr: 0.15, per_accelerators: 8, basis: assumed, source: "a guess"}
  software: {afr: 0.2, per_accelerators: 8, repair: 0 h, basis: assumed, source: "a guess"}
  nic: {afr: 0.003, basis: assumed, source: "a guess"}
  switch: {afr: 0.02, basis: assumed, source: "a guess"}
  transceiver: {afr: 0.005, basis: assumed, source: "a guess"}
"""


def test_a_set_without_events_has_a_point_range_and_says_so(tmp_path):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(REPO / "specs" / "racks" / "dgx-h100-4.yaml", tree / "rack.yaml")
    (tree / "guessed.yaml").write_text(RATES, encoding="utf-8")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(
        "facility: hall-air", "facility: hall-air\nfailure_rates: guessed", 1), encoding="utf-8")
    rel = run([tree]).operations.reliability["cluster/llama3-16k"]
    assert rel.interval() == (1.0, 1.0)   # no class has a failure count
    assert rel.uncounted() == ("accelerator", "host", "nic", "software", "switch", "transceiver")
    assert ("the uncertainty of accelerator, host, nic, software, switch, transceiver is not provided (their rates "
            "state no `events`)") in spanned(rel)
