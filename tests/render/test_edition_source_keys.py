"""The customer edition's References name no key of our specs (newuser108).

Before: the catalog cites a figure by its key ("scale_up.latency 1.9 us: NVIDIA/nccl ...", "Power input
(power.input: dc): ...", "...; management_ports 1)"), and the customer edition of the GB200 NVL72 rack printed
those keys in its References, [2], [14], [32] and [45], where an ODM reads them. Expected: our keys in words
("Scale-up latency 1.9 us: ..."), and another's file's keys a source quotes (MLPerf's "hw_notes"), its file names
and URLs as written.
"""

from __future__ import annotations

import re

from archgen.commands.common import load_specs
from archgen.model.spec_paths import names_a_field
from archgen.render.edition import reference
from tests.conftest import SPECS

#: A dotted or snake_case word outside a URL; it is a leak where it names a field of the citing part's own kind.
_WORD = re.compile(r"(?<![\w./:@#-])[a-z][a-z0-9]*(?:[._][a-z][a-z0-9]*)+(?![\w/-])")


def _sources() -> list[tuple[str, type, str]]:
    specs = load_specs([SPECS, SPECS.parent / "examples"])
    docs = {**specs.items, **{k: d for k, (d, _) in specs.shelf.items()}}
    return [(i, type(d), s) for i, d in sorted(docs.items()) for s in getattr(d, "source", None) or []
            if isinstance(s, str)]


SOURCES = _sources()


def test_the_catalog_sources_that_named_a_key_are_found():
    ids = {i for i, cls, s in SOURCES if any(names_a_field(cls, w) for w in _WORD.findall(s))}
    assert {"gb200", "gb200-compute-tray", "nvlink5-switch-tray", "bluefield-3"} <= ids


def test_a_reference_names_no_field_of_its_part_by_key():
    found = {}
    for part, cls, source in SOURCES:
        text = re.sub(r"https?://\S+", " ", reference(source))
        if keys := [w for w in _WORD.findall(text) if names_a_field(cls, w)]:
            found.setdefault(part, []).extend(keys)
    assert found == {}


def test_our_keys_read_in_words_and_anothers_stay_as_quoted():
    assert reference("scale_up.latency 1.9 us: NVIDIA/nccl src/graph/tuning.cc lines 158-163 at 5067397c2676") \
        == "Scale-up latency 1.9 us: NVIDIA/nccl src/graph/tuning.cc lines 158-163 at 5067397c2676"
    assert reference("Power input (power.input: dc): a guide") == "Power input (power input: dc): a guide"
    assert reference("a page (one RJ45 port; management_ports 1): https://x.example/a_b.c") \
        == "a page (one RJ45 port; management ports 1): https://x.example/a_b.c"
    quoted = ('mlcommons/inference_results_v6.1 closed/NVIDIA/systems/x.json (read at 5174fca): hw_notes "1200W", '
              'accelerator_memory_capacity "186 GB"')
    assert 'hw_notes "1200W", accelerator_memory_capacity "186 GB"' in reference(quoted)
