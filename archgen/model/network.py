"""Network parts: `Switch`, `NIC` and `Link` (a cable or transceiver type)."""

import re
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from archgen.model.base import Cooling, Electrical, Mechanical, Part
from archgen.model.spec import FieldError, Id, Spec, raise_each
from archgen.model.technology import SwitchTechnology
from archgen.units import Bandwidth, DurationOrZero, Length, LengthOrZero, PowerOrZero, Q

#: Cages a port or module may name. OSFP comes with two tops that do not interchange: IHS (integrated, finned heat
#: sink on the module: air-cooled switch cages) and RHS (riding heat sink on the cage: flat-top modules, ConnectX
#: NICs and liquid-cooled switches). NVIDIA LinkX 100G-PAM4 guide ("twin-port finned top OSFP" in Quantum-2 and
#: Spectrum-4 switches, "single-port flat top OSFP or QSFP112" in ConnectX-7 and BlueField-3),
#: https://docs.nvidia.com/networking/display/400g100gpam4ovpub; ConnectX-7 user manual ("OSFP form factor only
#: support RHS (Riding Heat Sink) cage"), https://docs.nvidia.com/networking/display/ConnectX7VPI/Introduction.
CAGES = ("OSFP", "OSFP-IHS", "OSFP-RHS", "OSFP-XD", "QSFP-DD", "QSFP112", "QSFP56", "QSFP28", "QSFP+", "SFP56",
         "SFP28", "SFP+", "SFP", "RJ45", "backplane")
Cage = Literal["OSFP", "OSFP-IHS", "OSFP-RHS", "OSFP-XD", "QSFP-DD", "QSFP112", "QSFP56", "QSFP28", "QSFP+", "SFP56",
               "SFP28", "SFP+", "SFP", "RJ45", "backplane"]

_OSFP = ("OSFP", "OSFP-IHS", "OSFP-RHS")
_QSFP = ("QSFP112", "QSFP56", "QSFP28", "QSFP+")
_SFP = ("SFP56", "SFP28", "SFP+", "SFP")


def cage_fits(module: str, port: str) -> bool:
    """Whether a module (or cable end) made for cage `module` plugs into a port cage `port`.

    OSFP IHS (finned top) and RHS (flat top) do not interchange; a plain 'OSFP' on either side leaves the top
    open. QSFP28/56/112 share one mechanical cage (SFF-8661/8662) and fit QSFP-DD cages, which are backward
    compatible (QSFP-DD MSA); a QSFP-DD module fits only a QSFP-DD cage; the SFP generations share theirs. OSFP and
    QSFP never mix (different widths). Whether the lanes then run at the same rate is CAB002's question.
    """
    if module == port:
        return True
    if module in _OSFP and port in _OSFP:
        return "OSFP" in (module, port)
    if module in _QSFP:
        return port in _QSFP or port == "QSFP-DD"
    return module in _SFP and port in _SFP


_BREAKOUT = re.compile(r"^\s*([1-9][0-9]?)\s*x\s*([0-9]+(?:\.[0-9]+)?)\s*G\s*$", re.IGNORECASE)


def nic_split_of(fabric: object) -> int:
    """Fabric ports each NIC port gives under a fabric's `nic_breakout` ('2x400G': 2; unset: 1)."""
    text = getattr(fabric, "nic_breakout", None)
    return parse_breakout(text)[0] if text else 1


def parse_breakout(text: str) -> tuple[int, float]:
    """'2x400G' -> (2, 400.0): logical ports and Gb/s each. Raises ValueError with what was expected."""
    m = _BREAKOUT.match(text)
    if not m:
        raise ValueError(f"a breakout such as '2x400G' (ports x Gb/s), got {text!r}")
    return int(m[1]), float(m[2])


