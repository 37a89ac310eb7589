# archgen — everything a new machine with Python 3.11+ and make needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test fuzz bench calculon bands golden docs lint clean browser release-check

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

# two workers (issue 19 asks for under 3 minutes on 2 cores); `pytest -m "not slow"` for a quick loop. The run is
# CPU-bound and spread thin (4,000+ tests under 0.1 CPU-s each): measure in CPU-s, not wall time, which other work on
# a shared machine moves by 2x: `ARCHGEN_CPU_PROFILE=DIR pytest -p tests.cpu_profile ...`, then
# `python -m tests.cpu_profile DIR` (per test phase, file, collection and worker). worksteal: an idle worker takes half
# of the other's queue, so long tests (mypy, the fuzz shards, first in conftest `FIRST`) never leave one worker alone at
# the end. Bytecode is written (into the ignored __pycache__/) even where the environment sets PYTHONDONTWRITEBYTECODE,
# so the workers and the tests' child interpreters do not each recompile archgen nor rewrite every test module again.
# One line per session (CPU-s by its own before/after; whole-run wall times only on an idle machine):
# testfast3 (1,803 tests): clean-clone .ci/run 2:18, pytest 118 s (project CI 150 s before).
# testspeed2 (2,530): 7 repeated pipeline and diff runs shared, the fuzz's key lines parsed once: ~4 of 284 CPU-s.
# testspeed5: pint conversions made directly (quantity_ops), 3 render files beside every_document: 434 -> 394 cold.
# testspeed6: tests/shared_results.py, an estimate or serving simulation once a process: -n 0 410 -> 323.
# testspeed13 (4,672): -n 0 621 CPU-s; the customer edition's no-metric-key scans 5.8 -> 0.2.
# testspeed14 (4,834): 768 CPU-s; each worker imports its own share first (tests/collect_split.py): cold -n 2
#   collection 47.8 -> 32.4; every user of every_document and su_customer kept in FIRST (one worker renders them).
# tests30 (5,548, ~700 CPU-s): ~5 CPU-s of repeats. pipe31: a check case's run ~25 % cheaper (tests/checks 38.7 -> 34.7).
# tests32 (5,788; clean clone's pytest 5:17-5:42, idle): -n 0 cold slices at load 3-7, tests/test_*.py 365 CPU-s
#   (fuzz, mypy out), render 185, perf 185. run_cli's pipeline runs once a process for the same files
#   (tests/shared_runs.py: its 14 files 49.6 -> 39.9); test_cache_off 2 fresh processes fewer (-5.7); parsed YAML keyed
#   on the parser's text (CI's clean clone: nothing; after a commit elsewhere the first check of specs/ 2.00 -> 1.07).
#   every_document is rendered by one worker already (FIRST; testspeed14's -n 2 profile): a cross-worker share buys 0.
# speedsub34: check case files read by libyaml (a guard test holds them equal to ruamel's parse): warm collection
#   6.23 -> 5.19 CPU-s a worker; git calls ~3 ms each, the fresh interpreters left test entry, cold start, HOME.
# speedmodel34: the model faster where tests/perf spends (no number moves): switch values read once per type, profiles'
#   values made once, DDP bucket walks shared across Arch copies, attention-DP uneven passes by block of 256 decodes;
#   tests/perf -n 0 tests 157.2 -> 146.0 CPU-s (one run each, load 5-8; A/B pairs: unbanded+6 serving files -15 %).
# speedrender34: Typst's PDFs kept in ~/.cache/archgen by what a compile reads (archgen/render/pdf_cache.py; the
#   suite uses the user's cache): tests/render -n 0, cache warm from a run before, 151.3, 147.2 -> 130.9, 128.0 CPU-s
#   (every_document 49.3, 42.5 -> 25.5, 25.6; typst 27.7 -> 2.8); cold cache (clean clone): no change (148.8, 152.9
#   -> 141.3: noise).
# suite37 (6,711 tests; -n 2 worksteal from fresh worktrees, load 8-10): the same tree twice 597.5, 567.6 CPU-s
#   (5 % noise), collection 12.5 a worker. Computed by both workers, by key: session fixtures 1.2 CPU-s, shared
#   estimates 0.8, `run_cli` runs 0.2; hypothesis' scan of archgen's source for constants 0.2 a process (1.7 cold).
# suite38 (cProfile of tests/perf, render, analyse, checks, output, errors; load 8-12): the largest self time is the
#   serving loop (scheduler._loop, 17 of 37 CPU-s of the serving tests), then pint's quantity ops, spread thin. A
#   spec tree loaded with fewer path calls and each file read with a buffer of its size (pipeline.load of specs/
#   20.1 -> 9.8 ms), device_ends by rack design: -n 0 side by side, tests/checks + analyse 82.6 -> 77.7 CPU-s
#   (load 12), tests/perf 143.1 -> 136.0 (load 6-7; with _loop's min()s written out).
# suite39 (7,486 tests, -n 2 worksteal from a fresh worktree, load 8-10): 607.5 CPU-s (workers 299.4, 296.5;
#   collection 12.6, 14.5; the controller ~12). No tail: the workers' last tests ended 3.2 s apart, so the wall is
#   the CPU over two cores. Files: test_browser 39.0 (every_document: typst 26 CPU-s cold, diagrams), fuzz 26.6,
#   checks/test_cases 15.1, test_types 14.5, test_diff 13.2, test_cache_off 12.6, plan_stated_keys 11.0. Runs repeated
#   by content in one worker (tests/test_*.py less fuzz and mypy): 8.2 of 36 CPU-s, most a fresh copy of specs/ per
#   test; unchanged sides read by several diffs made once a module: test_diff -n 0 13.2 -> 11.7 (load 6), 9.7 -> 8.9
#   (load 4.5; two steps, about -19 %); with test_diff_bom, test_hostile_findings_cap and test_pdf_title (drawn_once)
#   about 3 CPU-s in all.
# suitespeed41: Typst's compiler keyed in pdf_cache by its module's bytes, not its venv path and mtime, so a fresh
#   worktree's suite reads back the PDFs another checkout compiled (a clean machine's first run: no change). -n 0,
#   test_layout + test_pdf_cache, each venv's typst module touched before its run (as a fresh install), load 7-8:
#   51.8, 45.9 -> 26.3, 26.0 CPU-s (every_document's and su_customer's PDFs read back); the suite: about 23-26 of
#   ~600. Looked at, left: tests/render -n 0 draws 249 diagrams (30.1 CPU-s), 96 the same bytes again (12.2; 3.8 of
#   them test_render's on purpose, the rest rack documents of edited copies, other Run objects than `drawn_once`
#   keys on); tests/perf -n 0 scores 6,617 case predictions (11.2 CPU-s), 1,760 repeats (2.1): not worth a share.
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

# The band table is generated model input: the goldens and the check cases quote the bands it holds, and the
# accuracy page scores against it. Both `golden` and `docs` depend on it, so `make golden docs` and `make docs golden`
# write it once, first, and a second run of either changes nothing.
bands: $(STAMP)
	$(PY) docs/gen_bands.py

golden: bands
	ARCHGEN_UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/test_errors.py
	$(PY) -m tests.update_golden
	$(PY) -m tests.checks.update_cases

docs: bands
	$(PY) -m archgen.docs
	$(PY) docs/gen_switches.py
	$(PY) docs/gen_efficiencies.py
	$(PY) docs/gen_accuracy.py > docs/accuracy.md.tmp && mv docs/accuracy.md.tmp docs/accuracy.md

# What a release checks against the clock, which no test reads (the suite's verdict is the same on any day):
# archgen.CODE_DATE not after today, and each catalog date listed as a plan still ahead of it (tests/release_check.py).
release-check: $(STAMP)
	$(PY) -m tests.release_check

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
