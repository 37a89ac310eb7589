"""A part's embodied carbon: the product carbon footprint (PCF) its vendor or a life-cycle study publishes.

`archgen.analyse.embodied` sums it over a cluster's bill of materials into the cluster's `embodied_carbon`
(docs/facility.md, Embodied carbon).
"""

from typing import Literal

from pydantic import Field

from archgen.model.spec import Spec
from archgen.units import Mass


class EmbodiedCarbon(Spec):
    """The greenhouse gases of making one unit, in kg CO2-equivalent, as a product carbon footprint states them."""

    value: Mass = Field(description=(
        "kg of CO2-equivalent of one unit, e.g. '1300 kg': the footprint's total over its boundary (ISO 14067 "
        "product carbon footprint; the GHG Protocol Product Standard). A system's figure covers what is fitted in it."))
    boundary: Literal["cradle-to-gate", "cradle-to-grave"] = Field(description=(
        "What the figure counts: materials and manufacturing to the factory gate, or also transport, use and end of "
        "life. A cluster's total adds figures of one boundary only (a use phase counted twice beside scope 2 "
        "otherwise)."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the figure is published or assumed.")
    source: str = Field(min_length=3, description="The footprint summary or study, with its table or page.")
