"""The glossary of a document: the abbreviations archgen documents use, cut to those the document uses (`used`)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from archgen.checks import REGISTRY
from archgen.render.blocks import Column, DocumentModel, Para, Section, Table
from archgen.render.edition import reworded

#: Terms and their meanings, in alphabetical order.
GLOSSARY = (
    ("ASHRAE", "American Society of Heating, Refrigerating and Air-Conditioning Engineers (TC 9.9 thermal classes)"),
    ("A1–A4", "ASHRAE air-cooling equipment classes (allowable inlet temperature ranges)"),
    ("BMC", "Baseboard management controller: a node's out-of-band management processor and its network port"),
    ("BOM", "Bill of materials"),
    ("busbw", "Bus bandwidth of a collective as nccl-tests defines it (algorithm bandwidth times a factor of the "
              "collective and rank count)"),
    ("CDU", "Coolant distribution unit: heat exchanger and pumps between facility water and the rack loop"),
    ("CFM", "Cubic feet per minute (air flow)"),
    ("DAC", "Direct-attach copper cable: a passive copper assembly with its connectors built on"),
    ("DPU", "Data processing unit: a network adapter with its own processors (such as BlueField-3)"),
    ("GDDR6", "Graphics DDR memory, generation 6: DRAM chips beside the GPU on its board (a PCIe card such as the "
              "L40S), not stacked on its package as HBM is"),
    ("HBM", "High-bandwidth memory: the accelerator's stacked DRAM"),
    ("Infinity Fabric", "AMD's scale-up GPU interconnect (xGMI links between the GPUs of a node)"),
    ("MFU", "Model FLOP utilisation: model FLOP/s per accelerator over its dense peak"),
    ("MPO", "Multi-fibre push-on connector (IEC 61754-7), on parallel optics"),
    ("MTTI", "Mean time to interruption of a job"),
    ("N, N+1, N+N", "Redundancy: no spare; one spare unit; a full second set (2N)"),
    ("NCCL", "NVIDIA Collective Communications Library: the collectives (all-reduce, all-gather...) on NVIDIA GPUs"),
    ("NIC", "Network interface card (network adapter)"),
    ("NVLink", "NVIDIA's scale-up GPU interconnect"),
    ("OOB", "Out-of-band: the management network, apart from the data fabrics"),
    ("ORv3", "OCP Open Rack V3 (48 V/50 V DC busbar rack)"),
    ("OSFP", "Octal small form-factor pluggable: an 8-lane transceiver cage and module"),
    ("PDU", "Power distribution unit"),
    ("PUE", "Power usage effectiveness: facility power over IT power"),
    ("RCCL", "ROCm Communication Collectives Library: AMD's collectives library, NCCL's interface on ROCm"),
    ("RHS / IHS", "Riding heat sink (a module without fins, cooled by the host's heat sink) / integrated heat sink"),
    ("RoCE", "RDMA over Converged Ethernet: InfiniBand's transport carried over Ethernet (RoCE v2: over UDP/IP)"),
    ("SU", "Scalable unit: the repeated building block of racks a cluster is laid out in"),
    ("TCO", "Total cost of ownership: capital recovered per year plus energy and space"),
    ("TGP", "Total graphics power: an accelerator's rated board power"),
    ("U", "Rack unit, 1.75 in (44.45 mm)"),
    ("UEC", "Ultra Ethernet Consortium, and the Ethernet transport for AI and HPC its specification defines"),
    ("UFM", "NVIDIA Unified Fabric Manager: the InfiniBand fabric's management appliance"),
    ("W17–W45", "ASHRAE liquid-cooling classes (maximum facility water supply temperature)"),
    ("XDR", "InfiniBand's 200 Gb/s-per-lane generation (800 Gb/s ports)"),
    ("ΔT", "Temperature rise across equipment (coolant or air)"),
)
#: How a document shows it uses a glossary term, where that is not the term itself as a word (`used`).
USES = {"A1–A4": r"\bA[1-4]\b", "N, N+1, N+N": r"\bN\+[1N]\b|\b2N\b", "RHS / IHS": r"\b(RHS|IHS)\b",
        "W17–W45": r"\bW(17|27|32|40|45)\b", "ΔT": r"ΔT|(?i:\bdelta[ _]t\b)"}


def section() -> Section:
    """Abbreviations used in archgen documents: every entry, until `used` keeps those the document uses."""
    return Section("glossary", "Glossary").add(
        Table("glossary", "Glossary", (Column("Term"), Column("Meaning")), GLOSSARY))


#: Sections whose words are not the document's own: the glossary itself, and the references (a cited page's title,
#: such as NVIDIA's cabling requirements "for InfiniBand NDR/XDR and 400/800G ETH", uses no term on the reader).
PROSE_FREE = ("glossary", "references")
#: A check's ID as a document names one ("REQ005", "PWR002"): only the registry's count (a part's "GB200" is none).
_CHECK_ID = re.compile(r"\b[A-Z]{2,5}\d{3}\b")
#: The section that gives each check's summary or finding beside its ID; elsewhere (the status line, the
#: requirements' Check column, a figure's note) an ID stands alone and a reader cannot guess "REQ005" (newuser66).
EXPLAINED = "validation"


def used(doc: DocumentModel) -> DocumentModel:
    """`doc` with its glossary cut to the terms its other text uses (`USES`, else the term as a word); returns it.

    A document on MI355X racks defines Infinity Fabric and RCCL, not NVLink or XDR InfiniBand: a glossary of terms the
    reader never meets reads as if they applied. Run on the finished document (after `edition.customer`).
    """
    sections = doc.walk()
    glossary = [s for s in sections if s.id == "glossary"]
    if not glossary:
        return doc
    text = "\n".join([doc.title, *(f"{k} {v}" for k, v in doc.control), *(
        _text(b) for s in sections if s.id not in PROSE_FREE for b in (Para(s.title), *s.blocks))])
    for section in glossary:
        section.blocks = [replace(b, rows=tuple(r for r in b.rows if re.search(
            USES.get(r[0], rf"\b{re.escape(r[0])}\b"), text))) if isinstance(b, Table) else b
            for b in section.blocks]
        named = checks_named(doc, sections)
        if named is not None:
            section.blocks.append(named)
    return doc


def checks_named(doc: DocumentModel, sections: list[Section]) -> Table | None:
    """The checks the document's tables and control name outside its validation report, each with its summary.

    None if it names none. An open item gives its finding beside its check's ID; the status line ("4 warning(s):
    PWR002, REL004, REQ004") and the requirements' Check column give only IDs; the validation report, where each has
    a row (its anchor ``check-<id>``), gives the finding.
    """
    text = "\n".join([*(v for _, v in doc.control), *(
        _text(b) for s in sections if s.id not in (*PROSE_FREE, EXPLAINED) for b in s.blocks if isinstance(b, Table))])
    ids = sorted({m for m in _CHECK_ID.findall(text) if m in REGISTRY})
    if not ids:
        return None
    return Table("glossary-checks", "Checks this document names (the validation report gives each one's finding)",
                 (Column("Check"), Column("What it checks")),
                 tuple((i, reworded(REGISTRY[i].summary) if doc.edition == "customer" else REGISTRY[i].summary)
                       for i in ids))


def _text(block: Any) -> str:
    """A block's text: a paragraph, the items of a list, a table's caption, headings and cells, a figure's caption."""
    if isinstance(block, Table):
        return "\n".join([block.caption, *(c.heading for c in block.columns),
                           *(" ".join(row) for row in block.text())])
    return "\n".join(getattr(block, "items", ())) or getattr(block, "text", "") or getattr(block, "caption", "")
