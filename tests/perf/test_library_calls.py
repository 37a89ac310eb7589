"""The performance model called from Python as docs/python-api.md shows: its user errors are clear `ArchgenError`s.

A notebook builds `Hardware` with `hardware_for` and a `Machine` with `machine`, without the pipeline's checks in
front of them (newuser43's trial): a bandwidth given as text, as `hardware_for`'s docstring shows it, was an
`AttributeError` from inside the model, a wrong unit pint's `DimensionalityError`; and a `Machine` made without its
cluster's `ScaleOutPath` ran a 512-GPU job at a step time of 7.3e39 s that was said to fit.
"""

from __future__ import annotations

import math

import pytest

from archgen.errors import BuildError, WorkloadError
from archgen.perf.api import estimate_on_cluster, hardware_for, machine
from archgen.pipeline import built, cluster_network
from archgen.units import Q_
from tests.conftest import SPECS


@pytest.fixture(scope="module")
def b200():
    """The shipped Llama 3.1 70B pre-training job on the DGX B200 SuperPOD (specs/workloads/llama3-70b.yaml)."""
    specs, design = built([SPECS])
    job = specs.items["llama3-70b-pretrain-b200"]
    return specs, design, job, specs.items[job.model], specs.items[job.cluster]


def test_hardware_for_reads_text_as_a_spec_field(b200):
    specs = b200[0]
    acc = specs.items["b200-sxm-180gb"]
    text = hardware_for(acc, scale_up_size=8, scale_out_bandwidth="400 Gb/s", scale_out_latency="5 us")
    quantity = hardware_for(acc, scale_up_size=8, scale_out_bandwidth=Q_(400, "Gb/s"), scale_out_latency=Q_(5, "us"))
    assert text == quantity
    assert text.scale_out_bandwidth == pytest.approx(400e9 / 8)  # bits to bytes
    assert text.scale_out_latency == pytest.approx(5e-6)


@pytest.mark.parametrize(("argument", "value", "said"), [
    ("scale_out_bandwidth", "400 m", "expected a bandwidth such as '400 Gb/s', got '400 m' which is a length"),
    ("scale_out_bandwidth", Q_(400, "m"), "expected a bandwidth such as '400 Gb/s', got '400 m' which is a length"),
    ("scale_up_bandwidth", "fast", "expected '<number> <unit>'"),
    ("scale_out_bandwidth", 400, "number '400' has no unit"),
    ("scale_out_latency", "5 GB", "expected a time such as '0 us', got '5 GB' which is an amount of data"),
])
def test_hardware_for_refuses_a_wrong_unit_naming_the_argument(b200, argument, value, said):
    acc = b200[0].items["b200-sxm-180gb"]
    with pytest.raises(BuildError) as err:
        hardware_for(acc, scale_up_size=8, **{argument: value})
    assert str(err.value).startswith(f"hardware_for: {argument}: ")
    assert said in str(err.value)


@pytest.mark.parametrize(("argument", "value", "said"), [
    ("accelerator", "b200-sxm-180gb",
     "expected an Accelerator document (`specs.entry(id, Accelerator)`), got str 'b200-sxm-180gb'"),
    ("scale_up_size", 0, "expected a whole number of at least 1, got 0"),      # was taken as 1
    ("scale_up_size", "8", "expected a whole number of at least 1, got '8'"),  # was a TypeError
    ("scale_up_size", 8.5, "expected a whole number of at least 1, got 8.5"),
    ("pod", -1, "expected a whole number of at least 0, got -1"),
    ("oversubscription", 0, "expected a positive number (1 = non-blocking), got 0"),
])
def test_hardware_for_refuses_a_wrong_accelerator_or_count(b200, argument, value, said):
    arguments = {"accelerator": b200[0].items["b200-sxm-180gb"], "scale_up_size": 8, argument: value}
    with pytest.raises(BuildError) as err:
        hardware_for(**arguments)
    assert str(err.value) == f"hardware_for: {argument}: {said}"


def test_hardware_for_takes_a_whole_float_as_its_count(b200):
    acc = b200[0].items["b200-sxm-180gb"]
    assert hardware_for(acc, scale_up_size=8.0, pod=512.0) == hardware_for(acc, scale_up_size=8, pod=512)


