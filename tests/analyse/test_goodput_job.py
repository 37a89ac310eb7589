"""The goodput behind a cluster's cost per goodput hour is its largest training job's, by a stated rule (cost31).

newuser85 (issue 22): on the MI355X cluster two training jobs run on all 512 GPUs, the shipped Llama 3.1 70B
pre-training and the analyst's 405B one; "per goodput hour" took the 70B job's goodput, 0.8266, not the 405B job's,
0.8205, and nothing said which or why (the pick was the larger workload path, "llama3-70b..." > "llama3-405b...").
The rule now: the training job on the most accelerators; of several on as many, the lowest goodput (the highest
cost per goodput hour: the cluster earns no better), then the first by id. The document and the cost sheet name it.
"""

from __future__ import annotations

from pathlib import Path

from archgen.analyse.goodput_notes import largest_job
from archgen.pipeline import run
from tests.conftest import SPECS

CLUSTER = "cluster/mi355x-th5"
PRETRAIN_405B = """\
kind: Workload
id: llama3-405b-pretrain-mi355x
model: llama3-405b
cluster: mi355x-th5
training: {seq_len: 8192, global_batch: 512, precision: bf16}
"""

#: The trial's checkpoint storage (its figures the analyst's, not a product's): without one, no job has a goodput.
STORAGE = ("storage: {capacity: 4 PB, write_bandwidth: 200 GB/s, read_bandwidth: 400 GB/s, basis: assumed, "
           "source: trial figure, external_network: 'site storage network, outside the proposal'}\n")


def test_a_tie_on_accelerators_takes_the_lowest_goodput_then_the_first_id():
    jobs = [(512, 0.8266, "workload/b"), (512, 0.8205, "workload/c"), (64, 0.5, "workload/a")]
    (n, g, path), words = largest_job(jobs)
    assert (n, g, path) == (512, 0.8205, "workload/c")
    assert words.startswith("c's, the training job on the most accelerators (512)")
    assert "tied with b (goodput 0.8266)" in words
    assert largest_job([(512, 0.8, "workload/b"), (512, 0.8, "workload/a")])[0][2] == "workload/a"   # then by id
    assert "tied" not in largest_job([(512, 0.8, "workload/a")])[1]


def test_the_cluster_goodput_is_the_tied_jobs_lowest_and_says_whose(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    cluster = (SPECS / "clusters" / "mi355x-th5.yaml").read_text(encoding="utf-8")
    assert cluster.count("kind: Cluster\n") == 1
    (root / "cluster.yaml").write_text(cluster.replace("kind: Cluster\n", "kind: Cluster\n" + STORAGE), encoding="utf-8")
    (root / "job.yaml").write_text(PRETRAIN_405B, encoding="utf-8")
    r = run([Path(root)])
    own = {p: g.goodput for p, g in r.operations.goodput.items()}
    low, high = own["workload/llama3-405b-pretrain-mi355x"], own["workload/llama3-70b-pretrain-mi355x"]
    assert low < high   # 0.8205 < 0.8266 in the trial
    assert r.metrics[CLUSTER]["goodput"].m == low   # was the 70B job's
    words = r.operations.goodput_job[CLUSTER]
    assert words.startswith("llama3-405b-pretrain-mi355x's, the training job on the most accelerators (512)")
    assert f"tied with llama3-70b-pretrain-mi355x (goodput {high:.4f})" in words