class Ports(Spec):
    """A group of identical ports: count, native rate, cage, lanes and the breakouts it allows."""

    name: Id = Field("ports", description="Name of the group, used by a fabric tier's `down`/`up` (e.g. 'osfp').")
    count: int = Field(gt=0, le=100_000, description="Number of ports (logical ports at `speed`).")
    speed: Bandwidth = Field(description="Line rate per port, e.g. '400 Gb/s'.")
    cage: str = Field("", description="Physical cage, e.g. 'OSFP' (32 cages of 2 x 400G); one of " +
                      ", ".join(CAGES) + " is checked against the link modules (CAB005), other text is not.")
    per_cage: int = Field(1, gt=0, le=16, description="Logical ports per physical cage (2 for a twin-port OSFP).")
    lanes: int | None = Field(None, gt=0, le=16, description=(
        "Electrical lanes per port at `speed`, e.g. 4 for NDR 400G (4 x 100G-PAM4) or XDR 800G (4 x 200G-PAM4); "
        "the lane rate that link modules must match (CAB002). Unset: not checked."))
    breakouts: list[str] = Field(default_factory=list, description=(
        "Ways one port may be split, e.g. ['1x800G', '2x400G', '4x200G', '8x100G'] (each n x rate = `speed`). "
        "Empty: any whole split of `speed` is accepted, as before port groups."))

    @field_validator("breakouts")
    @classmethod
    def _breakouts(cls, v: list[str]) -> list[str]:
        for text in v:
            try:
                parse_breakout(text)
            except ValueError as e:
                raise PydanticCustomError("breakout", str(e)) from None
        return v

    @model_validator(mode="after")
    def _breakouts_fill_port(self) -> Self:
        native = float(self.speed.m_as("Gbit/s"))
        errors = []
        for i, text in enumerate(self.breakouts):
            n, rate = parse_breakout(text)
            if abs(n * rate - native) > 1e-6:
                errors.append(FieldError(("breakouts", i), f"breakout {text} is {n * rate:g}G, not the port's "
                                         f"{native:g}G: give n x rate = {native:g}G (e.g. 2x{native / 2:g}G)"))
        raise_each(errors, type(self).__name__)
        return self

    def lane_rate(self) -> Q | None:
        """Rate of one electrical lane, where `lanes` is given."""
        return (self.speed / self.lanes).to("Gbit/s") if self.lanes else None

    def allows(self, n: int) -> bool:
        """Whether a port may be split into `n` logical ports (any whole split when `breakouts` is empty)."""
        return not self.breakouts or any(parse_breakout(b)[0] == n for b in self.breakouts)


class Switch(Part):
    """A network switch (box or tray)."""

    kind: Literal["Switch"] = "Switch"
    technology: SwitchTechnology = Field(description=(
        "Fabric technology (`model.technology.TECHNOLOGIES`, the list a cluster's `scale_up.technology` reads too): "
        "infiniband, ethernet, nvlink, ualink, or 'optical-circuit' for an optical circuit switch, whose mirrors "
        "steer light at any line rate: every port of it serves a fabric, whatever `ports.speed` says."))
    asic: str = Field("", description="Switch ASIC, e.g. 'Quantum-2'.")
    ports: Ports = Field(description="Ports at their native speed: the group fabrics use unless a tier names another.")
    port_groups: list[Ports] = Field(default_factory=list, description=(
        "Further port groups beside `ports`, e.g. an SN2201's 4 x 100G QSFP28 uplinks beside its 48 x 1G RJ45; "
        "each has its own `name`, count, speed, cage, lanes and breakouts."))
    switching_capacity: Bandwidth | None = Field(None, description=(
        "Switching capacity in one direction, at most the sum of the ports' line rates (64 x 800G = 51.2 Tb/s, as "
        "Ethernet datasheets give it); a figure published for both directions ('aggregate bidirectional', as "
        "InfiniBand switches are marketed) is halved here. More than the ports carry is CAT006."))
    latency: DurationOrZero | None = Field(None, description=(
        "Port-to-port latency. Read for a scale-up domain over several racks (`scale_up.racks`): the second switch "
        "hop between racks adds it to the steps that cross racks (`perf.workload.racks_note.second_hop`); left out, "
        "nothing is added and the estimate says so."))
    in_network_reduction: bool = Field(
        False, description="The switch reduces in the network: SHARP on InfiniBand (Quantum-2, Quantum-X800), NVLink "
                           "SHARP on NVLink switches. A compute fabric whose every tier has it may run `sharp` "
                           "(NCCL CollNet) and NVLS+SHARP collectives; cite it in `source:`.")
    mechanical: Mechanical = Field(description="Height, weight and depth.")
    power: Electrical = Field(description="Maximum draw, without optics unless stated.")
    power_includes_optics: bool = Field(False, description=(
        "Whether `power.max` includes the optical modules in the switch's own ports: false (default) for a "
        "datasheet's figure with passive cables, so the cabling's modules at its ports are added to its rack's "
        "budgets and the cluster's IT power; true where the figure holds them (a PSU rating the source says covers "
        "the ports' modules, as the SN5000 manual's 18 W per port with its 3 kW PSU), and then they are counted "
        "once, inside it. A stated `typical` is taken with passive cables (modules added to the cluster's typical "
        "IT power); active copper ends are always added (docs/clusters.md, Power)."))
    cooling: Cooling = Field(default_factory=Cooling, description="Air or liquid.")
    management_ports: int = Field(1, ge=0, le=16, description=(
        "Out-of-band management ports (RJ45) a management fabric with `endpoints.switches` cables to its leaves: "
        "1 unless the source states more (a GB200 NVLink switch tray: BMC, ComE1, ComE2)."))

    @model_validator(mode="after")
    def _unique_groups(self) -> Self:
        seen, errors = {self.ports.name}, []
        for i, g in enumerate(self.port_groups):
            if g.name in seen:
                errors.append(FieldError(("port_groups", i, "name"), f"port group '{g.name}' is named twice: give "
                                         "each group its own name (the main `ports` group is called "
                                         f"'{self.ports.name}')"))
            seen.add(g.name)
        raise_each(errors, type(self).__name__)
        return self

    @property
    def groups(self) -> tuple[Ports, ...]:
        """Every port group, the main `ports` first."""
        return (self.ports, *self.port_groups)

    def group(self, name: str | None) -> Ports | None:
        """The port group called `name` (None: the main `ports`)."""
        if name is None:
            return self.ports
        return next((g for g in self.groups if g.name == name), None)


