"""The customer edition of a document: what a customer can read without archgen's repository or its docs.

`archgen render --audience customer` passes the built document model through `customer`; the internal edition
(the default) keeps everything. The customer edition:

- names metrics by their title in the metric registry (`archgen.metrics`), never by key: ``IT power (typical)``
  for ``it_power_typical``, ``Accelerators behind a leaf`` for ``leaf.accelerators_affected`` (a member of the
  ``failure.<tier>`` group, as the failure-case tables name it), ``MFU`` for ``mfu`` and ``Spares`` for ``spares``
  in a table's Metric column (`bare_titles`; in sentences only the keys that are no word, such as ``mtti``); any
  other snake_case key reads as words;
- drops what only the design team uses: the spec file and line of each check finding and requirement (Location;
  from the CSV and XLSX tables too, which keep every other cell), any path of the design's repository that a
  spec's text names (`_PATH`, such as a waiver's reason), the catalog's engineering notes on unconfirmed inputs,
  and the pointers to archgen's own docs (``docs/perf-model.md``), which a customer does not have: a short method
  appendix (`method_section`) says what they would have told;
- withholds unit prices: unless the spec's `document.show_prices` is true, the capex table keeps each part's
  quantity and price basis but not its unit price or total, and the capex-by-kind chart is left out; the totals
  (capex, TCO, cost per accelerator-hour and per token) stay, and the cost section says the prices are withheld;
  the findings whose messages name unit prices (`UNIT_PRICE_CHECKS`: two lists' prices of one part, a rack's
  placed parts at theirs, a part at 0) read "[withheld]" for each amount (`without_prices`), in the validation
  report and the open items, as in `archgen gap --audience customer`;
- names no price list, with or without `document.show_prices`: the capex table's Basis reads "sourced", not
  "sourced (Prices a-negotiated)", and a finding's "in Prices 'a-negotiated'" reads "in a price list"
  (`without_lists`), so that a vendor does not learn which other books we hold or what they are called;
- shows that a finding is waived, not the team's reason (the validation report's Waiver column reads "waived"), and
  an open item's subject and finding without the team's instruction: an item is an `archgen.open_item.OpenItem`
  built from those parts, and this edition prints its `public` text, which has no place for the instruction;
- names no spec path a check's message gives in brackets ("(cooling.liquid.unconfirmed)", "(power.feeds.power_factor)"),
  and writes a message's instruction to the team to state a key ("state `power_factor` from the PSUs' datasheet") as
  what is to be supplied ("to be supplied: power factor from the PSUs' datasheet"; `without_spec_paths`);
- prints each finding in the words its check gave a customer (`Finding.public_message`, carried to the validation
  report and the open items as `open_item.Worded`): the same fact, no spec key, path or instruction to the team;
- quotes no spec key and gives the team no instruction (`edition_text.without_code`, now a guard behind the checks'
  own customer words, which tests/render/test_public_messages.py holds free of keys): a finding that tells the team
  to pin an assumption states the assumption (PERF006: "its figures rest on that profile, an assumption", not
  "state `stack: nemo-2025` under `training:` ... see `archgen estimate`"), an instruction clause ("state their
  `power.typical` to judge it") is left out, a key pointed at in brackets ("(`NIC.transport`)") too, and any other
  key in a code span reads in words ("no typical power stated"), in the document, the CSVs and the workbook alike;
- gives "not stated (draft)" as the revision of a spec that states none (the internal edition's git commit);
- writes each reference as a citation: a source read through a mirror or a secondary quote keeps that note, but
  not the team's reading notes ("not read directly"), and a GitHub repository path becomes its URL.

Text only is changed here; no figure is recomputed.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from typing import Any

from archgen import metrics
from archgen.model.field_words import said
from archgen.open_item import customer_text
from archgen.perf.workload.estimate_result import BREAKDOWN_TITLES
from archgen.render.blocks import Bullets, Cite, DocumentModel, Figure, Para, Section, Table
from archgen.render.edition_prices import no_list_notes, priced_findings, withhold_prices
from archgen.render.edition_text import source_words, without_code

#: Columns a customer edition leaves out, by table id: spec locations and the catalog's engineering notes.
INTERNAL_COLUMNS = {"validation": ("Location",), "requirements": ("Location",), "unconfirmed": ("Notes",)}
#: A pointer to archgen's docs in brackets: "(docs/reliability.md)", "(docs/reliability.md, Cost)"; a sentence
#: that still names one ("Its accuracy ... is in docs/accuracy.md.") is left out whole.
_DOCS_REF = re.compile(r"\s*\((?:see |as in )?docs/[\w./-]+\.md(?! at [0-9a-f]{7})[^)]*\)")
#: Another repository's docs cited at a commit ("NVIDIA/TensorRT-LLM docs/source/x.md at 16d2467ea8",
#: "docs/performance-guide.md at 067f987, line 365") are a source, not a pointer to archgen's: they stay (newuser94).
_DOCS = re.compile(r"docs/[\w./-]+\.md(?! at [0-9a-f]{7})")
#: A pointer that is the last clause of a bracket with other words in it: "(Q / (ρ c_p ΔT), water; chilled-water
#: practice, docs/facility.md)", "(Garwood; ...; docs/reliability.md, Interruptions by part class)". The clause
#: goes and the bracket stays; else the sentence naming it went whole, and with it a table cell's figures (newuser94).
_DOCS_CLAUSE = re.compile(r"[;,]\s*(?:see |as in )?docs/[\w./-]+\.md(?! at [0-9a-f]{7})(?:,\s*[^;()]*)?(?=\))")
#: A file of the design's repository written into a spec's text (a waiver's reason: "one SN2201 as its
#: out-of-band switch (specs/catalog/racks/dgx-b200-compute.yaml)"), never part of a URL; in brackets it is left
#: out, and a sentence that still names one is left out whole, as a pointer to archgen's docs is.
_PATH = re.compile(r"(?<![\w/.:-])(?:[\w.-]+/)+[\w.-]+\.(?:ya?ml|py|md|json)(?::\d+)?(?![\w/])(?! at [0-9a-f]{7})")
_PATH_REF = re.compile(r"\s*\((?:see |as in )?" + _PATH.pattern + r"\)")
#: A snake_case key, possibly dotted: ``tokens_per_second_per_gpu``, ``leaf.accelerators_affected``.
_KEY = re.compile(r"(?<![\w./:-])[a-z][a-z0-9]*(?:[._][a-z0-9]+)*_[a-z0-9]+(?:[._][a-z0-9]+)*(?![\w/-])")
#: The revision of a design whose spec states none (its internal git commit is no revision for a customer).
UNREVISED = "not stated (draft)"
#: A space left before punctuation when a path or note is taken out ("shown (see docs/x.md)." → "shown ."); an
#: ellipsis keeps the space written before it, as in "1, 2, 4, ... times".
_SPACE_BEFORE = re.compile(r" +(?!\.\.\.)([.,;:)])")
_NOT_READ = re.compile(r"\s*\(not read directly\)|[;,]?\s*\bnot read directly\b", re.I)
#: "owner/repo path/file.ext [line N] [at COMMIT]", how the catalog cites a file of a public repository.
#: A spec path in brackets, as a check names the field a finding rests on: "(cooling.liquid.unconfirmed)",
#: "(form_factor.unconfirmed)", "(power.feeds.power_factor)". A vendor reads what is assumed or not stated, not our
#: spec's keys, so the customer edition leaves it out. A domain ("(docs.nvidia.com)") or a file ("(floor.svg)") has
#: no snake_case key and does not end in ``unconfirmed``, so it stays.
_SPEC_PATH = re.compile(r"\s*\((?:[a-z][a-z0-9_]*\.)+(?:unconfirmed|[a-z0-9]+_[a-z0-9_]+)\)")
#: The design team's instruction in a check's message: "; state `power_factor` from the PSUs' datasheet" (PWR002),
#: "; state `feeds.redundancy` (N, N+1, N+N)". The customer edition says what is to be supplied, in words.
_STATE = re.compile(r"([;,]\s*)state `(?:[\w.]+\.)?([\w]+)`")
_GITHUB = re.compile(r"^([A-Za-z0-9][\w.-]*/[\w.-]+) ((?:[\w.-]+/)*[\w.-]+\.\w+)"
                     r"(?: line (\d+))?(?: at ([0-9a-f]{7,40}))?")


def customer(doc: DocumentModel) -> DocumentModel:
    """The customer edition of a numbered document (the model is changed in place and returned)."""
    names = metric_titles()
    for section in doc.walk():
        section.blocks = [_public(b) for b in section.blocks]   # an open item's or finding's customer words
        section.blocks = [priced_findings(b, doc.show_prices) for b in section.blocks]
        section.blocks = [_block(b, names) for b in section.blocks]
        if not doc.show_prices and any(isinstance(b, Table) and b.id == "capex" for b in section.blocks):
            section.blocks = withhold_prices(section.blocks)
    appendices = next((s for s in doc.sections if s.id == "appendices"), None)
    method = method_section()
    if appendices is not None:
        at = next((i for i, s in enumerate(appendices.sections) if s.id == "references"), len(appendices.sections))
        appendices.sections.insert(at, method)
        for i, s in enumerate(appendices.sections, 1):
            s.number = f"{appendices.number}.{i}"
    doc.edition = "customer"
    stated = any(k == "Source commit" for k, _ in doc.control)  # the spec's own revision; else it is the commit
    doc.control = [(k, "customer" if k == "Edition" else v if k != "Revision" or stated else UNREVISED)
                   for k, v in doc.control if k not in ("Source commit", "Generated by")]
    return doc


def file_name(name: str, edition: str) -> str:
    """The name a file of a document has in `edition`.

    The internal edition's own, any other's with the edition before its extension (``gb200-nvl72-su.customer.pdf``,
    ``bom.customer.csv``), so that both editions rendered into one folder are told apart and neither overwrites the
    other.
    """
    if edition == "internal":
        return name
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{edition}.{ext}" if dot else f"{name}.{edition}"


def edition_of(name: str) -> str:
    """The edition whose file `name` is (`file_name` reversed): ``bom.customer.csv`` → ``customer``."""
    parts = name.split(".")
    return "customer" if len(parts) > 2 and parts[-2] == "customer" else "internal"


def metric_titles() -> dict[str, str]:
    """Every metric key with '_' or '.' in it, its placeholders written out, mapped to the words a reader sees."""
    out: dict[str, str] = {}
    for m in metrics.REGISTRY:
        parts = re.split(r"<(\w+)>", m.name)  # literal, placeholder, literal, ...
        spelled = [""]
        for i, p in enumerate(parts):
            values = [p] if i % 2 == 0 else metrics.PLACEHOLDERS[p].split("|") if p != "rack" else []
            spelled = [s + v for s in spelled for v in values]
        for name in spelled:
            if re.search(r"[._]", name):
                out[name] = m.title
    for name, title in list(out.items()):  # a group's tables name its members without the group: failure.<tier>.*
        group, _, member = name.partition(".")
        if member and "." in member:
            out.setdefault(member, title)
    return out


def bare_titles() -> dict[str, str]:
    """Every metric key with neither '_' nor '.' in it (``mfu``, ``goodput``, ``spares``), mapped to its title.

    `metric_titles` leaves these out: as words in a sentence most are English (``goodput``, ``time``), so they are
    named by title where they stand for a metric: a table's Metric column (`_metric_cell`), and in any text the
    ones no reader could take for a word (`_acronyms`: ``mfu``, ``mtti``, ``busbw``).
    """
    return {m.name: m.title for m in metrics.REGISTRY if not re.search(r"[._<]", m.name)}


@cache
def _acronyms() -> re.Pattern[str]:
    """The bare metric keys that are no English word, as whole words outside a code span.

    Those whose title is capitals (``MTTI``) or does not hold the key (``busbw``, Bus bandwidth).
    """
    keys = sorted(k for k, t in bare_titles().items() if t.isupper() or k not in t.lower().split())
    return re.compile(r"(?<![\w./:`-])(?:" + "|".join(keys) + r")(?![\w/`-])")


def _metric_cell(cell: str, bare: dict[str, str]) -> str:
    """A Metric column's cell with its key by title: ``mfu`` → ``MFU``, ``spares of workload/x`` likewise.

    Where the cell names its object (``it_power of rack/x``) the title is that kind of object's metric's: a rack's
    ``it_power`` is "IT power at the equipment", a cluster's "IT power at the rack feeds" (`metrics.lookup`), so a
    rack's requirement never reads as a figure at the feeds that it is not.
    """
    key, sep, rest = cell.partition(" of ")
    m = metrics.lookup(rest, key) if sep and bare is not BREAKDOWN_TITLES else None
    if m is not None:
        return m.title + sep + rest
    return bare[key] + sep + rest if key in bare else cell


@cache
def _dotted(names: tuple[str, ...]) -> re.Pattern[str]:
    """The metric keys with a '.' and no '_' (``leaf.oversubscription``), which `_KEY` does not catch."""
    dotted = sorted((n for n in names if "_" not in n), key=len, reverse=True)
    return re.compile(r"(?<![\w./:-])(?:" + "|".join(map(re.escape, dotted)) + r")(?![\w/-])")


def words(key: str) -> str:
    """A key in words, from the one table of a field's customer words (`field_words.said`).

    ``leaf.accelerators_affected`` → ``leaf accelerators affected``, a layout's ``micro_batch`` → ``micro-batch size``
    as PERF002's and PERF003's customer words say it.
    """
    return said(key)


def reference(source: str) -> str:
    """A source as a customer reads it: no reading notes, a repository path as its GitHub URL, our keys in words."""
    text = source_words(_NOT_READ.sub("", source).strip().rstrip(";,"))
    m = _GITHUB.match(text)
    if m and "://" not in m.group(2):
        repo, path, line, commit = m.groups()
        url = f"https://github.com/{repo}/blob/{commit or 'HEAD'}/{path}" + (f"#L{line}" if line else "")
        rest = text[m.end():].strip()
        text = f"{repo} on GitHub{' ' + rest if rest else ''}: {url}"
    return text


def without_paths(text: str) -> str:
    """`text` without the repository's paths and archgen's docs: in brackets they go, a sentence naming one goes."""
    text = _PATH_REF.sub("", _DOCS_REF.sub("", _DOCS_CLAUSE.sub("", text)))
    if _DOCS.search(text) or _PATH.search(text):
        text = " ".join(s for s in re.split(r"(?<=\.)\s+", text) if not (_DOCS.search(s) or _PATH.search(s)))
    return _SPACE_BEFORE.sub(r"\1", text)


def _key(m: re.Match[str], names: dict[str, str]) -> str:
    """A snake_case key as a customer reads it: a metric by its title, another in words.

    In a code span it stays as written: ``cooling.liquid.quick_disconnects`` is a spec key the text quotes, beside
    ``cooling.liquid.hoses``, which has no underscore to rewrite.
    """
    key = m.group(0)
    if key in names:
        return names[key]
    return key if m.string.count("`", 0, m.start()) % 2 else words(key)


def without_spec_paths(text: str) -> str:
    """`text` without the spec paths a check names in brackets, its instruction to the team as what is to be supplied.

    "power factor not stated (power.feeds.power_factor): ...; state `power_factor` from the PSUs' datasheet" reads
    "power factor not stated: ...; to be supplied: power factor from the PSUs' datasheet".
    """
    return _STATE.sub(lambda m: f"{m.group(1)}to be supplied: {words(m.group(2))}", _SPEC_PATH.sub("", text))


def public_text(text: str) -> str:
    """A message as every customer edition words it, `archgen gap --audience customer`'s too.

    No path of ours (`without_paths`), no spec path or key (`without_spec_paths`, `edition_text.without_code`), no
    instruction to the team. Keys outside code spans stay as written (a gap report's rows name their metrics by key).
    """
    return without_code(without_spec_paths(without_paths(text)))


def reworded(text: str) -> str:
    """`text` as the customer edition words it (for what is added after `customer`: the glossary's check summaries)."""
    return _text(text, metric_titles())


def _text(text: str, names: dict[str, str]) -> str:
    text = without_code(without_spec_paths(without_paths(text)), names)
    text = _KEY.sub(lambda m: _key(m, names), text)
    text = _dotted(tuple(names)).sub(lambda m: names[m.group(0)], text)
    text = _acronyms().sub(lambda m: m.group(0) if m.string.count("`", 0, m.start()) % 2
                           else bare_titles()[m.group(0)], text)
    return _SPACE_BEFORE.sub(r"\1", text)


def _public(b: Any) -> Any:
    """Block `b` with each text the internal edition words for the team in the words it has for a customer.

    An open item without the team's instruction (`OpenItem.public`), a finding as its check words it for a customer
    (`Worded`: `Finding.public_message`), in a list's items, a paragraph or a table's cells.
    """
    if isinstance(b, Bullets):
        return replace(b, items=tuple(map(customer_text, b.items)))
    if isinstance(b, Para):
        return replace(b, text=customer_text(b.text))
    if isinstance(b, Table):
        return replace(b, rows=tuple(tuple(customer_text(v) if isinstance(v, str) else v for v in row)
                                     for row in b.rows))
    return b


def _block(b: Any, names: dict[str, str]) -> Any:
    if isinstance(b, Para):
        return replace(b, text=_text(b.text, names))
    if isinstance(b, Bullets):
        return replace(b, items=tuple(_text(i, names) for i in b.items))
    if isinstance(b, Figure):   # its text alternative too: a busbw curve's named its op `all_reduce` (words38)
        return replace(b, caption=_text(b.caption, names), alt=_text(b.alt, names))
    if not isinstance(b, Table):
        return b
    if b.id == "references":
        return replace(b, rows=tuple((n, reference(s)) for n, s in b.rows))
    if b.id == "glossary":   # a term keeps its own name ('busbw'), even where the text names the metric by title
        return b
    b = _waived(_public_columns(b)) if b.id == "validation" else _public_columns(b)
    return replace(b, caption=_text(b.caption, names), rows=_cells(b, names))


def _cells(b: Table, names: dict[str, str]) -> tuple[tuple[Any, ...], ...]:
    """A table's rows with each text cell as a customer reads it: a Metric (Component) cell by title, keys in words."""
    bare = BREAKDOWN_TITLES if b.id.startswith("perf-breakdown-") else bare_titles()
    named = {i for i, c in enumerate(b.columns) if c.title == ("Component" if bare is BREAKDOWN_TITLES else "Metric")}
    return tuple(tuple(_text(_metric_cell(v, bare) if i in named else v, names) if isinstance(v, str) else v
                       for i, v in enumerate(row)) for row in b.rows)


def data_table(b: Table) -> Table:
    """A table of the customer edition's CSV and XLSX, as `customer` leaves it in the document.

    The same cells, less the columns only the design team uses (`INTERNAL_COLUMNS`: a requirement's spec file and
    line), their text reworded as the document's is (`_cells`: a Metric cell by title, "Input power of
    rack/gb200-nvl72", not "input_power of ...", a key in words; newuser66 found the CSV and XLSX keeping the keys);
    the sources keep their full text, written as the references list writes them (`reference`: no reading notes such
    as "not read directly", a GitHub repository path as its URL); a Basis names no price list, as the capex table's
    does not (`priced_findings`: the cost sheet's "sourced (Prices a-negotiated)" reads "sourced").
    """
    b = no_list_notes(_public_columns(_public(b)))
    b = replace(b, rows=_cells(b, metric_titles()))
    cited = {i for row in b.rows for i, v in enumerate(row) if type(v) is Cite}
    if not cited:
        return b
    rows = tuple(tuple(Cite(tuple(map(reference, v.sources)), v.numbers) if i in cited and type(v) is Cite else v
                       for i, v in enumerate(row)) for row in b.rows)
    return replace(b, rows=rows)


def _waived(b: Table) -> Table:
    """The validation table with each waiver's reason replaced by "waived"."""
    at = next((i for i, c in enumerate(b.columns) if c.title == "Waiver"), None)
    if at is None:
        return b
    return replace(b, rows=tuple(tuple(("waived" if v else "") if i == at else v for i, v in enumerate(row))
                                 for row in b.rows))


def _public_columns(b: Table) -> Table:
    """`b` without the columns of `INTERNAL_COLUMNS`."""
    keep = [i for i, c in enumerate(b.columns) if c.title not in INTERNAL_COLUMNS.get(b.id, ())]
    if len(keep) == len(b.columns):
        return b
    status = b.status_column
    if status is not None:
        status = keep.index(status) if status in keep else None
    return replace(b, columns=tuple(b.columns[i] for i in keep),
                   rows=tuple(tuple(row[i] for i in keep) for row in b.rows), status_column=status)


def method_section() -> Section:
    """How the document's figures are obtained, in brief: what a customer would otherwise look up in archgen's docs."""
    return Section("method", "Method").add(
        Para("Every figure in this document is computed from the design's specification and a catalog of parts "
             "whose figures cite public sources (References). Nothing is fitted to a measurement."),
        Bullets((
            "Power: the maximum (nameplate) draw of every placed system and switch plus the optics in their "
            "ports, against the usable capacity of the power shelves or PDUs and the feeds after the redundant "
            "ones are held back (voltage × current × phase factor × derating × power factor per feed).",
            "Cooling: the heat split between liquid and air by each part's liquid-cooled share; coolant flow "
            "from Q = P / (ρ c ΔT), c the coolant's specific heat; air flow likewise at the air temperature rise.",
            "Network: each fabric is sized tier by tier from the switch radix and the ports each node needs; "
            "bisection, oversubscription and hop counts follow from the tiers; each failure case removes a "
            "switch or a plane and counts the ports, bandwidth and accelerators it takes.",
            "Cabling and optics: one cable run per link, its length from the floor plan and tray routing, binned "
            "to the lengths sold; optics power is the transceivers' power per end.",
            "Performance: an analytic model of each step (compute at the accelerator's measured matrix "
            "efficiency, memory traffic at its measured bandwidth efficiency, and the collectives of each "
            "parallel dimension over the scale-up and scale-out links), with the kernels of one layer placed "
            "on a roofline.",
            "Reliability and cost: independent exponential failures per part class give the interruptions per "
            "day and, with checkpoint writes and restarts, the goodput; cost is the priced bill of materials, "
            "energy at the facility's PUE and price, and capital recovered over the depreciation period.",
            "Checks: every rule the design is checked against has a stable identifier (Validation report); a "
            "requirement is met when its computed value is within its target.")))
