"""Documents made in code read as spec files do, and their mistakes are `ArchgenError`s (nu43api).

newuser43's trial: a schema error in a document built in code was pydantic's `ValidationError`, which
``except ArchgenError`` missed; `Workload.model_validate(job.model_dump())` failed on the requirements' targets; and
`model_copy(update={"accelerators": -3})` passed unchecked.
"""

from __future__ import annotations

import pytest

from archgen.errors import ArchgenError, ValidateError
from archgen.in_code import document, variant
from archgen.model.workload import Workload
from archgen.pipeline import built
from tests.conftest import SPECS


@pytest.fixture(scope="module")
def job():
    """The shipped Llama 3.1 70B pre-training job, two requirements bound (specs/workloads/llama3-70b.yaml)."""
    specs, _ = built([SPECS])
    return specs.items["llama3-70b-pretrain-b200"]


def test_a_plain_dump_reads_back(job):
    assert job.requirements, "the shipped job states requirements"
    assert Workload.model_validate(job.model_dump()) == job
    assert document(Workload, job.model_dump()) == job
    assert variant(job) == job


def test_a_variant_merges_mappings_and_is_validated(job):
    v = variant(job, {"training": {"global_batch": 2 * job.training.global_batch}}, accelerators=128)
    assert (v.accelerators, v.training.global_batch) == (128, 2 * job.training.global_batch)
    assert v.training.parallelism == job.training.parallelism and v.requirements == job.requirements
    with pytest.raises(ValidateError) as err:
        variant(job, accelerators=-3)
    assert str(err.value) == ("workload 'llama3-70b-pretrain-b200' (made in code): error: accelerators: expected a "
                              "number greater than 0, got -3")


def test_every_schema_mistake_in_code_is_an_archgen_error_with_the_spec_files_message(job):
    data = {**job.model_dump(mode="json", exclude_none=True), "id": "j"}
    data["training"] = {**data["training"], "parallelism": {"tp": "x"}, "dropout": 2}
    with pytest.raises(ArchgenError) as err:
        document(Workload, data)
    assert isinstance(err.value, ValidateError) and len(err.value.problems) == 2
    assert "workload 'j' (made in code): error: training.parallelism.tp: expected a whole number, got 'x'" \
        in str(err.value)
    with pytest.raises(ArchgenError, match=r"inference\.arrival_rate: expected a request rate such as '12 1/s', got "
                                           r"'5 m' which is a length"):
        variant(job, training=None, inference={"input_len": 1, "output_len": 1, "arrival_rate": "5 m"})
