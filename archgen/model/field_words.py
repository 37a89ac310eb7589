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
         "outdoor_design": "outdoor design conditions", "micro_batch": "micro-batch size",
         "scale_up": "scale-up", "scale_up.latency": "scale-up latency", "scale_up.bandwidth": "scale-up bandwidth",
         "in_network_reduction": "in-network reduction"}
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
