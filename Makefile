# archgen — everything a new machine with Python 3.11+ and make needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test fuzz bench calculon golden docs lint clean browser

# pip upgraded first, then the packages installed without byte-compiling them (`--no-compile`): pip compiled all 5,213
# installed modules one by one on one core before any test could start, and the tests import about a third of them
# (2,408 compiled after a clean clone's `make test`, 664 of them pip's and setuptools'). `make test`
# (PYTHONDONTWRITEBYTECODE cleared) writes the bytecode of every module it imports, in its two workers and in the
# archgen commands it runs, so the commands of the demo find them compiled afterwards; before that, in an environment
# that sets PYTHONDONTWRITEBYTECODE, an `archgen check specs/` compiles its imports each time (testspeed12,
# ARCHGEN_CACHE=off, load 7.5: 2.24-2.32 CPU-s against 1.77-1.84 compiled). Measured by testspeed12, fresh clones
# installing from this machine's local wheels, load 6-10: the whole `make .venv/.installed` 13.3 CPU-s (user + sys)
# against 21.9 / 23.2 with pip compiling (pip's compile alone, timed as `compileall -f -j 1`: 10.6-11.6 CPU-s, all on
# one core; `-j 0` spread it over two processes for 14.3-15.0 CPU-s). In a clean clone's `.ci/run`, run beside one of
# the base commit at load 5-9: 470.0 against 486.1 CPU-s (0.97x; the tests' collection 28.7 against 24.9 CPU-s over
# both workers, compiling what they import), 1,166 against 1,201 s wall, the install's share about 75 against 160 s.
# Earlier (testfast era, against the venv's own pip 23.2 and the network, which moved runs by 15 s): 29.5 / 47.0 s
# compiled against 49.1 / 50.5 s with `--no-compile` and `compileall -j 0`.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e '.[pdf,office,distributed,test]'
	touch $(STAMP)

# Debian's Chromium for the HTML tests and poppler-utils for the PDF text tests (skipped with a clear reason where
# they cannot be installed); one `apt-get update` for both.
browser:
	@missing=""; command -v chromium >/dev/null 2>&1 || missing="chromium"; \
	command -v pdftotext >/dev/null 2>&1 || missing="$$missing poppler-utils"; \
	[ -z "$$missing" ] || { command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) || \
	  echo "note: $$missing not installed; the browser and PDF text tests that need them will be skipped"; }

demo: $(STAMP)
	$(VENV)/bin/archgen check specs/
	$(VENV)/bin/archgen render specs/ --out out --formats md,html,pdf,xlsx,csv,svg,png
	$(VENV)/bin/archgen sweep specs/sweeps/llama3-70b.yaml --out out --formats md,html,csv,svg

