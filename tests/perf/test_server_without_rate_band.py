"""A `server` job without an `arrival_rate` reports the offline figures, so it carries the offline family's bands.

The input that showed it (newuser19): Llama 3.1 70B in FP8, TP 8 on 64 DGX B200 GPUs, 2,048 + 128 tokens,
`scenario: server` and no rate. Its figures are the offline closed form's (the note says so; tokens/s 30,530 as with
`scenario: offline`), but their bands were the simulated runs': TPOT 83.01 ms "band 74.97 ms to 380.8 ms ... on 20
serving under load measurements", where no offline TPOT is measured, and tokens/s 24,960-32,680 on 20 runs under
load where offline's 53 measurements give 20,970-33,330. A band says what the model's error on such figures was; the
simulated runs' errors are not those of the closed form.
"""

from __future__ import annotations

import json

from archgen.perf.workload.band_families import run_scenario
from archgen.perf.workload.band_table import TABLE
from tests.conftest import SPECS, run_cli

WORKLOAD = """\
kind: Workload
id: l70-{name}
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
inference: {{precision: fp8, tp: 8, input_len: 2048, output_len: 128{extra}}}
"""


def test_the_rule():
    assert run_scenario("server", None) == "offline"
    assert run_scenario("server", 40.0) == "server"
    assert run_scenario("concurrency", None) == "concurrency"


def test_server_without_a_rate_has_the_offline_bands(tmp_path):
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(name="server", extra=", scenario: server") + "---\n"
                                     + WORKLOAD.format(name="offline", extra=""), encoding="utf-8")

    def estimate(name: str) -> dict:
        got = run_cli("estimate", SPECS, tmp_path, "--workload", f"l70-{name}", "--format", "json")
        assert got.code == 0, got.out
        return json.loads(got.out)

    server, offline = estimate("server"), estimate("offline")
    assert server["metrics"]["tokens_per_second"] == offline["metrics"]["tokens_per_second"]
    assert server["bands"] == offline["bands"]
    tpot = server["bands"]["tpot"]   # no offline TPOT is measured: the tokens/s band by Little's law (offband38)
    assert (tpot["family"], tpot["measurements"]) == ("offline-serving", TABLE["offline-serving"]["tokens_per_second"][0])
    assert "tpot" not in TABLE["offline-serving"] and tpot["carried"].startswith("no published offline run's TPOT")
