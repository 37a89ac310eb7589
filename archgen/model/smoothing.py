"""A hall's power smoothing (`feeds.power_smoothing`) and the ramp rate its supply accepts (`feeds.ramp_rate_limit`).

Synchronous training swings every GPU between a step's compute and communication phases (Choukse et al., "Power
Stabilization for AI Training Datacenters", Microsoft, OpenAI and NVIDIA, arXiv:2508.14318, 2025). NVIDIA's GB300
NVL72 holds the swing with a power floor, ramp-up and ramp-down rate limits and energy storage in its power shelves
("How New GB300 NVL72 Features Provide Steady Power for AI", NVIDIA Technical Blog, 2025,
https://developer.nvidia.com/blog/how-new-gb300-nvl72-features-provide-steady-power-for-ai/); NVML sets them per GPU
(Power Smoothing: a floor in percent of the module's power, ramp-up and ramp-down rates in W/s; NVML API Reference,
https://docs.nvidia.com/deploy/nvml-api/group__nvmlPowerSmoothing.html). None has a published default for a site:
the hall states what its design sets, for its whole IT load, and PWR022 judges the swing with it.

A part may state its own (`power.smoothing`, `PartSmoothing`, nu81fix): the blog's PSUs "with energy storage" sit in
the rack's power shelves, and NVML's floor and ramps are the GPU's, so a compute tray (a `System`) or a switch
carries them, not the hall. A power shelf (`PowerShelf`) has no `power` key and states none: what its stored energy
holds has no key (review44: nu81fix's docs said a shelf states it, and a shelf stating it is refused). The blog
publishes no floor, ramp rate or stored energy for a shipped configuration (it gives only "reduce peak grid demand by
up to 30%"), so no catalog part states one: the part states what its smoothing profile sets, with its `source`.
"""

from typing import Annotated

from pydantic import Field

from archgen.model.field_types import PositiveFraction
from archgen.model.spec import Spec
from archgen.units import Dim, Q

#: A rate at which a power changes, e.g. '2 MW/s' or a utility's '10 MW/min'.
PowerRate = Annotated[Q, Dim("kW/s", gt=0, le=1e9, label="a power ramp rate", example="2 MW/s", real_power=True)]


class PowerSmoothing(Spec):
    """How the hall's IT load is held steady: its floor while a job runs and the rates it may ramp at."""

    floor: PositiveFraction | None = Field(None, description=(
        "The share of the IT power at maximum draw the load is held at or above while a job runs, e.g. 0.9 (the "
        "GPUs' power-smoothing floor where the rest of the load is steady, or what site energy storage holds): the "
        "swing of a training step is at most the IT power x (1 - floor), PWR022. Not stated: the swing's depth is "
        "not provided (it may reach the whole load)."))
    ramp_up: PowerRate | None = Field(None, description=(
        "The fastest the whole load rises, e.g. '2 MW/s' (the GPUs' ramp-up rate x their count, or the site "
        "storage's): a job's start is a ramp at it, not a step."))
    ramp_down: PowerRate | None = Field(None, description=(
        "The fastest the whole load falls, e.g. '2 MW/s' (the GPUs' ramp-down rate x their count, or the site "
        "storage's): a job's stop or crash is a ramp at it, not a step."))
    source: str = Field("", description="Where the settings come from (the smoothing profile, the BESS design).")


class PartSmoothing(Spec):
    """How a part holds its own draw steady while a job runs (`power.smoothing`): its floor and ramp rates."""

    floor: PositiveFraction | None = Field(None, description=(
        "The share of the part's maximum draw (`power.max`) it is held at or above while a job runs, e.g. 0.8: a "
        "compute tray's NVML power-smoothing floor as a share of the tray's draw (NVML states it as a percent of the "
        "GPU module's power: a tray whose CPUs, NICs and fans are not floored holds less); a power shelf's energy "
        "storage has no key (a `PowerShelf` states no `power`). A job's swing is then at most the part's "
        "(1 - floor) x its draw (`job_power_swing`, PWR022 where the hall states no floor of its own)."))
    ramp_up: PowerRate | None = Field(None, description=(
        "The fastest the part's draw rises, e.g. '5 kW/s' (its GPUs' NVML ramp-up rate x their count): the "
        "cluster's load rises at most at the sum over its parts."))
    ramp_down: PowerRate | None = Field(None, description=(
        "The fastest the part's draw falls, e.g. '5 kW/s' (its GPUs' NVML ramp-down rate x their count)."))
    source: str = Field("", description="Where the settings come from (the smoothing profile, the part's datasheet).")
