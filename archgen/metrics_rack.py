"""The metric registry's rows of a rack, declared as `archgen.metrics.REGISTRY` holds them.

Split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13). What a rack's placed
parts draw (at their inputs, typical, with the rack's cooling units and the power shelves' loss), what its feeds and
conversion stages hold after redundancy, where its heat goes (liquid, air, a rear door) and the flows that carry it,
its rack units, weight, floor load, accelerators and optics, all computed by `analyse.rack`; the coolant and inlet
air a rack accepts are `archgen.metrics_facility.RACK_INLETS`.
"""

from __future__ import annotations

from archgen.metric import Metric

_R = "analyse/rack.py"

RACK: tuple[Metric, ...] = (
    Metric("rack", "it_power", "W", "kW", 1, "IT power at the equipment", "Maximum draw of the systems and "
           "switches placed in the rack, at their own inputs: a shelf-fed part's at the DC busbar, before the power "
           "shelves' losses (`input_power` adds them).", _R),
    Metric("rack", "it_power_typical", "W", "kW", 1, "IT power (typical)", "Typical draw of the systems and "
           "switches placed where the datasheet states one, else their maximum, plus optics (for energy; budgets "
           "stay on the maximum).", _R),
    Metric("rack", "rack_load", "W", "kW", 1, "Rack load", "IT power plus the rack's own cooling units.", _R),
    Metric("rack", "input_power", "W", "kW", 1, "Input power", "Rack load divided by the efficiency of the power "
           "shelves (what the feeds deliver), plus the draw of the parts `power.external` names, fed from outside "
           "the rack's feeds: every watt the rack takes.", _R),
    Metric("rack", "feed_load", "W", "kW", 1, "Feed load", "What the rack's own feeds carry (and the busway "
           "or panel behind them): the input power less the draw of the parts `power.external` names, which reach "
           "the rack on a circuit of their own.", _R),
    Metric("rack", "feed_capacity_usable", "W", "kW", 1, "Usable feed capacity", "Power of the feeds left after "
           "the redundant ones are held back (V × A × phase factor × derating × power factor per feed).", _R),
    Metric("rack", "conversion_capacity_usable", "W", "kW", 1, "Usable conversion capacity", "Capacity of the power "
           "shelves or PDUs left after the redundant ones are held back.", _R),
    Metric("rack", "heat_to_liquid", "W", "kW", 1, "Heat to liquid", "Heat the liquid loop takes (the liquid-cooled "
           "share of the input power).", _R),
    Metric("rack", "heat_to_air", "W", "kW", 1, "Heat to air", "Heat the room air takes (the rest of the input "
           "power, less what a rear door takes).", _R),
    Metric("rack", "heat_to_rear_door", "W", "kW", 1, "Heat to the rear door", "Heat the rack's rear-door heat "
           "exchanger (`cooling.air.rear_door`) takes from its exhaust air into its water: the air-side heat, up to "
           "the door's capacity.", _R),
    Metric("rack", "coolant_flow", "m**3/s", "L/min", 1, "Coolant flow", "Liquid flow that carries the heat to "
           "liquid at the rack's ΔT (Q = P / (ρ c_p ΔT)).", _R),
    Metric("rack", "air_flow", "m**3/s", "ft**3/min", 0, "Air flow", "Air flow through the equipment that carries "
           "its air-side heat at the rack's air ΔT (a rear door cools that air afterwards).", _R),
    Metric("rack", "u_used", "m", "U", 0, "U used", "Rack units taken by placed parts.", _R),
    Metric("rack", "u_free", "m", "U", 0, "U free", "Rack units left.", _R),
    Metric("rack", "weight", "kg", "kg", 0, "Weight", "Weight as installed: the enclosure and every placed part that "
           "states a weight; a lower bound where something installed is not weighed (a part stating none, cables and "
           "transceivers, a liquid loop's coolant), and a requirement it meets is then not provided.", _R),
    Metric("rack", "floor_load", "kg/m**2", "kg/m**2", 0, "Floor load", "Weight over the rack's footprint (a lower "
           "bound where the weight is).", _R),
    Metric("rack", "accelerators", "", "", 0, "Accelerators", "Accelerators in the rack's systems.", _R),
    Metric("rack", "optics_power", "W", "kW", 3, "Optics power", "Transceivers and active cable ends in the ports of "
           "the switches the rack holds, and in the NICs of systems whose maximum leaves them out (in its IT "
           "power).", _R),
)
