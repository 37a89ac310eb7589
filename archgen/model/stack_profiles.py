"""The training-stack profiles: their names, the default on each vendor's accelerators, a switch's value under each.

A job that states no stack takes the newest profile of its accelerator's vendor (`vendor_stack`: `primus-2025` on
AMD, `nemo-2025` on any other). Split from `archgen.model.switches` (the table of switches, whose rows carry a
`ByStack`) for its size; the profiles themselves are described there.
"""

from dataclasses import dataclass
from typing import Literal

from archgen.model.accelerator import AMD

#: Training-stack profiles, oldest first (each switch's `ByStack` gives its value under each).
STACKS = ("megatron-lm-2021", "megatron-core-2024", "nemo-2025", "primus-2025")
Stack = Literal["megatron-lm-2021", "megatron-core-2024", "nemo-2025", "primus-2025"]
#: The profile of a Workload or a validation case that states no `stack`: the newest (on an AMD accelerator, the
#: newest of its vendor, `VENDOR_STACKS`).
DEFAULT_STACK: Stack = "nemo-2025"
#: The newest profile of each vendor that has one of its own: AMD trains with Primus (ROCm; AMD-AGI/Primus README).
VENDOR_STACKS: dict[str, Stack] = {AMD: "primus-2025"}


def vendor_stack(vendor: str) -> Stack:
    """The profile a job on an accelerator of `vendor` takes where it states no stack (`DEFAULT_STACK` for others)."""
    return VENDOR_STACKS.get(vendor, DEFAULT_STACK)


def runs_on(stack: str, vendor: str) -> bool:
    """Whether `stack` runs on `vendor`'s accelerators: a vendor's own profile on its own only (Primus is ROCm's)."""
    own = [v for v, s in VENDOR_STACKS.items() if s == stack]
    return not own or vendor in own


#: (value, where it is read) of one switch under one profile.
Setting = tuple[object, str]


@dataclass(frozen=True)
class ByStack:
    """A switch's value under each stack profile, each with its source (one field per name in `STACKS`)."""

    megatron_lm_2021: Setting
    megatron_core_2024: Setting
    nemo_2025: Setting
    primus_2025: Setting

    def setting(self, stack: str) -> Setting:
        """(value, source) under `stack`."""
        value: Setting = getattr(self, stack.replace("-", "_"))
        return value
