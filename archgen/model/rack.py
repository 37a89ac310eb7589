"""The `Rack` kind: parts placed by U position, the power chain and the cooling paths."""

from typing import ClassVar, Literal, Self

from pydantic import Field, model_validator

from archgen.model.base import MarkedFigures, Part, Redundancy
from archgen.model.cost import Price
from archgen.model.dc_feeds import AcSupply
from archgen.model.deliverable import DocumentInfo
from archgen.model.embodied import EmbodiedCarbon
from archgen.model.facility import AirClass, LiquidClass
from archgen.model.field_types import PositiveFraction, RackHeight
from archgen.model.requirements import RackRequirements
from archgen.model.spec import Document, FieldError, Ref, Spec
from archgen.units import Current, FlowRate, Length, Mass, Pressure, Temperature, TemperatureDelta, Voltage, Volume

#: The figures of a liquid path that the cooling analysis and checks read (COOL001-COOL004): each is sourced in the
#: path's `source:` or listed under its `unconfirmed:` (tests/test_catalog_cooling_sources.py).
LIQUID_FIGURES = ("supply", "delta_t", "racks_per_cdu", "cdu_count", "cdu_redundancy", "coolant", "class")
#: The figures of an air path that the cooling analysis and checks read (COOL005, COOL007, the air flow): the same.
AIR_FIGURES = ("class", "delta_t")
#: The enclosure's own figures that the U map, weight and floor load read (MECH001, MECH003, MECH004): the same.
ENCLOSURE_FIGURES = ("height", "width", "depth", "max_payload", "weight")


class FormFactor(MarkedFigures):
    """The rack enclosure."""

    FIGURES: ClassVar[tuple[str, ...]] = ENCLOSURE_FIGURES
    WHERE: ClassVar[str] = "the rack's enclosure (form_factor)"

    standard: Literal["eia-19", "orv3", "orv2", "mgx"] = Field(description="Rack standard.")
    height: RackHeight = Field(description="Usable height in whole rack units, e.g. '48 U'.")
    width: Length = Field(description="External width, e.g. '600 mm'.")
    depth: Length = Field(description="External depth, e.g. '1068 mm'.")
    max_payload: Mass = Field(description="Rated static payload, e.g. '1400 kg'.")
    weight: Mass | None = Field(None, description=(
        "Empty rack weight (frame, and any busbar or manifolds), e.g. '150 kg', as its datasheet states it. Left "
        "out where no source states it: not provided, never a part back-computed from a published total nor one "
        "assumed for a typical cabinet; the rack's weight and floor load then leave the enclosure out and are lower "
        "bounds (`analyse.rack.left_out`; weight36, enclosure36)."))
    unconfirmed: bool | list[str] = Field(False, description=(
        "True, or the names of the enclosure's figures (`ENCLOSURE_FIGURES`: height, width, depth, max_payload, "
        "weight; another name is refused) that no public source gives, such as a footprint chosen for a "
        "typical enclosure: the design's assumption. Documents show them as assumed, and `archgen check` names "
        "them (MECH005)."))


class Slot(Spec):
    """Parts placed at a U position (counted from the bottom, 1-based); `count` stacks them upward."""

    at: int = Field(ge=1, le=100, description="Lowest U the first item occupies.")
    part: Ref = Field(description="Id of a System, Switch, PowerShelf, PDU or CoolingUnit.")
    count: int = Field(1, gt=0, le=200, description="Identical items stacked upward from `at`.")
    face: Literal["front", "rear"] = Field("front", description="Face it is mounted from (matters for half depth).")


