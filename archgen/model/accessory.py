"""The `Accessory` kind: parts a rack integrator buys that no other kind describes (liquid fittings, power cords)."""

from typing import Literal

from pydantic import Field

from archgen.model.base import Part


class Accessory(Part):
    """A rack's liquid manifold, a quick disconnect, a hose or a power cord, as a catalog part with its price.

    A rack names the ones it takes (`cooling.liquid.manifold`, `quick_disconnects`, `hoses`) and the bill of
    materials counts them from the rack (docs/rendering.md, Bill of materials).
    """

    kind: Literal["Accessory"] = "Accessory"
    type: Literal["manifold", "quick-disconnect", "hose", "power-cord"] = Field(description=(
        "What it is: a rack manifold (supply or return header), a quick-disconnect coupling, a hose, or a power "
        "cord."))
