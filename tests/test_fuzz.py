"""Mutation fuzz of every file a user hands archgen (issues 11 and 23): no traceback, no exit 0 on invalid input,
no partial or non-strict output file, no content of a file outside the spec tree in any output.

The corpus (tests/fuzz_corpus.py) is every shipped spec, the GB300 example, every file of every check case, the test
fabrics and both validation-case files; the mutators (tests/fuzz_mutate.py) change a value's type, unit or
magnitude, a reference, an enum (topologies, OCS, port groups, scale-up kinds, NIC transports, training switches,
serving scenarios, waiver subjects, `expect:` tiers: any value seen at the same key), copy a value to another key,
delete, duplicate or add keys, duplicate a document, add a YAML directive, replace the file by a symlink, or break
the raw text. Each example runs `archgen check FILE --format json --output OUT` in-process on the mutated file with
the files it runs with (`estimate --cases FILE` for a case file). The unchanged documents are parsed once per
session and handed to the pipeline (`pipeline.load` is patched), the shipped catalog's documents are validated once
(`validate_one`), and the parsed-YAML cache is off, so an example costs the parse of one file plus the pipeline on a
rack-sized design. `make test` runs 2,000 derandomised examples as 8 tests that `pytest -n` spreads over its workers:
the same ones on every machine for the same archgen source imported as far, not for every run. Hypothesis draws an
integer, with probability 0.05, from the constants it finds in the source of the local modules imported so far
(archgen's, an editable install; hypothesis 6.170 `providers._get_local_constants`), so an edit to a number anywhere in
archgen, or a run that has imported other modules before a shard (this file alone, `-k`), draws other examples
(suite37: the same seed and settings, one extra local module holding a constant, drew it). A failure's
@reproduce_failure blob (`print_blob`) replays its choices whatever is imported. `make fuzz` runs
`ARCHGEN_FUZZ_EXAMPLES` (100,000) with a random seed, under an address-space cap. `python -m tests.fuzz_round N`
runs a round through every command and format in capped children.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, note, seed, settings
from hypothesis import strategies as st

from tests.conftest import run_cli
from tests.fuzz_corpus import build_world
from tests.fuzz_mutate import SECRET, Draw, mutate, whole_file

EXAMPLES = int(os.environ.get("ARCHGEN_FUZZ_EXAMPLES", "2000"))
#: The examples run as this many tests, so that `make test`'s two workers share them (one test of 2,000 examples was
#: the longest pole of the suite); each shard fuzzes its own slice of the corpus.
SHARDS = 8
#: The first shard's seed when derandomised (`make test`): the same examples on every machine.
SEED = 23_000


@pytest.fixture(scope="module")
def world():
    """The corpus, parsed once."""
    return build_world()


@pytest.fixture(scope="module")
def validate_one(world):
    """`archgen.validate._validate_one`, remembering its model of each document of the shipped catalog.

    Every example validates the unchanged catalog again (96 documents, about a fifth of an example's time); the
    documents are the same parsed objects in every example and the models are frozen, so each is validated once.
    The mutated file and the files it runs with are validated afresh in every example.
    """
    from archgen import validate
    original, library, models = validate._validate_one, {id(d) for d in world.library}, {}

    def one(doc, problems):  # type: ignore[no-untyped-def]
        if id(doc) not in library:
            return original(doc, problems)
        if id(doc) not in models:
            found: list = []
            models[id(doc)] = original(doc, found), found
        model, found = models[id(doc)]
        problems.extend(found)
        return model
    return one


@pytest.mark.parametrize("shard", range(SHARDS))
def test_mutated_specs_never_crash_pass_invalid_input_or_leave_partial_files(world, validate_one, shard,
                                                                            tmp_path_factory, monkeypatch):
    """`EXAMPLES` in all, over `SHARDS` tests that `pytest -n` spreads over its workers: shard k mutates the
    scenarios k, k + SHARDS, ... (the corpus split, not sampled again) from its own fixed seed in `make test`."""
    scenarios = world.scenarios[shard::SHARDS]
    root = tmp_path_factory.getbasetemp() / f"fuzz-{shard}"

    @settings(max_examples=-(-EXAMPLES // SHARDS), deadline=None, derandomize=EXAMPLES <= 2000, database=None,
              print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def example(data):
        _example(world, scenarios, data, root, monkeypatch)

    from archgen import validate
    monkeypatch.setattr(validate, "_validate_one", validate_one)
    (root / "secret").mkdir(parents=True, exist_ok=True)  # out of the spec tree; no example writes there
    (root / "secret" / "credentials").write_text(f"kind: Rack\nid: {SECRET}\n", encoding="utf-8")

    (seed(SEED + shard)(example) if EXAMPLES <= 2000 else example)()


def _example(world, scenarios, data, root: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """One mutated file through `check` (or `estimate --cases`), and what must hold of the result."""
    scenario = data.draw(st.sampled_from(scenarios), label="file")
    m = mutate(Draw(lambda seq: data.draw(st.sampled_from(seq)), lambda lo, hi: data.draw(st.integers(lo, hi))),
               scenario, world)
    note(f"{scenario.name}: {m.what}")
    if os.environ.get("ARCHGEN_FUZZ_LOG"):  # the example running when a fuzz run is killed (memory, time)
        with open(os.environ["ARCHGEN_FUZZ_LOG"], "a", encoding="utf-8") as log:
            log.write(f"{scenario.name}: {m.what}\n")
    spec, out = root / "specs" / Path(scenario.name).name, root / "out" / "report.json"
    if root.exists():
        for folder in (spec.parent, out.parent):
            for p in folder.iterdir() if folder.exists() else ():
                p.unlink()
    spec.parent.mkdir(parents=True, exist_ok=True)
    _write(spec, scenario, m, root)
    others = scenario.others + [d for i, d in enumerate(scenario.docs) if i != m.index and m.index >= 0]

    from archgen import cache, pipeline
    from archgen.load import load_paths
    monkeypatch.setattr(cache, "store", lambda *a: None)
    monkeypatch.setattr(cache, "load", lambda *a: None)
    monkeypatch.setattr(pipeline, "load", lambda paths, catalog=None: (load_paths(paths) + others, world.library))
    if scenario.cases:
        r = run_cli("estimate", "--cases", spec, "--format", "json")
    else:
        r = run_cli("check", spec, "--format", "json", "--output", out)

    event(f"exit {r.code}{' (invalid input)' if m.invalid else ''}")  # --hypothesis-show-statistics
    assert r.code in (0, 1, 2), r.err
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    if m.invalid:
        assert r.code != 0, f"invalid input passed: {m.what}"
    assert SECRET not in r.out + r.err + (out.read_text(encoding="utf-8") if out.exists() else "")

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON report")
    if scenario.cases:
        if r.out.strip():  # a refused file prints its errors on stderr, nothing on stdout
            json.loads(r.out, parse_constant=refuse)
        return
    assert not [p for p in out.parent.glob("*") if p.name != out.name] if out.parent.exists() else True
    if out.exists():
        report = json.loads(out.read_text(encoding="utf-8"), parse_constant=refuse)
        for f in report["findings"]:
            if f["id"] in ("SPC000", "SPC001"):  # a link refused unread has a file but no line
                assert f["file"] and (f["line"] or m.link), f
    else:
        assert r.code == 2 and r.err.strip(), r.err


def _write(spec: Path, scenario, m, root: Path) -> None:  # type: ignore[no-untyped-def]
    """The mutated file at `spec`, or the link that replaces it (out of the tree, dangling, a loop, or inside)."""
    if m.link == "outside":
        spec.symlink_to(root / "secret" / "credentials")
    elif m.link == "dangling":
        spec.symlink_to(root / "secret" / "missing.yaml")
    elif m.link == "loop":
        spec.symlink_to(spec.name)
    elif m.link == "inside":  # to the unchanged file, beside it in the tree
        (spec.parent / "zz-original.yaml").write_text(scenario.text, encoding="utf-8")
        spec.symlink_to("zz-original.yaml")
    else:
        spec.write_bytes(whole_file(scenario, m) if m.index < 0 else m.text)
