"""A cluster's checkpoint storage (`Cluster.storage`): its figures, draw and price, or the appliances it is built from.

Split from `archgen.model.reliability` for its size; docs/reliability.md describes it ("Checkpoint storage: price
and power", "Storage appliances as parts").
"""

from typing import Literal, Self

from pydantic import Field, model_validator

from archgen.model.cost import Price
from archgen.model.field_types import PositiveFraction
from archgen.model.spec import FieldError, Id, Ref, Spec, raise_each
from archgen.units import Bandwidth, Information, Power, PowerOrZero, Q


class StoragePower(Spec):
    """What a cluster's checkpoint storage draws, as its datasheet (or an estimate) states it."""

    max: Power = Field(description="Maximum draw of the whole storage system (every appliance), e.g. '12 kW'.")
    typical: PowerOrZero | None = Field(None, description=(
        "Typical draw under load, where published; average-power figures and energy use it, else `max`."))
    idle: PowerOrZero | None = Field(None, description=(
        "Draw with no job running, where published; the hours the cluster idles (its facility's `utilisation`) "
        "are costed at it, else at the typical draw (assumed, as a part's)."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the draw is sourced or assumed.")
    source: str = Field(min_length=3, description="Where the draw comes from (datasheet, table), or why assumed.")

    @model_validator(mode="after")
    def _within_max(self) -> Self:
        over = [(name, q) for name in ("typical", "idle") if (q := getattr(self, name)) is not None and q > self.max]
        raise_each([FieldError((name,), f"{'an' if name == 'idle' else 'a'} {name} draw of {q:~P} is above the "
                                        f"maximum of {self.max:~P}; give at most `max`") for name, q in over],
                   type(self).__name__)
        return self


class Storage(Spec):
    """The storage system a cluster writes checkpoints to (e.g. parallel file system appliances).

    Its `price` and `power` are optional: given, the storage enters the cluster's capex, TCO and costs per hour and
    per token, and its draw the IT power, facility power and energy, like a part on the bill of materials
    (docs/reliability.md, "Checkpoint storage: price and power"); left out, they leave it out and say so.
    """

    capacity: Information | None = Field(None, description=(
        "Usable capacity for checkpoints, e.g. '2 PB'; with `appliance`, left out: the placed appliances' sum."))
    write_bandwidth: Bandwidth | None = Field(None, description=(
        "Sustained aggregate write bandwidth, e.g. '200 GB/s'; with `appliance`, left out: the appliances' sum."))
    read_bandwidth: Bandwidth | None = Field(None, description=(
        "Sustained aggregate read bandwidth, e.g. '400 GB/s'; with `appliance`, left out: the appliances' sum."))
    write_efficiency: PositiveFraction | None = Field(None, description=(
        "Fraction of `write_bandwidth` a checkpoint save reaches on this storage, as measured (say where in "
        "`source`), e.g. 0.16. Left out: checkpoints are written at the stated bandwidth, and goodput says so. One "
        "published measurement: saves at 16.0 % of 250 GB/s on an NFS-backed 504-GPU B200 cluster (Lablup, arXiv "
        "2605.09370v5, abstract), a figure of that system, not a default."))
    read_efficiency: PositiveFraction | None = Field(None, description=(
        "Fraction of `read_bandwidth` a restore reaches, as `write_efficiency` (Lablup: 21.5 % of 700 GB/s)."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the figures are sourced or assumed.")
    source: str = Field(min_length=3, description="Where the figures come from.")
    external_network: str | None = Field(None, min_length=3, description=(
        "Who builds the network the compute nodes reach this storage over, where no fabric of this design of role "
        "storage or converged takes a port of them, e.g. \"Meta's own network to Tectonic, outside this stand-in\". "
        "Given: checkpoints are timed over the nodes' storage NICs (else converged or compute NICs) at line rate, and "
        "REL012 says the figures rest on that. Left out: checkpoint times, goodput and spares are not provided "
        "(REL006)."))
    id: Id | None = Field(None, description=(
        "A name a `Prices` document prices this storage by (as it prices a catalog part by its id), e.g. "
        "`ddn-ai400x3-x4`: the list's price is taken before `price`. Left out: only `price` prices it."))
    price: Price | None = Field(None, description=(
        "Purchase price of the whole storage system (appliances, drives, licences as quoted), with its currency, "
        "date, basis and source, as a catalog part's `price`, e.g. `{capex: 1200000 USD, date: '2025-06', basis: "
        "assumed, source: '...'}`. Left out (and no `Prices` document naming `id`): capex and the costs on it "
        "leave the storage out, and the documents say so."))
    power: StoragePower | None = Field(None, description=(
        "Draw of the whole storage system: `max` enters `it_power` (and facility power), `typical` (else `max`) "
        "the average load and energy. Taken to stand in the cluster's hall, outside its racks (no shelf loss). "
        "Left out: IT power and energy leave the storage out, and the documents say so."))
    appliance: Ref | None = Field(None, description=(
        "Id of the storage appliance this storage is built from: a System with `storage:` figures placed in the "
        "cluster's racks, so rack units, weight, power, cooling and price count it as they count any placed part. "
        "REL014 judges `capacity`, `write_bandwidth` and `read_bandwidth` against the placed appliances' sum; "
        "`power` and `price` are then left out (the racks count them). Left out: the storage stands outside the "
        "racks, as before (docs/reliability.md, \"Storage appliances as parts\")."))

    @model_validator(mode="after")
    def _no_rack(self) -> Self:
        if self.price is not None and self.price.rack is not None:
            raise FieldError(("price", "rack"), f"'rack: {self.price.rack}' states what a rack's price covers; "
                                                "a storage's `price` is the whole storage system's: leave it out")
        raise_each([FieldError((name,), f"`{name}` is required: state it, or name the `appliance` the racks place "
                                        "and it is their sum") for name in FIGURES
                    if self.appliance is None and getattr(self, name) is None], type(self).__name__)
        twice = [name for name in ("power", "price") if self.appliance is not None and getattr(self, name) is not None]
        raise_each([FieldError((name,), f"`{name}` given beside `appliance: {self.appliance}`: the racks placing the "
                                        f"appliances count their {name}, so it would be counted twice; leave it out")
                    for name in twice], type(self).__name__)
        return self

    def figure(self, name: str) -> Q:
        """`capacity`, `write_bandwidth` or `read_bandwidth`: stated, else derived from the appliances at build."""
        value: Q | None = getattr(self, name)
        if value is None:
            raise ValueError(f"storage.{name} read before the build derived it from `appliance`")
        return value

    @property
    def at_stated(self) -> bool:
        """Whether checkpoints are written or restored at the stated bandwidth: an efficiency is left out."""
        return self.write_efficiency is None or self.read_efficiency is None

    @property
    def checkpoint_bandwidth(self) -> tuple[float, float]:
        """(write, read) a checkpoint reaches (B/s): the stated bandwidths times their efficiencies, where given."""
        return (self.figure("write_bandwidth").m_as("B/s") * (self.write_efficiency or 1.0),
                self.figure("read_bandwidth").m_as("B/s") * (self.read_efficiency or 1.0))


#: The storage figures `Storage.appliance` derives where left out (`build.clusters`), and REL014 holds where stated.
FIGURES = ("capacity", "write_bandwidth", "read_bandwidth")


#: Where a checkpoint is written at the stated storage bandwidth: what is measured elsewhere (a note beside goodput).
AT_STATED_BANDWIDTH = (
    "checkpoint write and restore times use the stated storage bandwidth (`storage:` gives no `write_efficiency` or "
    "`read_efficiency`), so they are lower bounds and goodput an upper bound; one production measurement, an "
    "NFS-backed 504-GPU B200 cluster, saved at 16.0 % of its 250 GB/s peak write and restored at 21.5 % of its "
    "700 GB/s peak read (Lablup, arXiv 2605.09370v5, abstract)")