class NetTransport(Spec):
    """The NCCL network transport (built-in or net plugin) that drives an adapter, as its code declares itself."""

    plugin: str = Field(description="The transport, e.g. 'aws-ofi-nccl' (NCCL's net plugin for EFA).")
    latency: DurationOrZero | None = Field(None, description=(
        "Per-message latency the transport declares in its properties (`ncclNetProperties_t.latency`), which NCCL "
        "adds to every step that crosses the network (`latencyInter` in its tuning model), e.g. '35 us' for "
        "aws-ofi-nccl on P5en/P6 platforms. NCCL's own InfiniBand/RoCE transport declares 0; cite the code in "
        "the part's `source:`. Leave it out where the code leaves the figure unset (ROCm/amd-anp writes 0 with the "
        "comment 'Not set'): the network's latency is then not provided, none is added, and the estimate says so."))


class NIC(Part):
    """A network adapter or DPU."""

    kind: Literal["NIC"] = "NIC"
    technology: Literal["infiniband", "ethernet", "vpi"] = Field(description="Protocols supported.")
    ports: Ports = Field(description="Network ports.")
    host_interface: str = Field("", description=(
        "e.g. 'PCIe Gen5 x16'. 'PCIe GenN xW' (Gen3 to Gen6) bounds what the card carries to storage "
        "(docs/reliability.md); other text is descriptive."))
    power: PowerOrZero = Field(description="Maximum power, e.g. '25 W'.")
    management_ports: int | None = Field(None, ge=0, le=4, description=(
        "Out-of-band management ports of the card itself, as its documentation states them (a BlueField-3 DPU's "
        "1GbE RJ45, bridged to its BMC and Arm cores); counted on no fabric, whether a system brings the port out "
        "being unstated: the control-plane section gives how many the placed systems' cards state. Not stated: none "
        "said."))
    transport: NetTransport | None = Field(None, description=(
        "The NCCL network transport that drives this adapter and the latency it declares. Read where the NIC "
        "attaches a cluster's compute fabric (the performance model's network latency per step); unset: NCCL's "
        "own InfiniBand/RoCE transport, which declares 0."))
    breakout_accelerators: dict[str, list[Id]] = Field(default_factory=dict, description=(
        "Breakouts of `ports.breakouts` that the part's source allows only beside some accelerators, e.g. "
        "{4x200G: [b300-sxm-288gb]} (NVIDIA: Quad-Plane is B300 only): a fabric's `nic_breakout` on a node whose "
        "accelerator is not listed is refused (NET016). A breakout not named here is allowed beside any."))
    breakout_technologies: dict[str, list[Literal["infiniband", "ethernet"]]] = Field(
        default_factory=dict, description=(
            "Breakouts of `ports.breakouts` that the part's source gives only on some fabric technologies, e.g. "
            "{2x400G: [ethernet]} (ConnectX-8's firmware notes: '800Gb/s or XDR IB or 2 x 400GbE'): a fabric's "
            "`nic_breakout` whose leaf switches are of another technology is refused (NET016). A breakout not named "
            "here is allowed on any."))

    @model_validator(mode="after")
    def _limited_breakouts_listed(self) -> Self:
        listed = {parse_breakout(b) for b in self.ports.breakouts}
        raise_each([FieldError((key, text), f"{text} is not one of ports.breakouts "
                               f"({', '.join(self.ports.breakouts) or 'none'}): name a breakout the part lists")
                    for key in ("breakout_accelerators", "breakout_technologies")
                    for text in getattr(self, key) if _parsed(text) not in listed], type(self).__name__)
        return self