# two workers (issue 19 asks for under 3 minutes on 2 cores); `pytest -m "not slow"` for a quick loop. Measured at the
# end of testfast3 on 2 shared cores, Chromium and poppler installed: warm `make test` 98 s wall (load 7.0 -> 3.7),
# then against its base commit in two clones, rounds interleaved at load 2.1-2.5: 83 and 93 s wall, 151 and 171 CPU-s
# by `time` (base: 101 and 93 s, 168 and 171 CPU-s). A clean clone's .ci/run, venv install included: 4:07 at load
# 2.6 -> 4.0 (pytest 217 s); main's, run next at load 2.5, 1:59 (pytest 99 s): other work on the machine moves the
# wall clock more than any change here. At the session's end (all of 2026-12-04's merges, 1,803 tests): a clean
# clone's .ci/run 2:18 with the install (pytest 118 s, load 1.1 -> 2.0), warm `make test` 1:46 (load 1.1 -> 2.1);
# the project's CI had taken 182 s with pytest 150 s before these changes. Earlier, a clean clone was CPU-bound throughout: each worker spent 175-178
# CPU-s and both ended within a second of each other (per-test CPU logged);
# collection is 10 of it cold (`pytest --co`: 4.2 warm, 9.3 without the repo's bytecode and pytest's rewritten test
# modules, which both workers then make at once), and mypy 13.5 cold on one worker (0.5 warm).
# testspeed2 (2026-12-05, 2,530 tests, 8 engineers on the 2 cores): CPU-s per test, collection and worker by
# `ARCHGEN_CPU_PROFILE=DIR pytest -p tests.cpu_profile ...` (`python -m tests.cpu_profile DIR` sums them). This
# command, warm: 283.8 CPU-s at load 4.5-6.8 (fuzz 25.0, test_browser 22.0 of which 20.4 is `every_document`'s
# render of every target, shared by the render tests; Chromium itself is a dump-dom and 3 screenshots, ~0.5 CPU-s a
# start), then 311.0 at load 7.3-9.0 after sharing 7 repeated pipeline and diff runs and the fuzz's key-line parse:
# about 4 CPU-s (1.5 %) by the changes' own before/after runs, far less than what the load moves a whole run.
# Cold mypy: 9.0 CPU-s (8.2 without writing its cache), 1,074 modules, every third-party one a module archgen imports.
# testspeed5: this command with mypy and bytecode cold, load 6-9: 434.1 -> 393.9 CPU-s (workers 215.7 / 211.9 ->
# 194.6 / 193.2; pint's conversion and Quantity construction made directly in archgen/quantity_ops.py, three render
# test files moved beside every_document). Wall time at that load (15-17 min) says nothing about the bar.
# testspeed6: each test process computes an estimate or serving simulation once for the same arguments
# (tests/shared_results.py; 4,053 of 4,794 estimate calls had repeated an earlier one): this command with -n 0,
# load 7-9, 410.3 -> 322.5 CPU-s (the first run with cold mypy and bytecode: less those, about 0.8x).
# testspeed13 (4,672 tests, bytecode and mypy cold, no Chromium or poppler here, load 6-9): this command with -n 0
# 620.6 CPU-s (tests 592.0, collection 23.6; 32 min wall). Most of it is spread thin: the 4,010 tests under 0.1 CPU-s
# hold 56 of it, the fuzz 45, the session renders of every document 40, cold mypy 18, test_cache_off's 10 fresh
# processes 29. The customer edition's no-metric-key scans (test_edition, test_reference) ran 516 full-text regexes
# each; tried only where the key is in the text: 3.17 + 2.64 -> 0.08 + 0.08 CPU-s. The whole run again after it, cold
# as before, at load 7-11: 659.1 CPU-s (collection 26.6, mypy 19.8, fuzz 47.3): the load moved it by 6 %, ten times
# the change. Among the 40 costliest tests no repeated computation near the 12 % issue 19 needs was found.
# testspeed14 (4,834 tests, load 5-9): this command in a fresh worktree 767.9 CPU-s, 34:51 wall. Cold, both workers
# compiled every test module (and what it imports) themselves: worker k of N now imports its own N-th first
# (tests/collect_split.py): -n 2 collection with no __pycache__ 47.8 -> 32.4 CPU-s. Nothing here runs twice
# (.ci/run is `make test`; one pip install, one pytest pass, no compileall).
# worksteal: an idle worker takes half of the other's queue, so long tests (mypy, the fuzz shards) do not leave one
# worker running alone at the end. Bytecode is written (into the ignored __pycache__/) even where the environment
# sets PYTHONDONTWRITEBYTECODE, so the workers and the tests' child interpreters do not each recompile archgen and
# pytest does not rewrite every test module again in each worker.
test: $(STAMP) browser
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist worksteal