class Feeds(AcSupply):
    """The rack's power feeds (whips)."""

    count: int = Field(gt=0, le=64, description="Number of feeds.")
    voltage: Voltage = Field(description="Feed voltage, e.g. '415 V'.")
    basis: Literal["line-to-line", "line-to-neutral"] = Field(description="What `voltage` is measured between.")
    phases: Literal[1, 3] = Field(description="1 or 3 phase.")
    current: Current = Field(description="Breaker rating per feed, e.g. '60 A'.")
    redundancy: Redundancy = Field("N", description="N, N+1 or N+N (also written 2N).")
    derating: PositiveFraction = Field(0.8, description=(
        "Continuous-load factor: the share of the breaker rating the feed carries continuously. Default 0.8: NEC "
        "(NFPA 70) 210.20(A) rates a branch circuit's overcurrent device at no less than 125 % of its continuous load "
        "(1 / 1.25 = 0.8); 1.0 for an assembly listed for 100 % operation (its exception). The rack document marks "
        "the default as assumed."))
    power_factor: PositiveFraction = Field(1.0, description="Load power factor (W per VA); 1.0 unless stated.")


class ShelfCords(Spec):
    """The power shelves' input cords: a catalog `Accessory` (`type: power-cord`) and how many each shelf takes."""

    part: Ref = Field(description="Id of an Accessory (kind: Accessory) in the catalog.")
    per_shelf: int = Field(1, gt=0, le=16, description="Cords per placed shelf, e.g. 1 (one AC input).")


class Shelves(Spec):
    """The power shelves placed in the slots: their redundancy and what feeds them."""

    redundancy: Redundancy = Field("N", description="N, N+1 or N+N across the rack's shelves.")
    busbar_rating: Current | None = Field(None, description=(
        "Rated current of the DC busbar the shelves feed, as its maker states it, e.g. '3000 A'; PWR014 checks the "
        "busbar current (the shelves' load / their output voltage) against it. Not stated: the current is shown, "
        "not checked."))
    fed_from: Literal["feeds", "pdus"] = Field("feeds", description=(
        "What the shelves' inputs plug into: the rack's feeds, or the outlets of the PDUs placed in the rack "
        "(feeds → PDUs → shelves)."))
    cords: ShelfCords | None = Field(None, description=(
        "The input cords (whips) from the feeds or PDUs to the shelves' AC inputs, e.g. {part: my-whip, "
        "per_shelf: 1}. Not stated: the bill of materials lists them as not provided."))


class Pdus(Spec):
    """The PDUs placed in the slots: their redundancy and, beside power shelves, the parts they power."""

    redundancy: Redundancy = Field("N", description="N, N+1 or N+N across the rack's PDUs.")
    serves: list[Ref] = Field(default_factory=list, description=(
        "In a rack that also holds power shelves fed from the feeds: ids of the placed parts the PDUs power (e.g. "
        "AC management switches); the other parts are on the shelves' busbar. Without shelves the PDUs power "
        "everything."))


class PowerChain(Spec):
    """Feeds and the conversion stages (power shelves, PDUs, or both) as the rack arranges them."""

    feeds: Feeds = Field(description="The rack's feeds.")
    shelves: Shelves | None = Field(None, description="Shelf redundancy and input, for racks with power shelves.")
    pdus: Pdus | None = Field(None, description="PDU redundancy and the parts they serve, for racks with PDUs.")
    external: list[Ref] = Field(default_factory=list, description=(
        "Ids of placed parts powered from outside this rack's shelves, PDUs and feeds (a facility circuit or a "
        "neighbouring rack's PDU, as the integrator arranges it), e.g. an AC switch in a DC busbar rack whose feed "
        "the design does not show: their draw stays in the rack's IT power, input power and heat, but no stage or "
        "feed of this rack carries it, and the rack document lists them as an open item."))


class RackFitting(Spec):
    """Liquid parts a rack takes a fixed number of: a catalog `Accessory` and how many per rack."""

    part: Ref = Field(description="Id of an Accessory (kind: Accessory) in the catalog.")
    count: int = Field(gt=0, le=1000, description="How many one rack takes, e.g. 2 (a supply and a return).")


