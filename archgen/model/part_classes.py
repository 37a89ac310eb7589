"""The part classes a failure rate is given for, the sub-classes a source may split one into, and their rules.

A rate set states one rate per part class (`PART_CLASSES`). Where its source counts a class's failures by component
(Llama 3's Table 5 splits its 268 GPU interruptions into faulty GPU, HBM3, SRAM, GPU system processor, silent data
corruption and thermal interface), the class's `split` states those counts (`SUB_CLASSES`): the class's rate is
unchanged, and the interruptions-by-class table shows each sub-class's share with its own Poisson interval
(docs/reliability.md, Interruptions by part class).
"""

from archgen.display import figure
from archgen.model.spec import FieldError
from archgen.units import Q

#: The part classes a rate can be given for, and what one unit of each is.
PART_CLASSES: dict[str, str] = {
    "accelerator": "one accelerator with its HBM (GPU, HBM, SRAM, GPU system processor, thermal interface)",
    "host": "one node's host: CPU, system memory, SSD, power supplies, fans, chassis and boards",
    "nic": "one NIC",
    "switch": "one switch of a scale-out or management fabric",
    "scale_up_switch": ("one scale-up switch tray (an NVL72's NVLink switch tray); a set that states no rate of its "
                        "own for it lends its `switch` rate, and the document says so"),
    "transceiver": "one optical transceiver (per end)",
    "cable": "one copper cable assembly",
    "backplane": ("one scale-up link through a rack's copper backplane (an NVL72 NVLink cable cartridge's link between "
                  "an accelerator and a switch tray)"),
    "power_shelf": "one power shelf",
    "pdu": "one PDU",
    "cdu": "one coolant distribution unit (pumps included)",
    "software": "one node's share of software interruptions (bugs, collective timeouts, unplanned host maintenance)",
}

#: Where a class without a rate of its own in a set borrows one from (the set's rate for the lending class).
LENDS: dict[str, str] = {"scale_up_switch": "switch"}

#: The components a source may count a class's failures by (`FailureRate.split`), as its source names them.
SUB_CLASSES: dict[str, dict[str, str]] = {
    "accelerator": {
        "gpu": "faulty GPU (Llama 3's Table 5 counts NVLink failures in it)",
        "hbm": "HBM (the accelerator's stacked memory)",
        "sram": "GPU SRAM (on-die memory)",
        "gsp": "GPU system processor",
        "nvlink": "NVLink (where the source counts it apart from the GPU)",
        "sdc": "silent data corruption",
        "thermal": "thermal interface and sensor",
    },
}


def split_errors(name: str, split: dict[str, int]) -> list[FieldError]:
    """A class's `split` names only sub-classes of the class (its counts' sum is `FailureRate`'s to check)."""
    known = SUB_CLASSES.get(name, {})
    every = ", ".join(f"{c}: {', '.join(subs)}" for c, subs in SUB_CLASSES.items())
    return [FieldError((name, "split", sub), f"unknown sub-class '{sub}' of '{name}' (known: "
                                             f"{', '.join(known) if known else f'none; only {every}'})")
            for sub in split if sub not in known]


def split_count_errors(split: dict[str, int], events: int | None) -> list[FieldError]:
    """A `split` divides the class's own count: each part counted at least once, the counts summing to `events`."""
    if not split:
        return []
    errors = [FieldError(("split", sub), f"a sub-class counted {n} times: state only the parts the source counted, "
                                         "at least once each") for sub, n in split.items() if n < 1]
    if events is None or sum(split.values()) != events:
        errors.append(FieldError(("split",), (
            f"the split counts {sum(split.values())} failures and the class states "
            f"{'no `events`' if events is None else f'{events} `events`'}: a split divides the class's own count, "
            "so its counts sum to `events` (or leave `split` out)")))
    return errors


def lead_errors(turnaround: Q | None, basis: str, source: str) -> list[FieldError]:
    """A `turnaround_basis: sourced` must name its source and have a turnaround to source (spares23)."""
    if basis != "sourced":
        return []
    if turnaround is None:
        return [FieldError(("turnaround_basis",), "`turnaround_basis: sourced` with no `turnaround`: state the "
                                                  "sourced lead time, e.g. turnaround: '14 d', or leave the basis out")]
    if len(source.strip()) < 3:
        return [FieldError(("turnaround_basis",), f"a sourced turnaround of {figure(turnaround)} names no "
                                                  "`turnaround_source`: say where it comes from (document, clause), "
                                                  "or write `turnaround_basis: assumed`")]
    return []
