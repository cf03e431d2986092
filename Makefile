# Standalone TensorBoard: build, install, demo and test entry points.
#   make demo   builds + installs everything if needed, writes a demo run and
#               serves it at http://127.0.0.1:6006
#   make test   everything CI (.ci/run) checks
VENV := .venv
PYTHON ?= python3
# The demo's port; the quick-start test picks a free one (DEMO_PORT=... make demo).
DEMO_PORT ?= 6006

.PHONY: proto renderer wheel install demo test bench clean

proto:
	bash tools/gen_protos.sh

renderer:
	bash tools/fetch_renderer.sh

wheel:
	bash tools/pip_package/build_pip_package.sh dist

# The installer is idempotent (apt/venv steps are skipped when done).
install:
	TB_VENV="$(CURDIR)/$(VENV)" bash installer.sh $(INSTALL_FLAGS)

# The demo's own needs (demo/requirements.txt: scikit-learn's digits, matplotlib), so that
# `make demo` works on a machine nothing else prepared.
demo: install
	$(VENV)/bin/python -m pip install -q -r demo/requirements.txt
	$(VENV)/bin/python demo/demo.py --logdir demo_logs
	exec $(VENV)/bin/tensorboard --logdir demo_logs --port $(DEMO_PORT)

# Browser tests need chromium (apt); the installer adds it with --with-browser.
test: INSTALL_FLAGS = --with-browser
# TB_STRICT=1: a skipped test fails the run; REQUIRE_MXNET=1: MXNet tests never skip.
test: install
	bash tools/test_envs.sh
	TB_STRICT=1 REQUIRE_MXNET=1 $(VENV)/bin/python -m pytest -q tests

bench: install
	bash tools/test_envs.sh
	$(VENV)/bin/python bench/run.py

clean:
	-bazel clean --expunge
	-bazel shutdown
	rm -rf build dist artifacts bazel-bin bazel-out bazel-testlogs bazel-$(notdir $(CURDIR))