class TrayFitting(Spec):
    """Quick disconnects counted from the rack: a catalog `Accessory` and how many each liquid-cooled tray takes."""

    part: Ref = Field(description="Id of an Accessory (kind: Accessory) in the catalog.")
    per_tray: int = Field(gt=0, le=64, description=(
        "Couplings per liquid-cooled tray (a placed system or switch with a `cooling.liquid_fraction`): a supply and "
        "a return per cold-plate loop, e.g. 2 for one loop."))


class LiquidPath(MarkedFigures):
    """The liquid loop serving the rack."""

    FIGURES: ClassVar[tuple[str, ...]] = LIQUID_FIGURES
    WHERE: ClassVar[str] = "the rack's liquid loop (cooling.liquid)"

    cdu: Ref = Field(description=(
        "Id of the CoolingUnit (CDU) serving this rack, of `type` in-row-cdu or in-rack-cdu (a rear door or CRAH, "
        "which cools air, is REF002). An in-row CDU stands outside the rack; an in-rack one "
        "(`type: in-rack-cdu`) is also placed in `slots`, `cdu_count` of them, for its U and weight (COOL012)."))
    cdu_count: int = Field(1, gt=0, le=1000, description=(
        "CDUs of that type serving one group of `racks_per_cdu` racks (not per rack): a cluster of n racks of this "
        "type buys ⌊n / racks_per_cdu⌋ groups, and for a last, partial group the fewest CDUs that carry its heat "
        "with the redundancy held back."))
    cdu_redundancy: Redundancy = Field("N", description="Redundancy across the CDUs of a group.")
    racks_per_cdu: int = Field(1, gt=0, le=10_000, description="Racks of this type sharing one CDU group.")
    supply: Temperature = Field(description="Maximum secondary coolant supply temperature the trays accept.")
    delta_t: TemperatureDelta = Field(
        description="Coolant temperature rise across the rack, e.g. '10 K' ('10 degC' is read as 10 K).")
    coolant: Literal["water", "pg25"] = Field("pg25", description="water or 25 % propylene glycol.")
    class_: LiquidClass = Field(alias="class", description="ASHRAE liquid class the rack is designed for.")
    pressure_drop: Pressure | None = Field(None, description=(
        "Coolant pressure drop across the rack from its supply to its return connection (manifolds, quick "
        "disconnects, the trays' cold plates) at its design flow, the coolant flow its document gives (liquid heat / "
        "(ρ c_p ΔT)), as the rack's or trays' maker states it, e.g. '100 kPa'. COOL019 judges it (with "
        "`piping_pressure_drop`) against the CDU's available `pressure`. Not stated: not judged."))
    pressure_drop_flow: FlowRate | None = Field(None, description=(
        "The coolant flow `pressure_drop` is stated at, where the maker states it at a flow other than the rack's "
        "design flow, e.g. '80 L/min'. The drop is then scaled to the design flow as (design / stated)^n with n "
        "between 1 (laminar, Hagen-Poiseuille) and 2 (turbulent through fixed geometry, Darcy-Weisbach at a fixed "
        "friction factor, fittings' K-factors): COOL019 judges the larger and the rack document gives both "
        "(checks.loop_pressure.at_flow). Not stated: `pressure_drop` is read as at the design flow, and the finding "
        "and the document say so."))
    piping_pressure_drop: Pressure | None = Field(None, description=(
        "Pressure drop of the secondary piping and hoses from the CDU to this rack and back at the group's flow, from "
        "the piping design, e.g. '40 kPa'; COOL019 adds it to `pressure_drop`. Not stated: the rack's own drop is "
        "judged alone, and the finding and the document say the piping is not counted."))
    coolant_volume: Volume | None = Field(None, description=(
        "Coolant the rack holds when filled (the trays' cold plates, its manifolds and hoses), as its maker states it, "
        "e.g. '40 L'. Its mass, the volume x the coolant's density (water 995.6 kg/m³, PG25 1,015 kg/m³, the "
        "densities the coolant flow uses), is added to the rack's weight and floor load (`weight`, `floor_load`, "
        "MECH004): the filled, operating weight. The rated payload (MECH003) is judged on the equipment alone. It "
        "holds the placed parts' coolant, so their `cooling.coolant_volume` is not added again. Not stated: the "
        "weight adds the parts' stated volumes only and is a lower bound (the manifolds' and hoses' coolant, and "
        "any liquid-cooled part's that states none, left out: analyse.rack.coolant), and a requirement on it that "
        "the bound meets is not provided (REQ002)."))
    manifold: RackFitting | None = Field(None, description=(
        "The rack's manifolds (supply and return headers the trays couple to), e.g. {part: mgx-manifold, count: 2}. "
        "Not stated, the bill of materials lists them as not provided."))
    quick_disconnects: TrayFitting | None = Field(None, description=(
        "The quick-disconnect couplings between the trays' cold-plate loops and the manifolds, counted per "
        "liquid-cooled tray placed, e.g. {part: uqd-08, per_tray: 2}. Not stated: not provided in the BOM."))
    hoses: RackFitting | None = Field(None, description=(
        "Hoses from the rack's manifolds to the CDU's line (an in-row CDU's secondary header, an in-rack CDU's "
        "ports), e.g. {part: tcs-hose, count: 2}. Not stated: not provided in the BOM."))
    unconfirmed: bool | list[str] = Field(False, description=(
        "True, or the names of the loop's figures (`LIQUID_FIGURES`: supply, delta_t, racks_per_cdu, cdu_count, "
        "cdu_redundancy, coolant, class; another name is refused), when no public source gives them: "
        "the design's assumption, stated as a part states an unconfirmed figure. Documents show them as assumed, "
        "and `archgen check` names them (COOL016)."))

    @model_validator(mode="after")
    def _drop_flow_has_a_drop(self) -> Self:
        if self.pressure_drop_flow is not None and self.pressure_drop is None:
            raise FieldError(("pressure_drop_flow",), f"{self.pressure_drop_flow.m_as('L/min'):g} L/min is the "
                                                      "flow a pressure drop is stated at, but no pressure_drop is "
                                                      "stated: give the drop the maker states at this flow, e.g. "
                                                      "pressure_drop: 120 kPa, or remove it")
        return self


