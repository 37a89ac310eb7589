"""Many requirements and waivers in one pull request's file (newuser39): `check` stays linear in them.

3,000 requirements on `rack/*` and a waiver of each for a subject no rack has (`rack/zz*<i>`, 600 kB of YAML) had
`archgen check` run 256 s on the 2-core trial machine: each unused waiver's SPC002 hint matched its glob against every
unwaived finding of its document (3,000 x 24,000 pairs), and each finding tried every waiver of its document (108
million pairs) for the few that name its requirement. Each distinct subject is now matched once per waiver, and a
finding tries only the waivers of its check and requirement (`waivers.waiver_index`): 8 s. The findings are the same,
byte for byte (`check --format json` on the shipped specs and on this file).
"""

from __future__ import annotations

import shutil
import time

from archgen import binding
from archgen.checks import registry
from tests.conftest import SPECS

N = 60  # quadratic matching shows at any size: 18,000+ calls before against at most 1,200


def test_unused_waivers_are_matched_once_per_subject(tmp_path, cli, monkeypatch):
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    lines = ["kind: Requirements", "id: many", "requirements:"]
    lines += [f'  - {{id: R-{i}, statement: s, subject: "rack/*", metric: it_power, target: "<= 1 W"}}'
              for i in range(N)]
    lines += ["waivers:"] + [f'  - {{check: REQ001, requirement: R-{i}, subject: "rack/zz*{i}", reason: none}}'
                             for i in range(N)]
    (tmp_path / "specs" / "many.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    calls = 0

    def counted(pattern: str, path: str) -> bool:
        nonlocal calls
        calls += 1
        return binding.matches(pattern, path)

    monkeypatch.setattr(registry, "matches", counted)
    monkeypatch.chdir(tmp_path)
    start = time.process_time()
    r = cli("check", "specs")
    assert time.process_time() - start < 60          # a hang guard in CPU seconds (at N = 600: 5 s wall, 16 s before)
    racks = 5                                        # specs/racks/: the DGX B200 leaf and spine, DGX H100, TPU v4 two
    assert calls <= 4 * N * racks        # a few per waiver or finding and subject (601; 18,301 before; at N = 600 6,001 and 1,803,001)
    assert r.code == 1 and f"{N * racks} error(s)" in r.out.splitlines()[-1]
    assert (f"specs/many.yaml:{N + 5}:5: warning: SPC002 requirements/many: waiver of REQ001 for rack/zz*0 matches no "
            "finding about R-0; its REQ001 findings in this document are about rack/dgx-b200-leaf, rack/dgx-b200-spine, "
            "rack/dgx-h100-4, rack/tpu-v4-cube, rack/tpu-v4-ocs: name one as `subject`") in r.out
