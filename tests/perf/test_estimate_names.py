"""An `Estimate`'s field is named as `archgen estimate --format json` names it (newuser43's open list; leftovers22).

The JSON's `accelerators` was `est.gpus`. Now the field is `accelerators`; `gpus`, which docs/python-api.md named,
still reads it, with a DeprecationWarning.
"""

from __future__ import annotations

import pytest

from archgen.output.estimate import estimate_json
from archgen.pipeline import built, job_on_cluster
from tests.conftest import SPECS


@pytest.fixture(scope="module")
def est():
    specs, design = built([SPECS])
    return job_on_cluster(specs, design, "llama3-70b-pretrain-b200").estimate()


def test_accelerators_is_the_jsons_name_and_gpus_a_deprecated_alias(est):
    assert est.accelerators == estimate_json(est)["accelerators"] == 512
    with pytest.warns(DeprecationWarning, match="Estimate.accelerators"):
        assert est.gpus == 512
