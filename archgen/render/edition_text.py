"""The customer edition's words where the internal edition writes to the design team (split from `render/edition`).

The internal edition quotes spec keys in code spans (``no `power.typical` stated``, ``the rack states no
`cooling.liquid.hoses` ``) and tells the team what to write or run (``state `stack: nemo-2025` under `training:` to
keep them, and see `archgen estimate --workload ...` ``). A customer has neither our specs nor archgen, so the customer
edition (`without_code`, applied by `render/edition.py` to every text it rewords, the CSV and XLSX cells included):

- states the assumption where a finding tells the team to pin it (`ASSUMED`: PERF006's unstated training stack reads
  "its figures rest on that profile, an assumption", not "state `stack: ...` ... and see `archgen estimate`");
- leaves out the team's instruction clauses (`_INSTRUCTION`: "; state their `power.typical` to judge it",
  "; `--search-plan` searches cp too, or state it", PWR021's "(list the clusters ... in its `deployed`)"): the text
  before already says what is assumed or not stated;
- leaves out a code span that only points at a key in brackets ("(`NIC.transport`)", "(`Facility.voltage`,
  line-to-line)" → "(line-to-line)"), a pointer to archgen's own tables ("; stack_profiles.VENDOR_STACKS)") and a
  command in brackets ("(archgen estimate --workload ... --explain gives each one's source)");
- writes any other code span in words (``spec_words``: "no typical power stated", "the rack states no cooling liquid
  hoses").

No figure is changed; the internal edition keeps every key and instruction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: A check's message that gives the team an instruction where a customer reads an assumption, by check: (the part
#: kept, as a pattern whose named groups the customer wording uses, the customer wording). PERF006: a training job
#: that states no stack takes its vendor's newest profile (`checks/perf.py::unstated_stack`).
ASSUMED: dict[str, tuple[re.Pattern[str], str]] = {
    "PERF006": (re.compile(r"(?P<job>\S+) states no training stack: every switch it leaves out takes the newest "
                           r"profile, (?P<stack>[\w.-]+), which a later archgen may replace.*?(?P<stand_in>, as the "
                           r"stand-in's \(PERF005[^)]*\))?, (?:not as the stack the job runs, )?and see "
                           r"`archgen estimate --workload [^`]*` for the step time under every profile"),
                "{job} states no training stack: every setting it leaves out takes the newest profile, {stack}"
                "{stand_in}; its figures rest on that profile, an assumption, not on a stack the design states"),
}
#: The stand-in note of a PERF006 message on a part whose vendor has no profile, as a customer reads it.
_STAND_IN = ", which stands in for this part's own stack (PERF005: no profile of it is modelled)"
#: An instruction clause to the design team, left out: the text before it states what is assumed.
_INSTRUCTION = re.compile(r";\s*state their `[^`]+` to judge it"
                          r"|;\s*`--[\w-]+` searches [^;)]*?, or state it"
                          r"|;\s*judge the run's energy on `[^`]+`[^;.]*"
                          r"|\s*\(list the clusters standing in the hall side by side in its `deployed`\)"
                          r"|\s*\(archgen [a-z]+ [^()]*\)")
#: A code span in brackets that only points at a key: the whole bracket, or its first or last item.
_POINTER = re.compile(r"\s*\(`[^`]+`\)|(?<=\()`[^`]+`,\s*|[,;]\s*`[^`]+`(?=\))"
                      r"|[,;]\s*[a-z_]+\.[A-Z][A-Z_]+(?=\))")   # archgen's own table: "; switch_allows.UNSETTLED)"
_CODE = re.compile(r"`([^`]+)`")
#: Keys whose words read backwards or cryptic, as a customer reads them; any other key reads as its words.
_PHRASES = {"power.typical": "typical power", "power.max": "maximum power", "power.idle": "idle power",
            "power_at": "lower-rate power", "deployed": "deployed clusters", "peak_pue": "peak PUE",
            "sustainability.wue": "site WUE", "cooling.liquid.hoses": "liquid hoses",
            "cooling.liquid.manifold": "liquid manifold", "cooling.liquid.quick_disconnects": "quick disconnects",
            "power.shelves.cords": "power shelf cords",
            "sustainability.carbon_intensity": "grid carbon intensity", "unconfirmed": "unconfirmed figures",
            "cooling.liquid.unconfirmed": "the liquid loop's unconfirmed figures", "<tier>.count": "switch count"}


def spec_words(code: str, names: Mapping[str, str] | None = None) -> str:
    """A spec key or snippet of a code span in words.

    ``power.typical`` → ``typical power`` (`_PHRASES`), a metric key by its title in `names`
    (`edition.metric_titles`), ``cooling.liquid.hoses`` → ``cooling liquid hoses``, ``storage:`` → ``storage``.
    """
    code = code.strip().rstrip(":").strip()
    if code in _PHRASES or code in (names or {}):
        return _PHRASES.get(code) or (names or {})[code]
    return re.sub(r"\s+", " ", re.sub(r"[._:{}<>]+", " ", code)).strip()


def assumed(check: str, message: str) -> str:
    """A finding's `message` of `check` as the customer edition prints it: the assumption, not the instruction."""
    rule = ASSUMED.get(check)
    m = rule[0].search(message) if rule else None
    if rule is None or m is None:
        return message
    wording = rule[1].format(job=m["job"], stack=m["stack"], stand_in=_STAND_IN if m["stand_in"] else "")
    return message[:m.start()] + wording + message[m.end():]


def without_code(text: str, names: Mapping[str, str] | None = None) -> str:
    """`text` with no code span: the team's instructions left out, bracketed key pointers dropped, other keys in words.

    A finding whose message `ASSUMED` rewords is found by its message, wherever it stands (the validation report's
    row, an open item's "PERF006 (info): ..."), so that no check ID has to be passed along.
    """
    for check in ASSUMED:
        text = assumed(check, text)
    text = _INSTRUCTION.sub("", text)
    text = _POINTER.sub("", text)
    return _CODE.sub(lambda m: spec_words(m.group(1), names), text)
