"""Elasticities: how much a metric moves per relative change of one hardware parameter.

elasticity = d ln(metric) / d ln(parameter), by a central difference of ±`STEP` around the design point with the
parallel layout held fixed. −1 for step time means "step time scales inversely with this parameter" (the
bottleneck); 0 means the parameter does not matter at this design point. HBM capacity only changes whether the
layout fits, so it has elasticity 0 unless the layout stops fitting (reported as `inf`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from archgen.perf.hw.hardware import PARAMETERS, Hardware

STEP = 0.05


def elasticities(hw: Hardware, metric: Callable[[Hardware], float], dtype: str,
                 parameters: tuple[str, ...] = tuple(PARAMETERS)) -> dict[str, float]:
    """Elasticity of `metric(hw)` to each parameter.

    Args:
        hw: The design point.
        metric: Function of the hardware returning a positive number (e.g. step time); returns `inf` or `nan`
            when the configuration stops being feasible.
        dtype: Data type whose peak the 'peak' parameter scales.
        parameters: Names from `hardware.PARAMETERS`.

    Returns:
        Parameter name to elasticity (rounded to 3 decimals).
    """
    out = {}
    for name in parameters:
        up = metric(hw.scaled(name, 1.0 + STEP, dtype))
        down = metric(hw.scaled(name, 1.0 - STEP, dtype))
        if not (math.isfinite(up) and math.isfinite(down)) or up <= 0 or down <= 0:
            out[name] = math.inf
            continue
        e = (math.log(up) - math.log(down)) / (math.log(1.0 + STEP) - math.log(1.0 - STEP))
        out[name] = round(e, 3) + 0.0
    return out
