# Standalone TensorBoard: build, install, demo and test entry points.
#   make demo   builds + installs everything if needed, writes a demo run and
#               serves it at http://127.0.0.1:6006
#   make test   everything CI (.ci/run) checks
VENV := .venv
PYTHON ?= python3
# The demo's port; the quick-start test picks a free one (DEMO_PORT=... make demo).
DEMO_PORT ?= 6006

.PHONY: proto renderer wheel install demo test bench docs release clean

proto:
	bash tools/gen_protos.sh

renderer:
	bash tools/fetch_renderer.sh

wheel:
	bash tools/pip_package/build_pip_package.sh dist

# The installer is idempotent: apt/venv steps are skipped when done, an unchanged wheel is neither
# rebuilt nor reinstalled. `make wheel` needs no root once bazel-bootstrap, patch and python3-venv exist.
install:
	TB_VENV="$(CURDIR)/$(VENV)" bash installer.sh $(INSTALL_FLAGS)

# The demo's own needs (demo/requirements.txt: scikit-learn's digits, matplotlib), so that
# `make demo` works on a machine nothing else prepared.
demo: install
	$(VENV)/bin/python -m pip install -q -r demo/requirements.txt
	$(VENV)/bin/python demo/demo.py --logdir demo_logs --port $(DEMO_PORT)
	@echo "demo: serving demo_logs at http://localhost:$(DEMO_PORT)/ (Ctrl-C stops it)"
	exec $(VENV)/bin/tensorboard --logdir demo_logs --port $(DEMO_PORT)

# Browser tests need chromium (apt), the figure tests pdflatex (TeX Live): the installer adds them with
# --with-browser and --with-tex.
test: INSTALL_FLAGS = --with-browser --with-tex
# TB_STRICT=1: a skipped test fails the run; REQUIRE_MXNET=1: MXNet tests never skip.
# Beside the test environments (tools/test_envs.sh: pip on one core), the venvs of every other supported
# Python (tools/matrix_envs.sh); once both are made, beside the main suite, the core suite on each Python, one
# after another (tools/test_pythons.py; its lines come after pytest's). The matrix waits for test_envs.sh on
# fd 3, a pipe "go" is written into once it has finished. uv, which both install with, is made first. Then a
# check that testing left the checkout as it was (tools/check_clean.sh).
test: install
	bash tools/check_clean.sh save
	bash tools/envs/release.sh
	@mkdir -p artifacts; ready=$$(mktemp -u); mkfifo "$$ready"; exec 3<>"$$ready"; rm -f "$$ready"; \
	{ bash tools/matrix_envs.sh && read go <&3 && $(VENV)/bin/python tools/test_pythons.py run --parallel 1; } \
	  > artifacts/test_pythons.out 2>&1 & matrix=$$!; \
	trap 'kill $$matrix 2>/dev/null' EXIT; \
	bash tools/test_envs.sh || exit 1; echo go >&3; exec 3>&-; \
	TB_STRICT=1 REQUIRE_MXNET=1 $(VENV)/bin/python -m pytest -q --durations=10 tests; status=$$?; \
	wait $$matrix; matrix_status=$$?; trap - EXIT; cat artifacts/test_pythons.out; \
	[ $$status -eq 0 ] && [ $$matrix_status -eq 0 ]
	bash tools/check_clean.sh check

# The documentation site (MkDocs + Material + mkdocstrings) into site/, strict: a broken link fails.
docs:
	bash tools/build_docs.sh

# The release: the wheel and its SHA256SUMS in dist/.
release:
	bash tools/release.sh

# Every benchmark the figures come from (~20-30 min on 2 cores), then docs/benchmarks.md rendered from
# the run; the exit status is run.py's (1 when a target is missed), after the page is written.
bench: install
	bash tools/test_envs.sh
	status=0; $(VENV)/bin/python bench/run.py --extras-reps 2 || status=$$?; \
	$(VENV)/bin/python bench/write_page.py && exit $$status

clean:
	-bazel clean --expunge
	-bazel shutdown
	rm -rf build dist artifacts bazel-bin bazel-out bazel-testlogs bazel-$(notdir $(CURDIR))