# The mutation fuzz of every shipped spec, example, check case and case file at 100,000 random examples (make test
# runs 2,000 fixed ones) under a 4 GiB address-space cap (RLIMIT_AS); a failure prints the shrunk input and a
# @reproduce_failure line. FUZZ_EXAMPLES=N to change the count. A round through every command and output format,
# each run in a capped child: $(PY) -m tests.fuzz_round 10000 (tests/fuzz_round.py).
FUZZ_EXAMPLES ?= 100000
FUZZ_MEMORY_KB ?= 4194304
fuzz: $(STAMP)
	ulimit -v $(FUZZ_MEMORY_KB) && ARCHGEN_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest tests/test_fuzz.py \
	  -p no:cacheprovider --hypothesis-show-statistics

bench: $(STAMP)
	@mkdir -p bench/results
	@for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# Calculon's command line and checkout, the other side of issue 25's CLI bar (bench/bench_calculon.py,
# bench/bench_cli.py), built the same way each time: calculon-ai/calculon at the commit bench/calculon/ was copied
# from, exported (`git archive`) into build/calculon/src, and installed in a venv of its own, build/calculon/venv,
# with the dependency versions bench/calculon/requirements.txt pins. The benches use it where no `CALCULON` (the
# command) or `CALCULON_ROOT` (the checkout) is set. Calculon is no dependency of archgen, and this machine may be
# offline: CALCULON_GIT names where to fetch the commit from (a URL, or a local clone or mirror holding it), and pip
# installs from whatever index or wheel folder its configuration names; where either fails the target says so.
CALCULON_COMMIT := caa4b11f8fe1fee3ba57adaacb7590d7deabd053
CALCULON_GIT    ?= https://github.com/calculon-ai/calculon.git
CALCULON_BUILD  := build/calculon

calculon: $(CALCULON_BUILD)/venv/.installed

$(CALCULON_BUILD)/venv/.installed: bench/calculon/requirements.txt
	@rm -rf $(CALCULON_BUILD) && mkdir -p $(CALCULON_BUILD)/src
	@git init -q --bare $(CALCULON_BUILD)/git
	@git --git-dir=$(CALCULON_BUILD)/git fetch -q --depth 1 $(CALCULON_GIT) $(CALCULON_COMMIT) || { \
	  echo "make calculon: cannot fetch Calculon $(CALCULON_COMMIT) from $(CALCULON_GIT) (offline?)." >&2; \
	  echo "  Point CALCULON_GIT at a clone or mirror that holds it: make calculon CALCULON_GIT=/path/to/calculon" >&2; \
	  echo "  or set CALCULON to a calculon command and CALCULON_ROOT to a checkout (bench/bench_calculon.py)." >&2; \
	  exit 1; }
	@git --git-dir=$(CALCULON_BUILD)/git archive $(CALCULON_COMMIT) | tar -x -C $(CALCULON_BUILD)/src
	$(PYTHON) -m venv $(CALCULON_BUILD)/venv
	@$(CALCULON_BUILD)/venv/bin/python -m pip install --quiet -r bench/calculon/requirements.txt || { \
	  echo "make calculon: Calculon's dependencies (bench/calculon/requirements.txt) did not install: no index or" >&2; \
	  echo "  wheel folder in pip's configuration holds them (offline?)." >&2; exit 1; }
	$(CALCULON_BUILD)/venv/bin/python -m pip install --quiet --no-deps $(CALCULON_BUILD)/src
	@$(CALCULON_BUILD)/venv/bin/calculon llm bench/calculon/megatron-1T.json bench/calculon/3072_t4_p64_d12_mbs4_full.json \
	  bench/calculon/a100_80g.json - > /dev/null
	touch $@

golden: $(STAMP)
	ARCHGEN_UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/test_errors.py
	$(PY) -m tests.update_golden
	$(PY) -m tests.checks.update_cases

docs: $(STAMP)
	$(PY) -m archgen.docs
	$(PY) docs/gen_bands.py
	$(PY) docs/gen_switches.py
	$(PY) docs/gen_efficiencies.py
	$(PY) docs/gen_accuracy.py > docs/accuracy.md.tmp && mv docs/accuracy.md.tmp docs/accuracy.md

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
