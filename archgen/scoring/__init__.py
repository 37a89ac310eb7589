"""The performance model scored against published runs: validation cases, ranges, collective curves, the catalog.

Validation cases are read, predicted and scored (`cases`, `scores`), a case's range over what it leaves unstated is
computed (`unstated`), published all-reduce curves are compared size by size (`curves`), all against the accelerator
catalog (`catalog`). Outside `archgen.perf`, which reads no file: this package reads them and calls the model.
"""
