"""archgen's job energy at maximum draw against MLPerf Training's measured energy to train (issue 22).

Five power results (tests/perf/data/mlperf-training-power.yaml: mlcommons/training_results_v4.0 at 6fe95437, v4.1 at
b87b9e39, v5.0 at 0fdc28f0; energy by the MLPerf result summarizer's rule, mlcommons/logging at d4a66d84) on 8 to 64
H100 nodes and one B200 node. archgen's job IT energy is the job's share of its cluster's maximum IT power times its
time to train (`run_figures.run_energy`); for the nodes alone, at the measured time to train, that is nodes x the
catalog system's `power.max` x time. The nodes measured drew 0.57 to 0.69 of that on average, so the figure at
maximum draw overstates the nodes' energy 1.45 to 1.75 times: an upper bound, which the output must say it is
(docs/facility.md, "Measured energy to train"). No catalog system states a `power.typical`, so no ratio at typical
draw is given.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from archgen.load import load_paths
from archgen.metrics import MEASURED_SHARE, find
from archgen.model import KINDS, System
from archgen.model.cases import Case
from archgen.perf.workload.derived import job_share
from archgen.perf.workload.run_figures import run_energy
from archgen.scoring.cases import predict
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q_

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "perf" / "data" / "mlperf-training-power.yaml"
RECORDS = yaml.safe_load(DATA.read_text(encoding="utf-8"))["records"]


def _system(part_id: str) -> System:
    """The shipped catalog system `part_id`, validated."""
    for doc in load_paths([ROOT / "specs" / "catalog" / "systems"]):
        if doc.id == part_id:
            part = KINDS[doc.kind].model_validate(doc.data)
            assert isinstance(part, System)
            return part
    raise LookupError(part_id)


def _time(r: dict) -> Q_:
    return Q_(r["time_to_train_min"], "min")


def _at_max(r: dict, time: Q_ | None = None) -> Q_:
    """archgen's IT energy of the record's nodes at maximum draw: `run_energy` of their share of the nodes' power.max,
    over `time` (default: the measured time to train)."""
    s = _system(r["catalog_system"])
    nodes_max = s.power.max * r["nodes"]
    accelerators = s.accelerators * r["nodes"]
    ttt = _time(r) if time is None else time
    return run_energy(job_share(nodes_max, accelerators, accelerators), {"time_to_train": ttt})["job_it_energy"]


def _measured_nodes(r: dict) -> Q_:
    """The nodes' measured energy at the node inputs (AC, as logged): their average draw x the time to train."""
    return Q_(r["node_average_w"], "W") * _time(r)


def _ratio(r: dict) -> float:
    return (_measured_nodes(r) / _at_max(r)).m_as("")


@pytest.mark.parametrize("rid", RECORDS)
def test_published_energy_is_the_summarizers_rule_on_the_record(rid):
    """energy_j = (node average x conversion_eff + switch estimate) x time to train (result_summarizer.py).

    The olympic mean of products is not the product of olympic means, hence 0.2 %.
    """
    r = RECORDS[rid]
    power = Q_(r["node_average_w"] * r["conversion_eff"] + r["switch_w"], "W")
    assert (power * _time(r)).m_as("J") == pytest.approx(r["energy_j"], rel=2e-3)


@pytest.mark.parametrize("rid", RECORDS)
def test_energy_at_maximum_draw_bounds_the_measured_energy(rid):
    """The nodes' energy at their catalog `power.max` is above what they drew: an upper bound, never an estimate.

    Each node's highest single reading is at or below `power.max` too (Dell's 10,060 W against the DGX H100's 10.2 kW,
    Lenovo's 10,175 W against the DGX B200's 14.3 kW).
    """
    r = RECORDS[rid]
    assert _measured_nodes(r) < _at_max(r)
    assert Q_(r["node_peak_w"], "W") <= _system(r["catalog_system"]).power.max


def test_measured_share_of_maximum_draw():
    """Measured / maximum-draw energy of the nodes: 0.690, 0.672, 0.571, 0.669, 0.677 (node average / nodes x power.max).

    56,316 / (8 x 10,200), 438,454 / (64 x 10,200), 46,590 / (8 x 10,200), 9,573 / 14,300, 9,677 / 14,300 W.
    """
    ratios = {rid: round(_ratio(r), 3) for rid, r in RECORDS.items()}
    assert ratios == {"dell-xe9680-h100-8n-llama2-lora": 0.690, "smc-h100-64n-gpt3": 0.672,
                      "smc-h100-8n-llama2-lora": 0.571, "lenovo-sr780a-b200-1n-llama2-lora": 0.669,
                      "lenovo-sr780a-b200-1n-bert": 0.677}


def test_no_typical_draw_to_compare():
    """No catalog system the records map to states a `power.typical`: the ratio at typical draw is not provided."""
    assert all(_system(r["catalog_system"]).power.typical is None for r in RECORDS.values())


def test_docs_state_the_measured_range():
    """docs/facility.md, docs/perf-model.md and the metric's description state the range the records give (lowest
    and highest share, and their inverse)."""
    low, high = min(map(_ratio, RECORDS.values())), max(map(_ratio, RECORDS.values()))
    said = f"{low:.2f} to {high:.2f} of their nodes' maximum"
    text = re.sub(r"\s+", " ", (ROOT / "docs" / "facility.md").read_text(encoding="utf-8"))
    assert said in text and f"{1 / high:.2f} to {1 / low:.2f} times" in text
    assert said in re.sub(r"\s+", " ", (ROOT / "docs" / "perf-model.md").read_text(encoding="utf-8"))
    metric = find("workload", "job_it_energy")
    assert metric is not None and said in metric.description
    assert MEASURED_SHARE == f"{low:.2f} to {high:.2f}"   # the one copy job_energy's and derived's words take


def _model_ratio() -> tuple[float, float]:
    """GPT-3 on 64 SMC nodes with the model's time to train (its steps x the predicted step time): the predicted
    step time (s) and archgen's nodes' energy at maximum draw over the measured nodes' energy."""
    r = RECORDS["smc-h100-64n-gpt3"]
    step = predict(Case.model_validate(r["model_case"]), load_accelerators())["step_time"]
    return step, (_at_max(r, Q_(step * r["steps"], "s")) / _measured_nodes(r)).m_as("")


def test_with_the_models_time_to_train_the_energy_at_maximum_draw_is_still_above_the_measured():
    """The model's step (9.61 s against 10.63 s measured; 9.62 s while a rotary embedding GPT-3's learned positions
    do not have was counted, before rope40; 9.65 s before stack36 made its stack NeMo 24.x's) and its steps leave out the 24 evaluations, so its time to
    train is 19 % short of the measured; at maximum draw its energy is still above what the nodes drew (1.21 x), and
    docs/facility.md says so."""
    r = RECORDS["smc-h100-64n-gpt3"]
    assert r["steps"] == 1_207_959_552 // (2048 * 2048) and r["step_time_s"] * r["steps"] < r["time_to_train_min"] * 60
    step, ratio = _model_ratio()
    assert ratio > 1
    text = re.sub(r"\s+", " ", (ROOT / "docs" / "facility.md").read_text(encoding="utf-8"))
    assert f"predicted step of {step:.2f} s" in text and f"{ratio:.2f} times what the nodes drew" in text
