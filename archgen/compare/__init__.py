"""Runs of the pipeline compared: two runs (`diff`: what changed) or one run against our requirements (`gap`).

Pure functions of `pipeline.Run`s returning frozen results; `archgen.output` renders them, `archgen.commands` runs
the pipeline for them.
"""
