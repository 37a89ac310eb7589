"""Spec models, one module per domain, and the table of document kinds."""

from archgen.model.accelerator import Accelerator
from archgen.model.accessory import Accessory
from archgen.model.base import Part
from archgen.model.cluster import Cluster
from archgen.model.cooling import CoolingUnit
from archgen.model.facility import Facility
from archgen.model.network import NIC, Link, Switch
from archgen.model.power import PDU, PowerShelf
from archgen.model.prices import Prices
from archgen.model.rack import Rack
from archgen.model.reliability import FailureRates
from archgen.model.requirements import Requirements
from archgen.model.spec import Document
from archgen.model.sweep import Sweep
from archgen.model.system import System
from archgen.model.workload import Model, Workload

#: Every document kind, by the name used in `kind:`.
KINDS: dict[str, type[Document]] = {
    cls.__name__: cls
    for cls in (Accelerator, System, Switch, NIC, Link, PowerShelf, PDU, CoolingUnit, Accessory, Rack, Facility,
                Requirements, Cluster, Model, Workload, Sweep, FailureRates, Prices)
}

__all__ = ["KINDS", "Document", "Part", "Accelerator", "System", "Switch", "NIC", "Link", "PowerShelf", "PDU",
           "CoolingUnit", "Accessory", "Rack", "Facility", "Requirements", "Cluster", "Model", "Workload", "Sweep",
           "FailureRates", "Prices"]
