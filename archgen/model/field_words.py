"""A spec field's key as a customer reads it: ``power.max`` → "maximum power" (edition28).

The internal edition names a spec's fields by key (a part's unconfirmed fields, a check's "(power.feeds.derating)");
a customer has no spec, so the customer edition names the same field in words (`said`). `WORDS` holds the keys
whose words read backwards or cryptic; any other key reads as its parts ("efficiency.gemm.fp4" → "efficiency matrix
FP4"): no dotted or snake_case key reaches a customer.
"""

import re
from collections.abc import Iterable

#: Keys whose words read backwards or cryptic, as a customer reads them.
WORDS = {"power.max": "maximum power", "power.typical": "typical power", "power.idle": "idle power",
         "power.input": "power input", "power.psus.redundancy": "PSU redundancy", "mechanical.weight": "weight",
         "ports.speed": "port speed", "ports.cage": "port cage", "efficiency.flash": "attention kernel efficiency",
         "efficiency.hbm": "memory bandwidth efficiency", "efficiency.scale_up": "scale-up bandwidth efficiency",
         "power_per_end": "power per end", "power_includes_optics": "whether its power includes the optics",
         "tdp": "TDP", "delta_t": "ΔT", "racks_per_cdu": "racks per CDU", "cdu_count": "CDU count",
         "cdu_redundancy": "CDU redundancy", "max_payload": "rated payload", "cooling.air": "air path",
         "cooling.liquid": "liquid loop", "form_factor": "enclosure", "power.feeds.derating": "feed derating",
         "power.external": "external power", "host_memory.link": "host memory link", "leaf_spine": "leaf-spine",
         "spine_core": "spine-core", "water.supply": "facility water supply", "air.supply": "facility air supply",
         "cooling.liquid.supply": "coolant supply",
         "outdoor_design": "outdoor design conditions", "micro_batch": "micro-batch size"}
#: An abbreviation written in capitals: "fp4" → "FP4", a metric's "mtti" → "MTTI" (SWP001 named it as its key), an
#: engine's "free_gpu_memory_fraction" → "free GPU memory fraction" (words38).
_UPPER = re.compile(r"\b(fp\d+|bf16|tf32|int\d+|hbm|cdu|psu|nic|ups|pue|wue|it|mtti|mfu|gpu)\b")


def said(key: str) -> str:
    """Spec field `key` in words: `WORDS`, else its parts as words ("efficiency.gemm.fp4" → "efficiency matrix FP4")."""
    if key in WORDS:
        return WORDS[key]
    words = re.sub(r"[._]+", " ", key).replace("gemm", "matrix").strip()
    return _UPPER.sub(lambda m: m.group(0).upper(), words)


def keys_said(text: str, keys: Iterable[str]) -> str:
    """`text` with each of `keys` that is not a plain word, written bare, in words (`said`).

    A message that names fields as a spec does ("micro_batch 1") then reads as a customer's ("micro-batch size 1");
    a key in backticks, or part of a longer name or of a dotted key, is left alone.
    """
    odd = sorted((k for k in keys if not k.isalpha()), key=len, reverse=True)
    if not odd:
        return text
    bare = re.compile(r"(?<![\w.`])(" + "|".join(map(re.escape, odd)) + r")(?![\w`])")
    return bare.sub(lambda m: said(m.group(1)), text)


def assumed_said(item: str) -> str:
    """An assumed input ("sn2201 power.max (unconfirmed)": a part, its field, a note) with its field in words."""
    part, _, rest = item.partition(" ")
    field, space, note = rest.partition(" ")
    return f"{part} {said(field)}{space}{note}" if note.startswith("(") else item


#: An assumed input that is a part's unconfirmed figure: "sn2201 power.max (unconfirmed)" (`Outcome.assumed`), or
#: the same in words ("sn2201 maximum power (unconfirmed)", `assumed_said`).
PART_FIGURE = re.compile(r"(\S+) (.+) \(unconfirmed\)")


def grouped_inputs(assumed: Iterable[str]) -> str:
    """Assumed inputs as every output lists them: a field two or more parts share named once, with those parts.

    The one rule of the status words (`Outcome.shown`: documents, `check --format json`'s matrix, `estimate`), `gap`'s
    status cells and REQ001, REQ004 and REQ005's findings. newuser106: nine inputs of one cluster's IT power
    ("gb200-compute-tray power.max (unconfirmed), nvlink5-switch-tray power.max (unconfirmed), ...") were hard to
    scan; grouped they read "power.max (unconfirmed) of gb200-compute-tray, nvlink5-switch-tray, qm9700, sn2201,
    sn4600c, sn5600; power_per_end (unconfirmed) of mmf-100g-sr4, mmf-800g-sr8; orv3-power-shelf-33kw efficiency
    (unconfirmed)", in the order each field first appears. Inputs of another form (a failure rate, a PUE) and a field
    one part alone rests on keep their words; with nothing to group, the list is as given, comma-separated.
    """
    items = tuple(assumed)
    groups: dict[str, list[str]] = {}   # by field, the parts; an input of another form alone, under its words
    for item in items:
        m = PART_FIGURE.fullmatch(item)
        groups.setdefault(f"{m.group(2)} (unconfirmed)" if m else f"\0{item}", []).append(m.group(1) if m else item)
    if all(len(parts) == 1 for parts in groups.values()):
        return ", ".join(items)
    return "; ".join(f"{field} of {', '.join(parts)}" if len(parts) > 1 else
                     parts[0] if field.startswith("\0") else f"{parts[0]} {field}" for field, parts in groups.items())
