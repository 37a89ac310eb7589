"""archgen: specs as code for AI racks and clusters."""

__version__ = "0.1.0"
#: The day this version's code and shipped catalog are dated: no earlier than any date the catalog states
#: (tests/analyse/test_future_prices.py, on any day), no later than the day a release sets it with `__version__`
#: (`make release-check`, which reads the clock; no test does); COST006's message names it, so moving it needs
#: `make golden`. COST006 takes a price dated after
#: it, where the cost states no date of its own (`cost.as_of`), as a date likely written wrongly: a date the code
#: holds, never the clock's, so one version's output is the same any day.
CODE_DATE = "2026-12-07"
