"""The shipped catalog's models as the tests take them: one shape per model, read from its spec file.

Each file under specs/catalog/models/ cites its source (Qwen3-30B-A3B: Qwen/Qwen3-30B-A3B config.json and the Qwen3
Technical Report, arXiv 2505.09388, Table 2), so a test that needs a model's shape reads it here rather than writing
the numbers out again.
"""

from __future__ import annotations

from functools import cache

import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from tests.conftest import SPECS


@cache
def catalog_model(model_id: str) -> Model:
    """The shipped catalog's model `model_id` (specs/catalog/models/<model_id>.yaml), validated."""
    path = SPECS / "catalog" / "models" / f"{model_id}.yaml"
    return Model.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def catalog_arch(model_id: str) -> Arch:
    """The shape the performance model takes of the catalog's model `model_id` (`Arch.from_model`)."""
    return Arch.from_model(catalog_model(model_id))
