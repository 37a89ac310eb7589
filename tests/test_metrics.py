"""The metric registry (`archgen/metrics.py`): every metric an analysis produces is declared, with its dimension."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen import metrics
from archgen.pipeline import run
from archgen.units import ureg
from tests.conftest import REPO

#: Spec trees whose runs together produce every kind of metric (racks, clusters, fabrics of 1-3 tiers, workloads).
TREES = [REPO / "specs", REPO / "tests" / "data" / "gap" / "proposal", REPO / "tests" / "render" / "data" / "racks"]


@pytest.fixture(scope="module")
def produced() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for tree in TREES:
        out.update(run([tree]).metrics)
    return out


def test_every_metric_produced_is_declared_with_its_dimension(produced):
    missing, wrong = [], []
    for path, values in produced.items():
        for name, value in values.items():
            m = metrics.lookup(path, name)
            if m is None:
                missing.append(f"{path}: {name}")
            elif not m.accepts(value):
                wrong.append(f"{path}: {name} = {value} is not {m.dimension or 'a plain number'}")
    assert not missing, "undeclared metrics (add them to archgen/metrics.py):\n" + "\n".join(missing)
    assert not wrong, "\n".join(wrong)


def test_every_declaration_names_its_source_module_and_a_display_unit_of_its_dimension():
    for m in metrics.REGISTRY:
        assert (Path(metrics.__file__).parent / m.source).is_file(), m
        assert m.subject in metrics.SUBJECTS, m
        assert ureg.Quantity(1, m.unit or "dimensionless").is_compatible_with(m.dimension or "dimensionless"), m
        assert m.description.endswith(".") and m.title, m
        assert (m.subject in ("workload", "point")) == bool(m.jobs), m


def test_names_are_declared_once_per_subject():
    seen = {(m.subject, m.name) for m in metrics.REGISTRY}
    assert len(seen) == len(metrics.REGISTRY)


def test_a_per_million_tokens_metric_is_its_per_token_namesakes_figure_times_a_million():
    # cost_per_million_tokens is cost_per_token x 10^6; a per-million figure on another basis needs its own name
    # (review23: `energy_per_million_tokens`, the hall's energy at the average draw with the PUE, stood beside a sweep
    # point's `energy_per_token`, IT energy at maximum draw: 10^6 times the one was not the other)
    names = {m.name: m for m in metrics.REGISTRY}
    for m in metrics.REGISTRY:
        per = names.get(m.name.removesuffix("_per_million_tokens") + "_per_token")
        if m.name.endswith("_per_million_tokens") and per is not None:
            assert m.description.startswith(f"{per.title} × 10⁶"), (m.name, per.name)


def test_placeholders_match_ids_tiers_and_link_levels():
    assert metrics.lookup("cluster/c", "racks.gb200-nvl72").name == "racks.<rack>"
    assert metrics.lookup("cluster/c/fabric/compute", "spine.switches").name == "<tier>.switches"
    assert metrics.lookup("cluster/c/fabric/compute", "links.leaf_spine.max_length").name == "links.<link>.max_length"
    assert metrics.lookup("cluster/c/fabric/compute", "links.leaf_spine").name == "links.<link>"
    assert metrics.lookup("cluster/c/fabric/compute", "pod.switches") is None
    assert metrics.lookup("rack/r", "step_time") is None


def test_unknown_names_get_a_suggestion():
    assert metrics.unknown("it_powr", ["rack"]).startswith("unknown metric 'it_powr'; did you mean 'it_power'? (known: "
                                                           "accelerators, air_flow, ")
    assert metrics.unknown("spine.switchs", ["fabric"]) == ("unknown metric 'spine.switchs'; did you mean "
                                                            "'spine.switches'? (`docs/metrics.md` lists them)")
    assert metrics.unknown("it_power", ["rack", "cluster"]) is None


def test_a_clusters_figures_from_its_largest_training_job_name_the_stage_that_sets_them():
    from archgen.analyse.operations_stage import LARGEST_JOB_METRICS

    for name in (*LARGEST_JOB_METRICS, "tco_per_goodput_accelerator_hour"):
        m = metrics.lookup("cluster/c", name)
        assert m is not None and m.source == "analyse/operations_stage.py", m


def test_a_clusters_goodput_reads_better_when_higher_as_its_jobs_does():
    """Trial (fleet reliability engineer): `diff` showed cluster goodput's direction as "—", its job's as ▲.

    The cluster's goodput is its largest training job's goodput (`LARGEST_JOB_METRICS`): the same direction.
    """
    assert metrics.find("workload", "goodput").better == "higher"
    assert metrics.find("cluster", "goodput").better == "higher"


def test_each_end_of_a_range_reads_better_the_way_its_figure_does():
    """newuser107: `diff` read a cluster's interruptions per day as "worse ▲" and its `_high` end beside it as "—".

    An end of a range (`<name>_low`, `<name>_high`, a confidence interval's `<name>_ci_low`/`_ci_high`) is the same
    figure at a band's edge, so it is better in the same direction as the figure: a cost per token's, a restart
    time's and a TCO per goodput hour's ends had none, so `diff` gave their moves no direction.
    """
    ends = re.compile(r"(.+?)(?:_ci)?_(?:low|high)$")
    odd = [(m.subject, m.name, base.better, m.better) for m in metrics.REGISTRY
           if (found := ends.match(m.name)) and (base := metrics.find(m.subject, found[1])
                                                  or metrics.find("workload", found[1])) is not None
           and base.better != m.better]
    assert not odd
    assert metrics.find("cluster", "interruptions_per_day_high").better == "lower"
    assert metrics.find("workload", "cost_per_token_high").better == "lower"


def test_a_title_inside_a_sentence_is_lower_cased_but_an_acronym() -> None:
    """review39: REQ002's customer words read "rack/r's Usable conversion capacity is not provided" (`absent`)."""
    from archgen.metrics import find

    said = {name: m.said for name in ("conversion_capacity_usable", "it_power") if (m := find("rack", name))}
    assert said == {"conversion_capacity_usable": "usable conversion capacity", "it_power": "IT power at the equipment"}
    assert find("workload", "mfu").said == "MFU"


def test_a_name_without_placeholders_matches_as_its_pattern_does():
    """`Metric.matches` compares such a name as text, compiling no pattern: the same answer as the pattern's.

    Probed with every declared name, every name a placeholder stands for (`written_out`), and near misses: a name
    with a character more or less, and with its dots as any character (what an unescaped pattern would take).
    """
    from archgen.metric import written_out

    names = {n for m in metrics.REGISTRY for n in (m.name, *written_out(m.name))}
    probes = names | {n + "s" for n in names} | {n[:-1] for n in names} | {n.replace(".", "x") for n in names}
    for m in metrics.REGISTRY:
        for probe in probes:
            assert m.matches(probe) == bool(m.pattern.fullmatch(probe)), (m.name, probe)
