"""`archgen estimate` says which energy figures `archgen check` gives a job, and why none where its hall has no PUE.

newuser48: `check`, `render` and the JSON give a training or serving job its facility energy per million tokens, and
a training run with a token budget its `job_energy` (`analyse.job_energy`), while `estimate` printed neither and
said nothing of them; a workload's own requirement on one read "the training job has no job_energy", as if the
metric did not exist. The energy rests on the cluster's analysed draw and the hall's PUE, which `estimate` does not
analyse, so it now names them and the command that computes them (the rule `OPERATIONS` holds for goodput and cost).
"""

from __future__ import annotations

import shutil
from pathlib import Path

SPECS = Path(__file__).parents[1] / "specs"
NOTE = ("note: energy: `archgen check` computes facility_energy_per_million_tokens, job_energy and job_it_energy (the job's "
        "share of the cluster's draw × the hall's PUE, over these tokens/s); with the hall's `sustainability:` factors, "
        "the run's job_carbon, job_market_carbon and job_water too; the run's figures are before goodput (failures, "
        "restarts and checkpoints add to them); `archgen estimate` gives the performance "
        "estimate only")


def _superpod(tmp_path: Path, facility: bool = True) -> Path:
    """The shipped DGX B200 SuperPOD and its racks, its Llama 3 70B job with 15.6e12 tokens and an energy target."""
    cluster = (SPECS / "clusters" / "dgx-b200-superpod.yaml").read_text(encoding="utf-8")
    assert "facility: hall-air\n" in cluster
    (tmp_path / "c.yaml").write_text(cluster if facility else cluster.replace("facility: hall-air\n", ""),
                                     encoding="utf-8")
    shutil.copytree(SPECS / "racks", tmp_path / "racks")
    text = (SPECS / "workloads" / "llama3-70b.yaml").read_text(encoding="utf-8")
    text = text.replace("  precision: bf16\nrequirements:\n", "  precision: bf16\ncheckpoint: {tokens: 15.6e12}\n"
                        "requirements:\n  - {id: OWN-E, statement: run energy, metric: job_energy, "
                        "target: \"<= 5000 MWh\"}\n", 1)
    assert "OWN-E" in text
    (tmp_path / "w.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_estimate_names_the_energy_check_computes(tmp_path, cli):
    r = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(_superpod(tmp_path)))
    assert NOTE in r.out
    assert ("OWN-E: job_energy <= 5000 MWh: not provided (`archgen estimate` gives the performance estimate only; "
            "`archgen check` computes job_energy)") in r.out


def test_serving_job_gets_the_energy_per_million_tokens_only(cli):
    r = cli("estimate", "--workload", "llama3-70b-serve-b200")
    assert ("note: energy: `archgen check` computes facility_energy_per_million_tokens (the job's share of the cluster's draw "
            "× the hall's PUE, over these tokens/s)") in r.out


def test_without_a_facility_it_says_neither_command_gives_it(tmp_path, cli):
    r = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(_superpod(tmp_path, False)))
    assert ("note: energy: `archgen check` computes job_it_energy (IT energy at maximum draw, without the PUE); "
            "facility_energy_per_million_tokens and job_energy are not provided by `archgen check` either: cluster "
            "'dgx-b200-superpod' names no `facility:`") in r.out


def test_a_collective_has_no_energy_note(cli):
    r = cli("estimate", "--workload", "nccl-allreduce-gb200-su")
    assert "energy" not in r.out
