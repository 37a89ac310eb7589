"""The customer edition quotes no spec key and gives the design team no instruction (`render/edition_text.py`, small27).

nu66fix left spec keys in code spans in the customer edition of every shipped design: the glossary's check summaries
("not listed under `cooling.liquid.unconfirmed:`"), bom.csv's Source ("the rack states no `cooling.liquid.hoses`"),
the performance notes ("(`model.accelerator.VECTOR_EFFICIENCY`)"), and PERF006 told a partner "state `stack:
nemo-2025` under `training:` to keep them, and see `archgen estimate --workload ...`". The bar here is every shipped
rack and cluster's customer edition, in Markdown, HTML and every CSV: no code span, no `specs/` path, no instruction
to state a key or run archgen; the internal edition keeps them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.render.edition_text import spec_words, without_code

#: What the team's words look like: a spec key quoted, an instruction to state one, archgen's commands and options.
TEAM = re.compile(r"`|<code>|\bspecs/|\bstat(?:e|ing) `|archgen (?:estimate|check|render)|--search-plan|"
                  r"\bunder `training:`|to judge it\b|\b[a-z_]+\.[A-Z][A-Z_]{3,}\b")


@pytest.fixture(scope="module")
def customer_files(shipped_run, tmp_path_factory) -> list[Path]:
    """The customer edition of every shipped rack and cluster: Markdown, HTML and CSVs (placeholder diagrams)."""
    from archgen.render import diagrams, render_all
    from tests.render.golden_util import PLACEHOLDER
    out = tmp_path_factory.mktemp("customer-all")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diagrams, "render", lambda name, draw, formats: {f: PLACEHOLDER[f] for f in formats})
        written = render_all(shipped_run, out, formats=("md", "html", "csv"), revision="test", progress=False,
                             audience="customer")
    return [p for p in written if p.suffix in (".md", ".html", ".csv")]


def test_no_customer_file_quotes_a_spec_key_or_instructs_the_team(customer_files):
    assert {p.suffix for p in customer_files} == {".md", ".html", ".csv"}
    assert len({p.parent.name for p in customer_files}) >= 16   # every shipped rack and cluster
    found = {}
    for path in customer_files:
        text = path.read_text(encoding="utf-8").replace("\\`", "`")
        hits = sorted({m.group(0) for m in TEAM.finditer(text)})
        if hits:
            found[f"{path.parent.name}/{path.name}"] = hits
    assert found == {}


def test_the_customer_edition_states_what_the_team_instruction_assumed(customer_files):
    by_name = {f"{p.parent.name}/{p.name}": p.read_text(encoding="utf-8").replace("\\_", "_") for p in customer_files}
    su = by_name["gb200-nvl72-su/gb200-nvl72-su.customer.md"]
    assert ("llama3-405b-pretrain-gb200 states no training stack: every setting it leaves out takes the newest "
            "profile, nemo-2025; its figures rest on that profile, an assumption, not on a stack the design states") in su
    assert ("takes the newest profile, nemo-2025, which stands in for this part's own stack (PERF005: no profile of it "
            "is modelled); its figures rest on") in by_name["tpu-v4-pod/tpu-v4-pod.customer.md"]
    assert "nvlink5-switch-tray (no typical power stated); MLPerf Training power results measured their nodes at 0.57 to 0.69 " \
           "of that maximum over a run. A target it meets is met" in su
    assert "| PWR019 | The hall's UPS autonomy covers its generator sets' start and transfer (NFPA 110). |" in su
    assert "not provided: the rack states no liquid hoses (27 liquid-cooled trays per rack)" in \
           by_name["gb200-nvl72-su/bom.customer.csv"]


def test_the_internal_edition_keeps_the_instruction(shipped_run):
    [perf006] = [f for f in shipped_run.findings if f.id == "PERF006" and f.object.endswith("405b-pretrain-gb200")]
    assert "; state `stack: nemo-2025` under `training:` to keep them, and see `archgen estimate --workload " \
           "llama3-405b-pretrain-gb200` for the step time under every profile" in perf006.message


def test_without_code_reads_keys_in_words_and_drops_pointers():
    assert without_code("no `power.typical` stated; state their `power.typical` to judge it. Next") == \
        "no typical power stated. Next"
    assert without_code("distributes (`Facility.voltage`, line-to-line) and (`NIC.transport`); x") == \
        "distributes (line-to-line) and; x"
    assert without_code("expectations; `perf.comm.rccl_net`) and (its pumps and controls, `power`)") == \
        "expectations) and (its pumps and controls)"
    assert without_code("a `Prices` document, `leaf.serves_racks`, `tokens_per_second`",
                        {"tokens_per_second": "Tokens per second"}) == \
        "a Prices document, leaf serves racks, Tokens per second"
    assert without_code("AMD accelerators; stack_profiles.VENDOR_STACKS)) and x (archgen estimate --workload w "
                        "--explain gives each one's source): y") == "AMD accelerators)) and x: y"
    assert spec_words("cooling.liquid.unconfirmed:") == "the liquid loop's unconfirmed figures"
    assert spec_words("<tier>.count") == "switch count"


def test_a_code_span_that_states_a_value_keeps_it():
    """review34: "`feeds.utility_voltage: 13.8 kV`" read "feeds utility voltage 13 8 kV", and the facility's feed
    count and redundancy in the same bracket were dropped as key pointers (the FAC message of its check case)."""
    message = ("facility 'small-hall''s utility feeds (`feeds.utility_feeds: 2`, `feeds.utility_voltage: 13.8 kV`, "
               "`feeds.utility: N+N`): no capacity per feed")
    assert without_code(message) == ("facility 'small-hall''s utility feeds (feeds utility feeds 2, feeds utility "
                                     "voltage 13.8 kV, feeds utility N+N): no capacity per feed")
    assert spec_words("0.85") == "0.85"
    assert spec_words("cost.energy.pue") == "cost energy pue"
    assert spec_words("stack: nemo-2025") == "stack nemo-2025"
    assert spec_words("storage:") == "storage"


def test_findings_open_items_and_unconfirmed_fields_name_no_key(customer_files):
    """edition28: each finding in its check's customer words, a part's unconfirmed fields in words ("maximum power").

    In every shipped customer document, the validation report's rows, the open items and the components' and
    unconfirmed inputs' field lists hold no spec key (`edition_text.LEFTOVER`), but for the checks still on
    test_public_messages' `PENDING` list (their messages still pass through the regex pass).
    """
    from archgen.render.edition_text import leftovers
    from tests.checks.test_public_messages import PENDING
    found = {}
    for path in (p for p in customer_files if p.suffix == ".md"):
        text = path.read_text(encoding="utf-8").replace("\\_", "_")
        report = text.split("Validation report\n", 1)[-1].split("\n## ", 2)
        for line in "\n".join(report[:2]).splitlines():
            cid = re.match(r"(?:- |\| (?:<a id=\"[\w-]+\"></a>)?)([A-Z]+\d{3})\b", line)
            if cid and cid.group(1) not in PENDING and (hits := leftovers(re.sub(r"rack/[\w.-]+", "", line))):
                found[f"{path.parent.name} {cid.group(1)}"] = hits
        for line in text.splitlines():
            if re.match(r"\| [\w.-]+ \| .*\| (?:assumed|sourced) \| ", line) or "figures not confirmed" in line:
                cells = line.split("|")
                if hits := leftovers(cells[7] if len(cells) > 9 else line):
                    found[f"{path.parent.name} {line[:40]}"] = hits
    assert found == {}