def _parsed(text: str) -> tuple[int, float] | None:
    """`parse_breakout(text)`, None where it does not read as one."""
    try:
        return parse_breakout(text)
    except ValueError:
        return None


class RatePower(Spec):
    """What a module end draws when it runs below its rate, with fewer lanes lit."""

    rate: Bandwidth = Field(description="The rate it runs at, e.g. '200 Gb/s' (a 400G SR4 on a 1:2 splitter fibre).")
    power: PowerOrZero = Field(description="Its maximum power per end at that rate, from its datasheet.")


class FibreGrade(Spec):
    """A fibre grade an optical part's links run on, and the longest cable it carries them over."""

    grade: str = Field(description="Fibre grade as ISO/IEC 11801 names it: 'OM3', 'OM4', 'OM5' (multimode), 'OS2' "
                                   "(single-mode).")
    reach: Length = Field(description="Longest cable on that grade, e.g. '30 m' (NVIDIA: OM3 up to 30 m).")


#: Media sold as cable assemblies with their ends built in (ordered per cable, not per end).
COPPER_MEDIA = ("dac", "acc", "aec", "copper-backplane", "twisted-pair")


class Link(Part):
    """A cable or transceiver type: media, reach and power per end."""

    kind: Literal["Link"] = "Link"
    media: Literal["dac", "acc", "aec", "multimode", "singlemode", "copper-backplane", "twisted-pair"] = Field(
        description="dac (passive copper), acc/aec (active copper), multimode or singlemode fibre, "
                    "twisted-pair (RJ45).")
    rate: Bandwidth = Field(description="Line rate, e.g. '800 Gb/s'.")
    reach: Length = Field(description="Maximum supported length, e.g. '3 m'.")
    min_length: LengthOrZero | None = Field(None, description="Shortest length sold, when relevant.")
    max_length: Length | None = Field(None, description=(
        "Longest length sold, where the part's source lists its lengths and they stop short of `reach` (NVIDIA's "
        "MCP4Y10 twin-port DAC: '0.5-2 m lengths', while the LinkX overview gives DACs to 3 m). A run longer than "
        "it takes the tier's next link option, or is a CAB001 finding naming the run, its length and what is sold. "
        "Empty: every length up to `reach` is taken as sold."))
    power_per_end: PowerOrZero = Field(description="Power per end (transceiver or active cable end); 0 W for DAC.")
    latency_per_end: DurationOrZero | None = Field(None, description=(
        "Latency one end's module or active cable adds to a link beyond the run's flight time (its DSP or retimer), "
        "where the part's source states it, e.g. '0 ns' for a passive DAC. Read for a scale-up domain's `trunk_link`: "
        "the second switch hop between racks takes it at both ends (`perf.workload.cluster`). Left out on an optical "
        "or active part: not provided, none is added and the estimate says so."))
    power_at: list[RatePower] = Field(default_factory=list, description=(
        "Power per end of an optical module run below its rate, where its datasheet states it: a single-port 400G "
        "module on a 200G port lights 2 of its 4 lanes, `[{rate: 200 Gb/s, power: 5 W}]` (MMS4X00-NS400). A "
        "module serving fewer links than its rate holds (links x line rate below `rate`) draws the figure of that "
        "rate; a rate not listed draws `power_per_end`."))
    power_range: tuple[PowerOrZero, PowerOrZero] | None = Field(None, description=(
        "Where `power_per_end` is unconfirmed because its sources disagree: the low and high power per end it may "
        "lie between, with their sources in `source:` or `notes:`, e.g. [15 W, 17 W] (NVIDIA's twin-port SR8 "
        "pages); `power_per_end` lies within it, and PWR012 states the figure the IT power uses and the range."))
    lanes: int = Field(gt=0, le=64, description="Electrical lanes, e.g. 8 for 8 x 100G.")
    form_factor: str = Field("", description="e.g. 'OSFP', 'QSFP112'.")
    connector: str = Field("", description=(
        "Fibre connector of an optical link, e.g. 'MPO-12/APC', 'duplex LC': the patch cord each link takes."))
    polarity: str = Field("", description=(
        "Polarity of the fibre patch cord the link takes, as TIA-568 names it, where the part's vendor states it: "
        "'Type-B' for an MPO patch cord, 'A-B' for a duplex LC one (NVIDIA's structured cabling requirements). "
        "Empty: not stated, and the BOM's patch cord line says so."))
    fibre: list[FibreGrade] = Field(default_factory=list, description=(
        "Fibre grades the part's links run on, shortest reach first, where its vendor states them: a cable takes the "
        "first whose reach covers its ordered length, and the BOM's cord line and the port map name it. NVIDIA's "
        "400/800G multimode optics: `[{grade: OM3, reach: 30 m}, {grade: OM4, reach: 50 m}]`; its single-mode ones "
        "`[{grade: OS2, reach: 500 m}]` (structured cabling requirements). Empty: not stated, and the cord line says "
        "'fibre grade not stated'."))
    fibres: int | None = Field(None, ge=1, le=32, description=(
        "Fibres lit in one connector's cord, where the part's vendor states them: 8 for an MPO-12 SR4/DR4 port "
        "(NVIDIA's structured cabling requirements: \"8 fibers (12 allowed)\"), 2 for a duplex LC. The BOM's cord "
        "line and the port map carry it, and the wiring section sums the strands leaving each rack. Empty: not "
        "stated, and the cord line says 'fibre count not stated'."))
    cages: list[Cage] = Field(default_factory=list, description=(
        "Port cages this module or cable end plugs into, e.g. ['OSFP-IHS'] for a finned-top twin-port OSFP, "
        "['OSFP-RHS', 'QSFP112'] for a flat-top part; checked against the ports at both ends of a link (CAB005). "
        "Empty: not checked."))
    standard: str = Field("", description="e.g. '800GBASE-DR8', '2xSR4'.")
    links_per_cable: int = Field(1, ge=1, le=8, description=(
        "Logical links one cable of this part carries to different far ports: 2 for an 800G cable split 2 x 400G "
        "across two planes or two spines (one cable to the installer and in NVIDIA's tables, counted once with "
        "its ends); 1 (default) for a cable per link, as a twin-port module with a connector per port."))
    connectors: int | None = Field(None, ge=1, le=16, description=(
        "Fibre connectors on one module end, each taking its own cable: 1 on a single-port DR4 (one MPO-12/APC), "
        "2 on a twin-port 2 x DR4. Where a module serves more links than it has connectors (an 800G NIC port split "
        "2 x 400G over two planes), a connector's links leave on one cable split at its far end, counted once "
        "(NVIDIA's DGX SuperPOD B300 tables: one node-leaf cable per 800G port). Empty: not stated, one cable per "
        "link (or the part's `links_per_cable`)."))
    optical_ports: int | None = Field(None, ge=1, le=16, description=(
        "Optical ports of one module end whose lanes share one fibre pair by wavelength (CWDM4: FR4, LR4), each "
        "reaching one far end: such a module serves at most this many links, however often the line rate divides "
        "its rate (a twin-port 2 x FR4, two duplex LC: 2, so no 4 x 200G breakout; NVIDIA: no splitters with "
        "CWDM4). Empty: parallel fibre (DR, SR) whose lanes split, rate / line rate links."))
    wavelengths: Literal["", "850 nm", "1310 nm", "CWDM4"] = Field("", description=(
        "Wavelength plan of an optical module: '850 nm' (SR, VR), '1310 nm' (DR: parallel single-mode) or 'CWDM4' "
        "(FR4, LR4: four wavelengths on one fibre pair). Two ends of one link must share it (CAB002, "
        "`checks.link_interfaces`). Empty: not stated, and a pair of two modules is not judged (an info finding)."))

    @property
    def longest(self) -> Q:
        """The longest run the part serves: its `reach`, or the longest length sold where that is shorter."""
        return self.reach if self.max_length is None else min(self.reach, self.max_length)

    @property
    def sold_text(self) -> str:
        """'sold 0.5-2 m' where `max_length` limits the part below its reach; empty otherwise."""
        if self.max_length is None or self.max_length >= self.reach:
            return ""
        low = f"{self.min_length.m_as('m'):g}-" if self.min_length is not None else "up to "
        return f"sold {low}{self.max_length.m_as('m'):g} m"

    @model_validator(mode="after")
    def _power_at_below_rate(self) -> Self:
        errors = [FieldError(("power_at", i, "rate"), f"{at.rate:~P} is not below the part's rate, {self.rate:~P}: "
                             "`power_at` gives the draw of a module run slower (fewer lanes lit)")
                  for i, at in enumerate(self.power_at) if at.rate >= self.rate]
        raise_each(errors, type(self).__name__)
        return self

    @model_validator(mode="after")
    def _grades_in_order(self) -> Self:
        """Fibre grades shortest reach first (the first that covers a cable is taken), on fibre media only."""
        if (self.fibre or self.fibres or self.wavelengths) and self.media in COPPER_MEDIA:
            field = "fibre" if self.fibre else "fibres" if self.fibres else "wavelengths"
            raise FieldError((field,), f"a {self.media} part has no fibre; expected fibre grades and counts on "
                                       "multimode or singlemode parts only")
        for i in range(1, len(self.fibre)):
            if self.fibre[i].reach <= self.fibre[i - 1].reach:
                raise FieldError(("fibre", i, "reach"), f"{self.fibre[i].reach:~P} is not above the grade before it "
                                 f"({self.fibre[i - 1].grade}, {self.fibre[i - 1].reach:~P}); expected the grades "
                                 "shortest reach first, as a cable takes the first that covers its length")
        return self

    @model_validator(mode="after")
    def _some_length_sold(self) -> Self:
        """A longest length sold below the shortest leaves no length sold: a located error, not a part no run takes."""
        if self.max_length is not None and self.min_length is not None and self.max_length < self.min_length:
            raise FieldError(("max_length",), f"max_length {self.max_length:~P} is below min_length "
                                              f"{self.min_length:~P}: no length would be sold; expected the longest "
                                              "length the part's source lists, at or above its shortest")
        return self

    @model_validator(mode="after")
    def _range_holds_power(self) -> Self:
        if self.power_range is not None:
            low, high = self.power_range
            if not low <= self.power_per_end <= high:
                raise FieldError(("power_range",), f"expected a low and a high power per end around power_per_end "
                                                   f"{self.power_per_end:~P}, got [{low:~P}, {high:~P}]")
        return self

    @property
    def is_module(self) -> bool:
        """Whether each end of this part is an optical module (a transceiver): fibre media that draws power.

        A copper assembly's ends are built into its cable (counted as cable assemblies), and a fibre end that draws
        nothing is a connector on a passive port, such as the OCS end of a TPU v4 chip-to-OCS fibre
        (`ocs-fibre-port`: the switch steers light mirror to mirror, so no module converts it). Transceiver counts,
        the BOM's wording, the failure classes and the growth series all ask this one question.
        """
        return self.media not in COPPER_MEDIA and self.power_per_end.magnitude > 0
