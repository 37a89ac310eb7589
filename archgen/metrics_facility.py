"""The metric registry's facility metrics, declared as `archgen.metrics.REGISTRY` holds them (in its order).

Split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13), and these are its
rows for what a cluster draws from its hall and the hall's headrooms (`archgen.analyse.facility`), and a rack's inlet
temperatures, what it accepts of the hall's water and air (`archgen.analyse.rack`): the figures a hall's requirements
and a vendor's deviation on them are stated in (`archgen gap`, newuser84).
"""

from __future__ import annotations

from archgen.metric import Metric

_N, _C, _FAC = "analyse/network.py", "analyse/cabling.py", "analyse/facility.py"
_HALL = "analyse/hall_totals.py"
#: A headroom beside other clusters' halls (`analyse.facility.hall_headrooms`, review45).
_HALLS = ("Another cluster's hall naming the facility (`floor.halls[].facility`) counts its racks' load, as PWR010, "
          "COOL009 and PWR011 sum it; that cluster's load outside its racks is not split by hall, so the headroom is "
          "the upper end of a range whose other end counts all of it (a requirement met at one end only is not "
          "provided).")

#: A rack's inlet temperatures: what it accepts, so more is better (warmer water and air cool for less).
RACK_INLETS: tuple[Metric, ...] = (
    Metric("rack", "coolant_supply", "degC", "degC", 1, "Coolant supply accepted", "Warmest secondary coolant "
           "supply the liquid-cooled parts accept (`cooling.liquid.supply`), as the design states it: what a hall's "
           "requirement on warm-water cooling (`coolant_supply >= 40 degC`) judges; only on a rack with a liquid "
           "loop (a glob over air-cooled racks is not applicable there). COOL004 judges what the hall delivers to "
           "it.", "analyse/rack.py", maximise=True),
    Metric("rack", "air_inlet_max", "degC", "degC", 1, "Inlet air allowed", "Warmest inlet air the rack's ASHRAE "
           "air class allows (`cooling.air.class`: A1 32, A2 35, A3 40, A4 45 °C, TC 9.9 Thermal Guidelines, 5th "
           "ed., 2021), derated 1 K per 300 m (A3 175 m, A4 125 m) above 900 m at its hall's altitude: where the "
           "layout puts it in halls naming their own facilities (`floor.halls[].facility`) theirs, the lowest over "
           "several places (the rack document names each). COOL005 judges the hall's air against it.",
           "analyse/rack.py", maximise=True),
)

