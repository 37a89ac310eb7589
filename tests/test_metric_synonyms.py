"""An unknown metric is offered the figure it names, or told none is close, not a name that shares its suffix.

newuser74: a requirement on `scale_out_bandwidth_per_accelerator` of `cluster/*` was answered "did you mean
'storage_write_bandwidth_per_accelerator'?" (difflib ratio 0.84: the two share `_bandwidth_per_accelerator`), a
storage figure; the figure meant is a fabric's `injection_per_accelerator`. A metric declares the names people write
for it (`Metric.synonyms`), offered whatever their spelling and with the kind of object that has it; a candidate that
swaps the name's own words for others (`metric.apart`) is no misspelling, and where nothing is close the message says
so and lists the subject's metrics that share a word of the name.
"""

from __future__ import annotations

import difflib

from archgen import metrics
from archgen.metric import apart
from tests.conftest import SPECS, run_cli

REQUIREMENT = """\
kind: Requirements
id: partner-requirements
requirements:
  - {id: REQ-BW-001, statement: Scale-out bandwidth per GPU, subject: "cluster/*",
     metric: scale_out_bandwidth_per_accelerator, target: ">= 400 Gb/s"}
"""


def test_a_scale_out_bandwidth_on_a_cluster_names_the_fabrics_injection(tmp_path) -> None:
    (tmp_path / "req.yaml").write_text(REQUIREMENT, encoding="utf-8")
    result = run_cli("check", str(SPECS), str(tmp_path))
    said = result.err + result.out
    assert result.code != 0
    assert "storage_write_bandwidth_per_accelerator" not in said   # before: "did you mean" it
    assert ("unknown metric 'scale_out_bandwidth_per_accelerator': a fabric's 'injection_per_accelerator' (Injection "
            "per accelerator) is that figure, with a subject such as cluster/*/fabric/*; not a metric of a cluster") \
        in said


def test_on_a_fabric_the_synonym_is_offered_as_its_metric() -> None:
    assert metrics.unknown("scale_out_bandwidth_per_accelerator", ["fabric"]) == (
        "unknown metric 'scale_out_bandwidth_per_accelerator'; did you mean 'injection_per_accelerator'? "
        "(`docs/metrics.md` lists them)")   # before: 'bisection_per_accelerator' (0.67 against 0.63)


def test_a_name_that_swaps_words_is_no_misspelling() -> None:
    name, storage = "scale_out_bandwidth_per_accelerator", "storage_write_bandwidth_per_accelerator"
    assert difflib.SequenceMatcher(None, name, storage).ratio() > 0.8   # close as text
    assert apart(name, storage)   # 'scale_out' against 'storage_write': 0.45 alike
    assert not apart("injecton_per_accelerator", "injection_per_accelerator")
    assert not apart("IT_POWER", "it_power")


def test_nothing_close_says_so_and_lists_the_metrics_sharing_a_word() -> None:
    said = metrics.unknown("frobnicate_bandwidth", ["cluster"])
    assert said == ("unknown metric 'frobnicate_bandwidth': no cluster metric is named like it; those naming "
                    "'bandwidth': scale_up.bandwidth, storage_read_bandwidth_per_accelerator, "
                    "storage_write_bandwidth_per_accelerator (`docs/metrics.md` lists them)")
    assert "did you mean" not in said


def test_synonyms_are_no_declared_name_and_lower_case() -> None:
    for m in metrics.REGISTRY:
        for s in m.synonyms:
            assert s == s.lower(), s
            assert not any(k.matches(s) for k in metrics.REGISTRY), s   # never read as a metric