class AirPath(MarkedFigures):
    """Air cooling of the rack."""

    FIGURES: ClassVar[tuple[str, ...]] = AIR_FIGURES
    WHERE: ClassVar[str] = "the rack's air path (cooling.air)"

    class_: AirClass = Field(alias="class", description="ASHRAE air class of the equipment.")
    delta_t: TemperatureDelta = Field(
        description="Inlet-to-exhaust air temperature rise, e.g. '20 K' ('20 degC' is read as 20 K).")
    rear_door: Ref | None = Field(None, description=(
        "Id of the rear-door heat exchanger on this rack: a CoolingUnit of `type: rdhx` (another type is REF002). "
        "It takes up to its `capacity` (at the hall's conditions, as a CDU's) of the rack's heat to air into its "
        "water; the hall's air takes the rest, and COOL014 warns where the air heat exceeds the door's capacity. "
        "One door per rack; it takes no U (a door is not placed in `slots`: REF002). The air flow the equipment "
        "needs (COOL007) is unchanged: the door cools the exhaust after the equipment has heated it. Its own "
        "`power` (an active door's fans) is shown, not added to the rack's power chain."))
    unconfirmed: bool | list[str] = Field(False, description=(
        "True, or the names of the air path's figures (`AIR_FIGURES`: class, delta_t; another name is refused) "
        "that no public source gives: the design's assumption. A ΔT can be derived from a system's published air "
        "flow and power (ΔT = P / (ρ c_p V̇)) and cited with that arithmetic. Documents show them as assumed, and "
        "`archgen check` names them (COOL017)."))


