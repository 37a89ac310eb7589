"""One module per CLI command, on top of the library: each takes the parsed arguments and returns what to print.

A command returns its text and exit code (`check`, `diff`, `gap`, `estimate`, `sweep`, ...) or raises an
`ArchgenError`; `archgen.cli` parses the arguments, prints the text (or writes it to `--output`) and exits. The
stages below (`pipeline`, `render`, `output`) never print.
"""