FACILITY: tuple[Metric, ...] = (
    Metric("cluster", "facility_power", "W", "kW", 1, "Facility power", "IT power times the facility's PUE "
           "(`cost.energy.pue`): what the hall draws from its utility feed for this cluster at its maximum IT draw, "
           "held steady: the load's swing (synchronous training) is not modelled (PWR022). On a floor whose halls "
           "name their own facilities (`floor.halls[].facility`), times their PUE; not provided where a hall holding "
           "racks names none, its facility states none, or two state different PUEs (the draw outside the racks "
           "is not split by hall).", _C),
    Metric("cluster", "facility_power_peak", "W", "kW", 1, "Facility power at design conditions", "IT power times "
           "the facility's `peak_pue` (full IT load on the design day): what generator sets carry (PWR011), held "
           "steady, their load steps not judged (PWR022); not provided where the hall states no `peak_pue`. On a "
           "floor whose halls name their own facilities, times their `peak_pue`, not provided unless every hall "
           "holding racks names one stating the same.", _C),
    Metric("cluster", "cdu_power", "W", "kW", 1, "CDU power", "Electrical draw (pumps, controls) of the in-row "
           "CDUs the cluster buys (`cdu_units` x `CoolingUnit.power`): part of what the PUE adds to IT power, not "
           "in `it_power`; not provided where a CDU states no `power` (the reason names it) or the cluster buys "
           "no in-row CDU.", "analyse/cdu_power.py"),
    Metric("cluster", "rack_cooling_power", "W", "kW", 1, "Rack cooling power", "Draw of the cooling units "
           "placed in the racks (in-rack CDUs: `CoolingUnit.power`) over every rack instance, as each rack's "
           "`rack_load` counts it: on the rack feeds, so in both headrooms and the UPS load, not in `it_power` (a "
           "CDU's pumps are in the PUE's overhead); shown where some rack's cooling units draw.", _N),
    Metric("cluster", "hall_power.<hall>", "W", "kW", 1, "A hall's racks' draw", "On a floor of several halls "
           "(`floor.halls`), the racks of hall <hall> at their maximum draw with their in-rack cooling units, as "
           "PWR010 and COOL009 judge them against the hall's own `facility`; the optics outside systems, switches in "
           "no rack, storage and power-shelf loss are the cluster's, not split by hall (so a floor under the hall's "
           "share of `it_power`).", _N),
    Metric("cluster", "hall_power_max", "W", "kW", 1, "Largest hall's racks' draw", "The largest `hall_power.<hall>` "
           "of the cluster's halls: what a requirement on each building's draw bounds (`{metric: hall_power_max, "
           "target: <= 150 MW}`); only on a floor of halls.", _N),
    Metric("cluster", "it_capacity_headroom", "W", "kW", 1, "Critical IT power headroom", "The facility's "
           "`critical_it_power` less what the rack feeds (IT power, `rack_cooling_power`) of every cluster of the run "
           "naming the hall carry; negative when it cannot power them; not provided where one has no IT power, or "
           "where the cluster's halls name their own facility (`floor.halls[].facility`: PWR010 judges each). "
           + _HALLS, _C,
           maximise=True),
    Metric("cluster", "cooling_headroom", "W", "kW", 1, "Cooling headroom", "The facility's `cooling_capacity` "
           "at its site's outdoor conditions (the `cooling_derating` row covering them, where the rating states its "
           "conditions) less the IT power plus `rack_cooling_power` (all of it becomes heat) of every cluster of the "
           "run that names the hall; negative when the hall cannot cool them; not provided where no stated rating "
           "covers the site (COOL011), or a cluster in the hall has no IT power, or where the cluster's halls name "
           "their own facility (COOL009 judges each). " + _HALLS, _C,
           maximise=True),
    Metric("cluster", "ups_headroom", "W", "kW", 1, "UPS headroom", "The facility's usable UPS capacity "
           "(`feeds.ups_units`, the spares of `feeds.ups` held back, N where unstated) less the UPS load PWR011 "
           "judges: the rack feeds' load (IT power, `rack_cooling_power`), with the in-row CDUs' `cdu_power` where "
           "`feeds.cdus_on_ups`, of every cluster of the run naming the hall; negative when the UPS cannot carry "
           "them; not provided where the hall states no UPS modules, or a load is not known, or the cluster's halls "
           "name their own facility (PWR011 judges each). " + _HALLS, _FAC,
           maximise=True),
    Metric("cluster", "generator_headroom", "W", "kW", 1, "Generator headroom", "The facility's usable generator "
           "capacity (`feeds.generator_units` at the site's outdoor conditions, the spares of `feeds.generators` "
           "held back) less the generator load PWR011 judges: `facility_power_peak` where the hall states "
           "`peak_pue`, else `facility_power` (the annual PUE: optimistic), of every cluster of the run naming the "
           "hall; negative when the sets cannot carry them; not provided where the hall states no generator sets, "
           "no derating row covers the site, or a load is not known, or the cluster's halls name their own "
           "facility (PWR011 judges each). " + _HALLS, _FAC, maximise=True),
    Metric("cluster", "hall_it_power", "W", "kW", 1, "Hall IT power", "IT power of the clusters its hall's "
           "`deployed` lists, summed, a checkpoint storage they state under one `storage.id` counted once; only on "
           "a cluster so listed (a hall without `deployed` has none: PWR021); not provided where one of them has "
           "no IT power, or stands in the hall by one of its halls (`floor.halls[].facility`: its share there is "
           "not split by hall).", _HALL),
    Metric("cluster", "hall_facility_power", "W", "kW", 1, "Hall facility power", "`hall_it_power` times the "
           "hall's annual PUE (`cost.energy.pue`, one for the hall): what the hall draws for the clusters deployed "
           "in it; not provided where the hall states no `cost:`.", _HALL),
    Metric("cluster", "hall_facility_energy_per_year", "J", "MWh", 0, "Hall facility energy per year", "Each "
           "`facility_energy_per_year` of the clusters the hall's `deployed` lists, summed, a checkpoint storage "
           "they state under one `storage.id` counted once (its typical draw for the hall's `utilisation`, its idle "
           "draw for the rest, x PUE); not provided where one of them has no facility energy.", _HALL),
)
