"""pyproject's [build-system] requires what the build uses, so an old backend fails with pip's message (lo23cli).

`license = "Apache-2.0"` (an SPDX expression, PEP 639) needs setuptools 77.0.0, whose `setuptools.dist` imported
`packaging.licenses` (new in packaging 24.2) when it loaded. With `setuptools>=77` the oldest backend a build could
get is 77.0.1 (77.0.0 is yanked), and beside packaging 24.1, which `wheel`'s `packaging>=24.0` allows, every build
stopped in a traceback from that import (reproduced: `PIP_CONSTRAINT` with setuptools==77.0.1 and
packaging==24.1, `pip wheel .` in a fresh venv: ModuleNotFoundError: No module named 'packaging.licenses'). 77.0.3
defers the import and names what is missing (setuptools changelog v77.0.3, pypa/setuptools#4898); with
`packaging>=24.2` too, the same constraint is refused by pip's resolver ("Cannot install setuptools>=77.0.3 ...
conflict is caused by ... (constraint) setuptools==77.0.1"), and the oldest set allowed (setuptools 77.0.3,
packaging 24.2, wheel 0.45.1) builds a wheel with the templates and the catalog.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def minimums() -> dict[str, Version]:
    """The lowest version each build requirement allows (its `>=` bound)."""
    requires = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["build-system"]["requires"]
    return {(r := Requirement(text)).name: max((Version(s.version) for s in r.specifier if s.operator == ">="),
                                              default=Version("0")) for text in requires}


def test_an_spdx_license_has_a_backend_that_reads_it():
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert isinstance(project["license"], str)  # PEP 639; a table ({text = ...}) would need none of this
    low = minimums()
    assert low.get("setuptools", Version("0")) >= Version("77.0.3")
    assert low.get("packaging", Version("0")) >= Version("24.2")
