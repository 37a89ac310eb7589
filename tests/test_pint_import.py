"""`archgen.pint_import`: pint imported with a stand-in for `importlib.metadata` whose `version` is the real one's."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

from archgen.pint_import import installed_version
from tests.conftest import REPO

_FRESH = """
import json, sys
import archgen.pint_import, flexcache, flexparser, pint
before = "importlib.metadata" in sys.modules
from importlib.metadata import version
print(json.dumps({"imported": before, "ours": [pint.__version__, flexcache.__version__, flexparser.__version__],
                  "real": [version("pint"), version("flexcache"), version("flexparser")]}))
"""


@pytest.mark.parametrize("name", ["pint", "flexcache", "flexparser", "numpy", "pydantic", "pydantic-core",
                                  "pydantic_core", "PyYAML", "typing_extensions"])
def test_the_installed_version_is_importlib_metadatas(name):
    assert installed_version(name) == importlib.metadata.version(name)


def test_a_distribution_not_installed_is_importlib_metadatas_error():
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        installed_version("no-such-distribution-of-archgen")


def test_folders_on_the_path_as_importlib_metadata_finds_them(tmp_path, monkeypatch):
    """A `.dist-info` is read (the headers only); an `.egg-info`, or two folders of one name, are its own answer."""
    def folder(name: str, file: str, version: str, after: str = "") -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / file).write_text(f"Metadata-Version: 2.1\nName: x\nVersion: {version}\n\n{after}",
                                            encoding="utf-8")

    folder("Fake.Dist-1.2.dist-info", "METADATA", "1.2", "Version: 9 (the description, not a header)\n")
    folder("eggy-3.0.egg-info", "PKG-INFO", "3.0")
    folder("twice-1.0.dist-info", "METADATA", "1.0")
    folder("twice-2.0.dist-info", "METADATA", "2.0")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert installed_version("fake-dist") == importlib.metadata.version("fake-dist") == "1.2"
    assert installed_version("eggy") == importlib.metadata.version("eggy") == "3.0"
    assert installed_version("twice") == importlib.metadata.version("twice")


def test_pint_imports_without_importlib_metadata():
    """In a fresh interpreter: the module is not imported, and pint, flexcache and flexparser know their versions."""
    r = subprocess.run([sys.executable, "-c", _FRESH], cwd=REPO, capture_output=True, text=True, check=True)
    seen = json.loads(r.stdout)
    assert seen["imported"] is False
    assert seen["ours"] == seen["real"]