class CoolingPaths(Spec):
    """How the rack's heat leaves: to liquid, to air, or both."""

    liquid: LiquidPath | None = Field(None, description="Liquid loop, if any.")
    air: AirPath = Field(description="Air path (every rack rejects some heat to air).")


class Rack(Document):
    """A rack: enclosure, placed parts, power chain, cooling and requirements."""

    kind: Literal["Rack"] = "Rack"
    form_factor: FormFactor = Field(description="Enclosure.")
    slots: list[Slot] = Field(min_length=1, description="Parts placed by U position.")
    power: PowerChain = Field(description="Power feeds and conversion.")
    cooling: CoolingPaths = Field(description="Air and liquid paths.")
    facility: Ref | None = Field(None, description="Id of the Facility the rack is installed in.")
    document: DocumentInfo = Field(DocumentInfo.model_construct(), description=(  # frozen: one default serves all
        "Document control of its rendered document: customer, number, revision, authors, audience, "
        "confidentiality."))
    requirements: RackRequirements = Field(default_factory=list, description="Requirements on this rack's metrics.")
    price: Price | None = Field(None, description=(
        "Price of the empty rack (enclosure and busbar), per rack; its liquid manifolds, quick disconnects and hoses "
        "are the parts `cooling.liquid` names, priced by their own ids (not named: not provided, capex a lower "
        "bound)."))
    embodied_carbon: EmbodiedCarbon | None = Field(None, description=(
        "The product carbon footprint of the empty rack (enclosure and busbar), per rack: summed into a "
        "cluster's `embodied_carbon` with its parts'. Unstated: that total is not provided."))

    def assumed_figures(self) -> tuple[tuple[str, MarkedFigures, tuple[str, ...]], ...]:
        """Each of the rack's own figure groups that marks figures unconfirmed, with where it sits and those figures.

        The liquid loop (COOL016), the air path (COOL017), the enclosure (MECH005), in that order.
        """
        groups = (("cooling.liquid", self.cooling.liquid), ("cooling.air", self.cooling.air),
                  ("form_factor", self.form_factor))
        return tuple((at, g, named) for at, g in groups if g is not None and (named := g.assumed()))

    @model_validator(mode="after")
    def _empty_rack_price(self) -> Self:
        if self.price is not None and self.price.rack == "populated":
            raise FieldError(("price", "rack"), "a rack's own price is the empty rack's (the parts placed in it are "
                                                "priced by their own ids); got 'populated': price the enclosure, or "
                                                "give the populated rack's quote split by part in a Prices document")
        return self

    @model_validator(mode="after")
    def _placeable(self) -> Self:
        # A 100 U rack holds at most 200 one-U parts, front and rear; twice that leaves room for 0 U parts. More is
        # no rack, and each item costs every analysis and drawing (5,000 slot lines took render past 400 s, issue 23).
        items = sum(s.count for s in self.slots)
        if items > MAX_ITEMS:
            raise FieldError(("slots",), f"{len(self.slots):,} slot lines place {items:,} items; a rack holds at "
                                         f"most {MAX_ITEMS} (200 one-U parts front and rear, and 0 U parts)")
        return self



#: Items one rack can hold (Rack._placeable).
MAX_ITEMS = 400


def unconfirmed_figures(d: Document) -> list[str]:
    """The figures an entry marks unconfirmed: a part's `unconfirmed:` ('*' for all), or a rack's own figures'.

    A rack's are named from the rack (`cooling.liquid.supply`, `form_factor.weight`; `cooling.air.*` for all of a
    group's, COOL016, COOL017, MECH005); another entry marks none.
    """
    if isinstance(d, Part):
        return d.unconfirmed_fields()
    if not isinstance(d, Rack):
        return []
    return [f"{at}.{f}" for at, g, named in d.assumed_figures() for f in (("*",) if g.unconfirmed is True else named)]
