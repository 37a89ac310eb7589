"""The link technologies a spec names, declared once for switches and scale-up domains (`TECHNOLOGIES`).

`Switch.technology` and a cluster's `scale_up.technology` read the one list, so a technology one accepts is known
to the other: a UALink switch tray was refused with "did you mean 'nvlink'" while the cluster's domain took
`ualink` (newuser37). Each field refuses, with the reason, a technology the list says it cannot carry: a direct
mesh or torus has no switch, and InfiniBand and optical circuit switches join no scale-up domain.
"""

from typing import Annotated, Literal, NamedTuple

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

#: The technologies a switch and a scale-up domain may state: `TECHNOLOGIES` with its `switch` and `scale_up` flags
#: (a test holds them to it; typed out because a Literal cannot be built at run time).
SwitchName = Literal["nvlink", "ualink", "ethernet", "infiniband", "optical-circuit"]
ScaleUpName = Literal["nvlink", "ualink", "ethernet", "infinity-fabric", "neuronlink"]


class Kind(NamedTuple):
    """What a technology is, in words, which of a switch and a scale-up domain may state it, and why not."""

    words: str
    switch: bool
    scale_up: bool
    remark: str = ""


#: Every technology a spec names, with its words and where it may be stated.
TECHNOLOGIES: dict[str, Kind] = {
    "nvlink": Kind("NVLink", True, True),
    "ualink": Kind("UALink", True, True),
    "ethernet": Kind("Ethernet", True, True),
    "infiniband": Kind("InfiniBand", True, False, "a scale-out network"),
    "infinity-fabric": Kind("Infinity Fabric (AMD xGMI)", False, True, "a direct mesh with no switch"),
    "neuronlink": Kind("NeuronLink", False, True, "AWS Trainium's direct torus with no switch"),
    "optical-circuit": Kind("optical circuit switching", True, False, "a switch that joins no scale-up domain"),
}


def _allowed(field: str) -> BeforeValidator:
    """A validator refusing, with the reason, a technology `TECHNOLOGIES` says `field` ('switch', 'scale_up') lacks.

    It runs before the field's Literal, which refuses (with "did you mean") a name the list does not hold.
    """
    def check(value: object) -> object:
        kind = TECHNOLOGIES.get(value) if isinstance(value, str) else None
        if kind is not None and not getattr(kind, field):
            names = ", ".join(n for n, k in TECHNOLOGIES.items() if getattr(k, field))
            what = "a switch's" if field == "switch" else "a scale-up domain's"
            raise PydanticCustomError("expected", "{what} technology, one of {names} ('{value}' is {remark})",
                                      {"what": what, "names": names, "value": value, "remark": kind.remark})
        return value
    return BeforeValidator(check)


#: A switch's technology: any of `TECHNOLOGIES` a switch carries.
SwitchTechnology = Annotated[SwitchName, _allowed("switch")]
#: A scale-up domain's technology: any of `TECHNOLOGIES` a scale-up domain runs on.
ScaleUpTechnology = Annotated[ScaleUpName, _allowed("scale_up")]

#: Why a direct mesh domain (`topology: mesh`) is one node, in the words of the technology stated: the meshes shipped
#: join the accelerators of one board, and a rack of such nodes is joined through switches (a switched domain).
MESH_IN_ONE_NODE: dict[str, str] = {
    "infinity-fabric": "Infinity Fabric joins the GPUs of one platform",
    # Intel Gaudi documentation, Network Configuration, https://docs.habana.ai/en/latest/Management_and_Monitoring/
    # Network_Configuration/index.html: "21 scale-up ports and three scale-out ports running at 200Gbps".
    "ethernet": "an Ethernet mesh such as Intel Gaudi 3's joins the eight cards of one node, 21 of each card's 200 GbE "
                "ports, 3 to each of its 7 peers (docs.habana.ai Network Configuration); nodes are joined through "
                "switches, by its 3 scale-out ports",
}
#: The words for a technology `MESH_IN_ONE_NODE` does not name.
MESH_IN_ONE_NODE_OTHERS = ("a direct mesh links every pair of accelerators, which the meshes shipped do inside one "
                           "node's board")

#: How an accelerator's free-text `scale_up.technology` ("NVLink 5", "Infinity Fabric (xGMI 3)", "RoCE 200GbE
#: (on-chip)") spells each scale-up technology of `TECHNOLOGIES`, lower case.
SPELLINGS: dict[str, tuple[str, ...]] = {
    "nvlink": ("nvlink",), "ualink": ("ualink",), "ethernet": ("ethernet", "gbe", "roce"),
    "infinity-fabric": ("infinity fabric", "xgmi"), "neuronlink": ("neuronlink",),
}


def other_link(own: str, domain: str) -> bool:
    """Whether a domain of technology `domain` (a cluster's `scale_up.technology`) is not the accelerator's own link.

    `own` is the accelerator's `scale_up.technology` text: True where it spells some technology, not this one. A
    text that spells none (TPU v4's "ICI (TPU v4)") is not judged: False.
    """
    text = own.lower()
    spelt = {name for name, words in SPELLINGS.items() if any(w in text for w in words)}
    return bool(spelt) and domain not in spelt
