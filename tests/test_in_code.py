"""Documents made in code read as spec files do, and their mistakes are `ArchgenError`s (nu43api).

newuser43's trial: a schema error in a document built in code was pydantic's `ValidationError`, which
``except ArchgenError`` missed; `Workload.model_validate(job.model_dump())` failed on the requirements' targets; and
`model_copy(update={"accelerators": -3})` passed unchecked.
"""

from __future__ import annotations

import pytest

from archgen.errors import ArchgenError, UsageError, ValidateError
from archgen.in_code import document, variant
from archgen.model import Document
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
    with pytest.raises(ArchgenError, match=r"inference\.arrival_rate: expected a request rate such as '12 requests/s', "
                                           r"got '5 m' which is a length"):
        variant(job, training=None, inference={"input_len": 1, "output_len": 1, "arrival_rate": "5 m"})


@pytest.mark.parametrize(("call", "said"), [
    (lambda job: document(Workload, [("id", "x")]),
     "in_code.document: data: expected a mapping of the document's fields (a spec file's or a dump's), got list"),
    (lambda job: document(Workload, None), "in_code.document: data: expected a mapping"),
    (lambda job: document(Document, {"id": "x"}),   # the base class: was a KeyError 'kind'
     "in_code.document: kind: expected a document class such as Workload or Cluster, got <class"),
    (lambda job: variant(job.model_dump(), accelerators=8),   # a dump for the document: was an AttributeError
     "in_code.variant: expected a document (a Workload, a Cluster, ...), got dict"),
    (lambda job: variant(job, [("accelerators", 8)]), "in_code.variant: changes: expected a mapping"),
])
def test_a_call_that_is_not_a_document_is_a_usage_error(job, call, said):
    """What the calls themselves are given wrongly: a `UsageError`, never a TypeError or KeyError from inside."""
    with pytest.raises(UsageError) as err:
        call(job)
    assert str(err.value).startswith(said)
