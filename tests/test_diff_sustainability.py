"""`archgen diff`'s "Power and cost" table lists a hall's carbon and water and a job's energy (nu48fix).

newuser48: the summary a pull request's reviewer reads first (`output.diff.POWER_AND_COST`) held the energy per year
but not the carbon and water per year it makes (`analyse.sustainability`), nor a job's energy (`analyse.job_energy`):
a change that moved them showed them only among the other metrics. The values below are test inputs.
"""

from __future__ import annotations

from archgen.compare.diff import Diff, MetricChange
from archgen.output.diff import markdown, power_and_cost
from archgen.units import Q_

CLUSTER, JOB = "cluster/c", "workload/w"


def _diff(*changes: MetricChange) -> Diff:
    return Diff("base", "head", changes, (), (), (), (), (), 0)


def test_carbon_water_and_job_energy_are_in_the_power_and_cost_table():
    changes = (MetricChange(CLUSTER, "carbon_per_year", Q_(1.0e8, "kg"), Q_(1.2e8, "kg")),
               MetricChange(CLUSTER, "water_per_year", Q_(5.0e4, "m**3"), Q_(6.0e4, "m**3")),
               MetricChange(CLUSTER, "facility_energy_per_year", Q_(3.0e14, "J"), Q_(3.6e14, "J")),
               MetricChange(JOB, "job_energy", Q_(7.0e13, "J"), Q_(8.0e13, "J")),
               MetricChange(JOB, "facility_energy_per_million_tokens", Q_(4.0e6, "J"), Q_(4.5e6, "J")))
    d = _diff(*changes)
    assert [(c.object, c.metric) for c in power_and_cost(d)] == [
        (CLUSTER, "facility_energy_per_year"), (CLUSTER, "carbon_per_year"), (CLUSTER, "water_per_year"),
        (JOB, "facility_energy_per_million_tokens"), (JOB, "job_energy")]
    text = markdown(d)
    table = text.split("### Power and cost", 1)[1].split("###", 1)[0]
    assert "| `cluster/c` | carbon\\_per\\_year | 100,000 t | 120,000 t |" in table
    assert "| `cluster/c` | water\\_per\\_year | 50,000 m³ | 60,000 m³ |" in table
    assert "| `workload/w` | job\\_energy |" in table


def test_a_figure_one_side_lacks_is_not_in_the_table():
    d = _diff(MetricChange(CLUSTER, "carbon_per_year", None, Q_(1.2e8, "kg"),
                           "facility 'hall-liquid' states no `sustainability.carbon_intensity`"))
    assert power_and_cost(d) == []
    assert "### Power and cost" not in markdown(d)