@pytest.mark.parametrize("factor", [0, -1.5, math.inf, "2"])
def test_a_what_if_factor_is_positive_from_python_as_from_the_cli(b200, factor):
    """`Hardware.scaled`, docs/python-api.md's what-if: 0 was a ZeroDivisionError inside the model (as
    `archgen estimate --what-if hbm_bandwidth=0` is refused, `commands.estimate.parse_what_if`)."""
    from archgen.errors import AnalyseError
    hw = hardware_for(b200[0].items["b200-sxm-180gb"], scale_up_size=8)
    with pytest.raises(AnalyseError, match=r"^hardware parameter 'hbm_bandwidth': expected a positive factor"):
        hw.scaled("hbm_bandwidth", factor)
    assert hw.scaled("hbm_bandwidth", 1.5).hbm_bandwidth == pytest.approx(1.5 * hw.hbm_bandwidth)


def test_job_beyond_a_domain_needs_a_scale_out_path(b200):
    specs, design, job, model, cluster = b200
    bare = machine(cluster, specs.items)          # no ScaleOutPath: the domains are joined by nothing
    with pytest.raises(WorkloadError, match=r"asks for 512 accelerators; a scale-up domain of cluster "
                                            r"'dgx-b200-superpod' joins 8, and no scale-out path joins the domains"):
        estimate_on_cluster(job, model, bare)
    one_domain = estimate_on_cluster(job.model_copy(update={"accelerators": 8}), model, bare)
    assert one_domain.fits and math.isfinite(one_domain.metrics["step_time"].m_as("s"))
    scale_out, _ = cluster_network(design, {cluster.id})
    sized = estimate_on_cluster(job, model, machine(cluster, specs.items, scale_out[cluster.id]))
    assert sized.fits and sized.metrics["step_time"].m_as("s") < 60


def test_an_entry_is_looked_up_by_id_and_kind_with_did_you_mean(b200):
    from archgen.errors import UsageError
    from archgen.model import Accelerator
    from archgen.model.workload import Model
    specs = b200[0]
    assert specs.entry("b200-sxm-180gb", Accelerator).memory == Q_(180, "GiB")  # as its catalog file states
    assert specs.entry("llama3-8b", Model).layers == 32  # the library's, on the shelf: no spec names it
    with pytest.raises(UsageError, match=r"^no accelerator 'b200-sxm' in the specs; did you mean 'b200-sxm-180gb'\?"):
        specs.entry("b200-sxm", Accelerator)
    with pytest.raises(UsageError, match=r"^no model 'b200-sxm-180gb' in the specs \(models: .*llama3-8b"):
        specs.entry("b200-sxm-180gb", Model)
    with pytest.raises(UsageError, match=r"^no accelerator '\['b200-sxm-180gb'\]' in the specs"):  # was a TypeError
        specs.entry(["b200-sxm-180gb"], Accelerator)   # type: ignore[arg-type]
    for kind in (None, "Accelerator"):   # None was a TypeError from `isinstance`
        with pytest.raises(UsageError, match=r"^entry: kind: expected a document class such as Accelerator or Model "
                                             rf"\(from archgen.model\), got {type(kind).__name__} {kind!r}$"):
            specs.entry("b200-sxm-180gb", kind)   # type: ignore[arg-type]


def test_a_what_if_hardware_is_a_hardware(b200):
    """A what-if that is not a `Hardware` (an id, a dict) failed inside the model with an AttributeError. It is an
    `AnalyseError`, as `Hardware.scaled`'s bad factor is: the performance model raises no `UsageError`."""
    from archgen.errors import AnalyseError
    from archgen.pipeline import job_on_cluster
    specs, design, job, model, cluster = b200
    placed = job_on_cluster(specs, design, job.id)
    with pytest.raises(AnalyseError, match=r"^JobOnCluster\.estimate: hardware: expected a Hardware \(`hardware_for`, "
                                           r"`Hardware\.scaled`\) or None for the cluster's own, got str 'x'$"):
        placed.estimate(hardware="x")   # type: ignore[arg-type]
    with pytest.raises(AnalyseError, match=r"^estimate_on_cluster: hardware: expected a Hardware .* got dict \{\}$"):
        estimate_on_cluster(job, model, machine(cluster, specs.items), {})   # type: ignore[arg-type]


def test_cluster_network_takes_one_id_and_refuses_an_unknown_one(b200):
    """`cluster_network(design, "id")` read the id's characters as ids, matching any cluster id that held them, and
    an id that named no cluster gave ({}, {}), so docs/python-api.md's `scale_out[cluster.id]` was a KeyError."""
    from archgen.errors import UsageError
    design = b200[1]
    assert cluster_network(design, "dgx-b200-superpod") == cluster_network(design, {"dgx-b200-superpod"})
    with pytest.raises(UsageError, match=r"^no cluster 'dgx-b200' in the specs; did you mean 'dgx-b200-superpod'\?"):
        cluster_network(design, {"dgx-b200"})
