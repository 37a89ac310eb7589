"""What PWR022 and PWR011 say a hall's units were not judged on, in the team's and the customer's words.

The load's swing (`SWING_UNJUDGED`, `SWING_WORDS`) and a utility connection other halls share (`CAMPUS_UNJUDGED`,
`CAMPUS_WORDS`); split from `checks/hall_figures.py` for its size, which reads them (`steady_only`), as does the
cluster document's utility row (`render/datacentre.py`).
"""

from __future__ import annotations

#: Why a pass of PWR011 is not a pass against the load's swing. Synchronous training moves every GPU between a
#: compute-heavy and a communication-heavy phase each step ("Power Stabilization for AI Training Datacenters",
#: Choukse et al., Microsoft, OpenAI and NVIDIA, arXiv:2508.14318, abstract: "large power swings occur", their
#: frequency spectrum a risk to the grid); NERC's Large Loads Task Force ("Characteristics and Risks of Emerging
#: Large Loads", July 2025, as quoted by APPA, https://www.publicpower.org/periodical/article/nercs-large-loads-task-
#: force-releases-first-white-paper): "peak demand is only one of many characteristics that can impact BPS
#: reliability". NVIDIA's GB300 NVL72 answers with energy-storage PSUs, a power floor and ramp limits
#: (https://developer.nvidia.com/blog/how-new-gb300-nvl72-features-provide-steady-power-for-ai/). No spec states a
#: part's draw per phase or its ramp rate; a hall's `feeds.power_smoothing` bounds the swing only against a limit the
#: hall states (`hall_swing`), so without one the swing is not provided (docs/facility.md).
SWING_UNJUDGED = ("the load's swing is not judged (not provided): a synchronous training step moves every GPU "
                  "between its compute and communication phases (arXiv:2508.14318), and checkpoint stalls and a "
                  "job's start and stop move the whole load, which the generator sets must accept as load steps and "
                  "the utility feeds as ramps; no spec states a part's draw per phase or its ramp rate, nor the draw "
                  "the load falls to (a part's `power.idle` is its draw with no job running), and the hall states no "
                  "limit to hold a power smoothing to (`feeds.load_step_limit`, `feeds.ramp_rate_limit`), so the "
                  "swing may be as deep as the load itself (docs/facility.md, Not modelled)")
#: The same in the customer's words (`Violation.public`).
SWING_WORDS = ("the load's swing is not judged (not provided): a synchronous training step moves every GPU between its "
               "compute and communication phases (arXiv:2508.14318), and checkpoint stalls and a job's start and stop "
               "move the whole load, which the generator sets must accept as load steps and the utility feeds as "
               "ramps; the design states no part's draw per phase or its ramp rate, nor the draw the load falls to, "
               "and no load step or ramp rate limit for the hall to hold a power smoothing to, so the swing may be as "
               "deep as the load itself")


#: Why a pass of PWR011's utility feeds is this hall's alone. A hall's `utility_units` are its own feeds; where it
#: names no connection several halls share (`feeds.shared_utility`: a campus substation, the site's interconnection)
#: the halls' loads are not summed against one, and a campus whose halls each fit can still exceed it.
CAMPUS_UNJUDGED = ("the utility feeds carry this hall's clusters alone: a utility connection other halls share (a "
                   "campus substation or grid interconnection) is not judged, since the hall names none "
                   "(`feeds.shared_utility`), so the halls' loads are not summed against it (docs/facility.md)")
#: The same in the customer's words.
CAMPUS_WORDS = ("the utility feeds carry this hall's clusters alone: a utility connection other halls share (a campus "
                "substation or grid interconnection) is not judged, since the design names none for the hall, so the "
                "halls' loads are not summed against it")
