"""Issue 24 part 4: the shipped library (models and racks in specs/catalog) used by id, and the catalog commands."""

from __future__ import annotations

import json

import pytest

from archgen.perf.hw.arch import Arch
from archgen.pipeline import load, run
from archgen.validate import validate
from tests.conftest import SPECS, run_cli

#: A new project that copies nothing: a cluster of one GB300 NVL72 rack and a Llama 3.1 70B serving job, by id.
PROJECT = """\
kind: Cluster
id: pod
name: One GB300 NVL72 rack
facility: hall-liquid
units:
  - id: u
    racks:
      - {rack: gb300-nvl72, count: 1}
floor: {racks_per_row: 11, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
layout:
  - {unit: u, count: 1}
scale_up: {domain: rack, size: 72, bandwidth: 1.8 TB/s, switch: nvlink5-switch-tray, switches: 9,
           link: nvlink-copper-cartridge}
---
kind: Workload
id: serve
name: Llama 3.1 70B serving on one NVL72
model: llama3-70b
cluster: pod
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256}
"""


def _project(tmp_path, text=PROJECT):
    (tmp_path / "design.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "design.yaml"


def test_a_new_project_names_a_library_model_and_rack_by_id(tmp_path):
    result = run([_project(tmp_path)])
    assert not result.errors
    assert set(result.metrics) == {"cluster/pod", "rack/gb300-nvl72", "workload/serve"}  # no other library rack
    assert result.metrics["cluster/pod"]["accelerators"].m == 72
    assert result.workloads["workload/serve"].estimate is not None


def test_a_project_id_shadows_the_library(tmp_path):
    forked = PROJECT + "---\n" + (SPECS / "catalog" / "models" / "llama3-70b.yaml").read_text(encoding="utf-8").replace(
        "layers: 80", "layers: 40")
    specs = validate(*load([_project(tmp_path, forked)]))
    assert specs.get("llama3-70b").layers == 40


#: Total parameters as published: Llama 3.1 (HF model cards: 8.03B, 70.6B, 405B), Qwen3 model cards (30.5B,
#: 235B), Mixtral (Jiang et al. arXiv 2401.04088 section 2.1: 47B; Mistral AI, 'Cheaper, Better, Faster,
#: Stronger', 2024-04-17: 141B), GPT-3 (Brown et al. Table 2.1: 175.0B), DeepSeek-V3 (arXiv 2412.19437, abstract: 671B,
#: with its MLA projections). The count is archgen.perf.hw.arch's formula.
PUBLISHED = {"llama3-8b": 8.03e9, "llama3-70b": 70.6e9, "llama3-405b": 405e9, "qwen3-30b-a3b": 30.5e9,
             "qwen3-235b-a22b": 235e9, "mixtral-8x7b": 46.7e9, "mixtral-8x22b": 141e9, "gpt3-175b": 175e9,
             "deepseek-v3": 671e9}


def test_every_library_model_cites_its_source_and_counts_its_published_parameters():
    specs = validate(*load([]))
    models = {k: m for k, (m, _) in specs.shelf.items() if m.kind == "Model"}
    assert set(PUBLISHED) == set(models)
    assert all(len(m.source) > 10 for m in models.values())
    for name, total in PUBLISHED.items():
        assert Arch.from_model(models[name]).params() == pytest.approx(total, rel=0.01), name


def test_catalog_lists_models_and_racks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                    # no specs/ here: the shipped catalog alone
    models = run_cli("catalog", "list", "--kind", "Model")
    assert models.code == 0 and {r.split()[1] for r in models.out.splitlines()} == set(PUBLISHED)
    racks = run_cli("catalog", "list", "--kind", "rack")
    assert racks.code == 0 and {"gb200-nvl72", "gb300-nvl72"} <= {r.split()[1] for r in racks.out.splitlines()}


def test_catalog_lists_the_published_rate_sets(tmp_path, monkeypatch):
    """newuser103: `catalog show rsc1-a100-2024` gave a rate set, `catalog list --kind FailureRates` refused the kind
    ("no catalog kind"), so a reliability engineer choosing a cluster's `failure_rates` had to read the files."""
    monkeypatch.chdir(tmp_path)                    # no specs/ here: the shipped catalog alone
    shipped = {p.stem for p in (SPECS / "catalog" / "reliability").glob("*.yaml")}
    sets = run_cli("catalog", "list", "--kind", "failurerates")
    ids = {r.split()[1] for r in sets.out.splitlines()}
    assert sets.code == 0 and {r.split()[0] for r in sets.out.splitlines()} == {"FailureRates"}
    assert {"field-h100-2024", "rsc1-a100-2024", "rsc1-jobs-a100-2024", "stepfun-nvidia-2024"} <= ids
    assert len(ids) >= len(shipped)                # rsc-a100-2024.yaml holds three sets


def test_catalog_filters_by_asic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                    # no specs/ here: the shipped catalog alone
    th5 = run_cli("catalog", "list", "--asic", "Tomahawk 5")
    rows = {r.split()[1] for r in th5.out.splitlines()}
    assert th5.code == 0 and rows == {"arista-7060x6-64pe", "celestica-ds5000"}
    spectrum = {r.split()[1] for r in run_cli("catalog", "list", "--asic", "spectrum")
                .out.splitlines()}
    assert spectrum == {"sn2201"}  # whole words: Spectrum-4 is another ASIC
    missing = run_cli("catalog", "list", "--asic", "Tomahawk 9")
    assert missing.code == 2 and "no catalog part has ASIC 'Tomahawk 9'" in missing.err


def test_catalog_show_yaml_is_a_spec_to_fork(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                    # no specs/ here: the shipped catalog alone
    shown = run_cli("catalog", "show", "gb300-nvl72", "--format", "yaml")
    assert shown.code == 0 and shown.out.startswith("# catalog/racks/gb300-nvl72.yaml:") or \
        shown.out.startswith("# specs/catalog/racks/gb300-nvl72.yaml:")
    body = shown.out.split("\n", 1)[1]
    assert body.startswith("kind: Rack\nid: gb300-nvl72\n")
    fork = tmp_path / "fork"
    fork.mkdir()
    (fork / "rack.yaml").write_text(body.replace("id: gb300-nvl72", "id: my-nvl72"), encoding="utf-8")
    result = run([fork])
    assert not result.errors
    assert result.metrics["rack/my-nvl72"]["it_power"].m_as("kW") == pytest.approx(137.7, abs=0.05)   # thermal2: 142 kW at the feeds
    as_json = run_cli("catalog", "show", "llama3-70b")
    assert json.loads(as_json.out.split("\n", 1)[1])["layers"] == 80
    bad = run_cli("catalog", "show", "llama3-70b", "--format", "toml")
    assert bad.code == 2 and "unknown format 'toml'" in bad.err


def test_a_typo_of_a_library_model_suggests_it(tmp_path):
    result = run([_project(tmp_path, PROJECT.replace("model: llama3-70b", "model: llama3-70c"))])
    ref = [f for f in result.errors if f.id == "REF001"]
    assert len(ref) == 1 and "did you mean 'llama3-70b'?" in ref[0].message
    far = run([_project(tmp_path, PROJECT.replace("model: llama3-70b", "model: my-own-llm"))])
    assert "`archgen catalog list --kind Model` lists the ids" in far.errors[0].message


def test_a_part_typo_folds_what_follows_from_it(tmp_path, cli):
    """Issue 24 part 5: a rack-id typo is REF001 with "did you mean" first; the cluster's NET008 (no accelerators)
    and the workload's PERF003 (cannot be estimated) follow from it and are folded under it; COST003 (assumed
    prices of the hall) does not and keeps its own line."""
    path = _project(tmp_path, PROJECT.replace("{rack: gb300-nvl72, count: 1}", "{rack: gb300-nvl7, count: 1}"))
    out = cli("check", path).out.splitlines()
    assert "error: REF001 cluster/pod: 'gb300-nvl7' names no document (expected a Rack); did you mean " \
           "'gb300-nvl72'?" in out[0]
    folded = [line for line in out[1:] if line.startswith("    ")]
    assert out[1:1 + len(folded)] == folded                   # the folded lines follow the REF001 at once
    assert any("error: NET008 cluster/pod" in line for line in folded)
    assert any("error: PERF003 workload/serve" in line for line in folded)
    assert [line for line in out if "COST003" in line and not line.startswith(" ")]
    assert out[-1].startswith("3 error(s)")  # folded, still counted
    findings = json.loads(cli("check", path, "--format", "json").out)["findings"]
    caused = {f["id"]: f.get("caused_by") for f in findings}
    assert caused == {"REF001": None, "NET008": "REF001 cluster/pod: 'gb300-nvl7'",
                      "PERF003": "REF001 cluster/pod: 'gb300-nvl7'", "COST003": None, "CAT001": None,
                      "NET024": "REF001 cluster/pod: 'gb300-nvl7'"}  # the cluster's networks rest on the rack too
    results = json.loads(cli("check", path, "--format", "sarif").out)["runs"][0]["results"]
    assert {r["ruleId"]: r.get("properties", {}).get("causedBy") for r in results}["NET008"] == caused["NET008"]


TWICE = PROJECT.replace("      - {rack: gb300-nvl72, count: 1}\n",
                        "      - {rack: gb300-nvl7, count: 1}\n      - {rack: gb300-nvl7, count: 1}\n") + """\
---
kind: Requirements
id: money
requirements:
  - {id: REQ-M-3, statement: TCO, subject: cluster/pod, metric: tco_per_year, target: "<= 2.5 USD/h"}
"""


def test_a_typo_typed_twice_folds_its_cascade_once_and_leaves_a_target_as_written_alone(tmp_path, cli):
    """newuser102: a rack typo on two lines of a cluster is two REF001 findings of one cause, and the text report
    printed its NET008, PERF003 and REQ002 under each (five times over on a copied DGX B200 SuperPOD); REQ007, a
    money target written per hour on a cost per year, was folded under it though no part moves it."""
    out = cli("check", _project(tmp_path, TWICE)).out.splitlines()
    refs = [i for i, line in enumerate(out) if "error: REF001 cluster/pod: 'gb300-nvl7'" in line]
    assert len(refs) == 2 and out[refs[1] - 1].startswith("    ")      # the cascade under the first only
    assert refs[1] + 1 == len(out) - 1 or not out[refs[1] + 1].startswith("    ")
    assert sum("error: NET008 cluster/pod" in line for line in out) == 1
    assert sum("error: REQ002 cluster/pod: REQ-M-3" in line and line.startswith("    ") for line in out) == 1
    (req007,) = [line for line in out if "warning: REQ007 cluster/pod" in line]
    assert not req007.startswith(" ")
    assert out[-1].startswith("5 error(s), 3 warning(s)")          # every finding still counted once
    caused = {f["id"]: f.get("caused_by") for f in json.loads(cli("check", _project(tmp_path, TWICE), "--format",
                                                                   "json").out)["findings"]}
    assert caused["REQ007"] is None and caused["REQ002"] == "REF001 cluster/pod: 'gb300-nvl7'"


def test_without_a_typo_nothing_is_folded(cli):
    findings = json.loads(cli("check", SPECS, "--format", "json").out)["findings"]
    assert not any("caused_by" in f for f in findings)


HALL = """\
---
kind: Facility
id: hall-liquid
name: A 150 kW liquid hall (shadows the shipped one)
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
critical_it_power: 150 kW
cooling_capacity: 140 kW
cost:
  energy: {price: 0.0895 USD/kWh, pue: 1.25, basis: assumed, source: "assumed for the test"}
  space_per_rack: 2000 USD/month
  depreciation_years: 5
  basis: assumed
  source: "assumed for the test"
---
kind: Requirements
id: hall
name: What the hall can take
requirements:
  - {id: R-1, statement: Utility feed, subject: cluster/pod, metric: facility_power, target: "<= 175 kW"}
  - {id: R-2, statement: Critical IT power, subject: cluster/pod, metric: it_capacity_headroom, target: ">= 0 kW"}
  - {id: R-3, statement: Cooling, subject: cluster/pod, metric: cooling_headroom, target: ">= 0 kW"}
"""


def test_facility_power_is_it_power_times_pue_and_the_halls_capacity_is_checked(tmp_path):
    """One GB300 NVL72 rack draws 142.396 kW IT (test_catalog: NVIDIA's 142 kW) from its busbar, 142.396 / 0.97 =
    146.800 kW at its feeds (its shelves' loss, buyer2); at PUE 1.25 the hall draws 183.5 kW, over a 175 kW feed;
    150 kW of critical IT power leaves 3.2 kW; 140 kW of cooling is 6.8 kW short (before: 142.396 kW IT). Since rackfix
    its two AC SN2201 (0.196 kW) are fed from outside the shelves (power.external), with no shelf loss: 146.794 kW.
    Since thermal2 NVIDIA's 142 kW is read at the feeds, so the compute tray is (142 x 0.97 - 9 x 3.8 - 2 x 0.098) / 18
    = 5.74 kW and the rack's equipment draws 137.716 kW: 141.969 kW at the feeds, 177.5 kW at PUE 1.25 (still over
    175 kW), 8.0 kW of critical IT headroom, cooling 2.0 kW short."""
    feeds = (137.716 - 0.196) / 0.97 + 0.196
    result = run([_project(tmp_path, PROJECT + HALL)])
    m = result.metrics["cluster/pod"]
    assert m["it_power"].m_as("kW") == pytest.approx(feeds)
    assert m["facility_power"].m_as("kW") == pytest.approx(feeds * 1.25)
    assert m["it_capacity_headroom"].m_as("kW") == pytest.approx(150 - feeds)
    assert m["cooling_headroom"].m_as("kW") == pytest.approx(140 - feeds)
    failed = sorted(f.requirement for f in result.errors if f.id == "REQ001")
    assert failed == ["R-1", "R-3"]
