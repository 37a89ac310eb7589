"""The customer edition's words where the internal edition writes to the design team (split from `render/edition`).

The internal edition quotes spec keys in code spans (``no `power.typical` stated``, ``the rack states no
`cooling.liquid.hoses` ``) and tells the team what to write or run (``state `stack: nemo-2025` under `training:` to
keep them, and see `archgen estimate --workload ...` ``). A customer has neither our specs nor archgen, so the customer
edition prints each finding in the words its check gives a customer (`Finding.public_message`: PERF006's unstated
training stack reads "its figures rest on that profile, an assumption", not "state `stack: ...` ... and see `archgen
estimate`"), and every check's are held free of keys (`LEFTOVER`, tests/checks/test_public_messages.py). Behind them,
as a guard for what has no such words (`without_code`, applied by `render/edition.py` to every text it rewords, the
CSV and XLSX cells included), this module:

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
from functools import cache

from archgen.model import KINDS
from archgen.model.field_words import said
from archgen.model.spec_paths import names_a_field

#: An instruction clause to the design team, left out: the text before it states what is assumed.
_INSTRUCTION = re.compile(r";\s*state their `[^`]+` to judge it"
                          r"|;\s*`--[\w-]+` searches [^;)]*?, or state it"
                          r"|;\s*judge the run's energy on `[^`]+`[^;.]*"
                          r"|\s*\(list the clusters standing in the hall side by side in its `deployed`\)"
                          r"|\s*\(archgen [a-z]+ [^()]*\)")
#: A code span in brackets that only points at a key: the whole bracket, or its first or last item. A span that
#: states a value (``(`feeds.utility_feeds: 2`, ...)``: a space in it) is a fact of the design, kept in words.
_POINTER = re.compile(r"\s*\(`[^`\s]+`\)|(?<=\()`[^`\s]+`,\s*|[,;]\s*`[^`\s]+`(?=\))"
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

#: What a customer's text must not hold, the guard the customer words of every check are tested against
#: (tests/checks/test_public_messages.py): a code span, a path of ours, an instruction to state a key or run archgen,
#: or a spec key written bare, dotted (``power.max``, ``cooling.liquid.coolant_volume``) or snake_case
#: (``power_factor``). A file name or domain (``bom.csv``, ``docs.nvidia.com``), an abbreviation ("e.g.") and a
#: version ("v2.x") are no key.
LEFTOVER = re.compile(r"`|\bspecs/|\bdocs/[\w/.-]+|\.ya?ml\b|\bstat(?:e|ing) `|\barchgen [a-z]+"
                      r"|(?<![\w-])--[a-z][a-z-]+"
                      r"|(?<![\w./:@#-])(?!(?:e\.g|i\.e)\b|v\d+\.x\b"   # a version ("Megatron-LM v2.x") is no key
                      r"|[\w.]*\.(?:md|csv|svg|png|pdf|com|org|io|net|ai|gov|edu|dev|txt)(?![\w.]))"
                      r"[a-z][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+(?![\w/(-])"
                      r"|(?<![\w./:@#-])[a-z][a-z0-9]*_[a-z0-9_]+(?![\w/-])")


def leftovers(text: str) -> list[str]:
    """What of `LEFTOVER` a customer's text holds: [] where it reads as the customer's."""
    return [m.group(0) for m in LEFTOVER.finditer(text)]


def spec_words(code: str, names: Mapping[str, str] | None = None) -> str:
    """A spec key or snippet of a code span in words.

    ``power.typical`` → ``typical power`` (`_PHRASES`), a metric key by its title in `names`
    (`edition.metric_titles`), ``cooling.liquid.hoses`` → ``cooling liquid hoses``, ``storage:`` → ``storage``.
    A snippet that sets a key keeps its value as written (``feeds.utility_voltage: 13.8 kV`` → ``feeds utility
    voltage 13.8 kV``), and a decimal point stays one (``0.85``): only a key's separators become spaces.
    """
    key, colon, value = code.strip().partition(": ")
    key = key.strip().rstrip(":").strip()
    if colon and value.strip():
        return f"{spec_words(key, names)} {value.strip()}"
    if key in _PHRASES or key in (names or {}):
        return _PHRASES.get(key) or (names or {})[key]
    return re.sub(r"\s+", " ", re.sub(r"(?:(?<!\d)\.|\.(?!\d)|[_:{}<>])+", " ", key)).strip()


def without_code(text: str, names: Mapping[str, str] | None = None) -> str:
    """`text` with no code span: the team's instructions left out, bracketed key pointers dropped, other keys in words.

    A check's finding comes with its customer words (`checks.registry.Finding.public_message`); this is the guard
    behind them, for a text that has none (a check still on tests/checks/test_public_messages.py's `PENDING`).
    """
    text = _INSTRUCTION.sub("", text)
    text = _POINTER.sub("", text)
    return _CODE.sub(lambda m: spec_words(m.group(1), names), text)


#: A key a source may name (dotted or snake_case: ``scale_up.latency``, ``management_ports``), not inside a URL.
_SOURCE_KEY = re.compile(r"https?://\S+|(?<![\w./:@#-])[a-z][a-z0-9]*(?:[._][a-z][a-z0-9]*)+(?![\w/-])")


@cache
def _ours(key: str) -> bool:
    """Whether `key` names a field of a spec document of ours (`spec_paths.names_a_field`), of any kind."""
    return any(names_a_field(cls, key) for cls in KINDS.values())


def source_words(source: str) -> str:
    """A catalog source with the keys of our specs it names in words (newuser108).

    The catalog cites a figure by its key ("scale_up.latency 1.9 us: NVIDIA/nccl ...", "Power input (power.input:
    dc)", "...; management_ports 1)"), which the customer edition's References printed as written. A key of
    another's file the source quotes ("hw_notes", "accelerator_memory_capacity" of an MLPerf JSON), a file name
    and a URL stay as written.
    """
    def word(m: re.Match[str]) -> str:
        key = m.group(0)
        if "://" in key or not _ours(key):
            return key
        words = said(key)
        return words[0].upper() + words[1:] if m.start() == 0 else words
    return _SOURCE_KEY.sub(word, source)
