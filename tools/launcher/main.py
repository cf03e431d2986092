"""Launcher main for standalone TensorBoard's `tensorboard` command.

This file is the `main` of the Bazel `py_binary` //:tensorboard. It runs the
upstream TensorBoard renderer that lives next to it in the runfiles tree
(`<runfiles>/tensorboard_renderer/tensorboard`), isolated from our own logger
package, which is also called `tensorboard` and is installed in site-packages:

* the runfiles copy of upstream is put first on `sys.path`, and the launcher
  refuses to start if `import tensorboard` resolves anywhere else;
* the projector plugin (registered upstream through package metadata that the
  isolated copy does not ship) is added to the plugin list explicitly;
* the server binds 127.0.0.1 unless `--host` or `--bind_all` is given, and answers only the hosts and
  clients tensorboard.serving.access lets through (--allowed_hosts, --auth, --certfile/--keyfile);
* an `s3://` logdir with `--load_fast=true` is served with `--load_fast=false`
  instead, with a note (the Rust data server cannot read S3);
* `--version` prints our version alone on one line, as upstream prints its own;
  `tensorboard info` prints the details (renderer version and location, logger location);
* upstream's "TensorFlow installation not found" line is dropped: running without
  TensorFlow is this product's design, not a degraded mode (other messages pass through);
* TENSORBOARD_STANDALONE_VERBOSE=1 prints where the renderer was imported from;
* `tensorboard export ...`, `tensorboard reduce ...`, `tensorboard plot ...` and `tensorboard runs ...` run our
  logger package's commands (tensorboard.cli.export, .reduce, .plot and .runs), not the renderer;
* boto3 and fsspec are imported when first used, not as upstream's file layer is imported
  (tensorboard.serving.deferred_imports);
* the UI's static files are gzipped when first asked for, not all before the server answers
  (tensorboard.serving.assets);
* `--data_provider={auto,standalone,native,multiplexer}` chooses the data path (by default our reader,
  wherever it reads the logdir; see tensorboard.serving.paths and docs/serving.md), and one start-up
  line says which path serves.

Every other flag is passed through to upstream unchanged.
"""

import contextlib
import os
import re
import sys

# Layout of the runfiles tree relative to this file:
#   <runfiles>/<main workspace>/tools/launcher/main.py
#   <runfiles>/<main workspace>/python/tensorboard/_version.py
#   <runfiles>/tensorboard_renderer/tensorboard/...
RENDERER_REPO = "tensorboard_renderer"
DEFAULT_HOST = "127.0.0.1"
PRODUCT = "standalone TensorBoard"
# Printed by upstream's main_lib.global_init() when `import tensorflow` fails.
TF_MISSING_LINE = "TensorFlow installation not found - running with reduced feature set."


def runfiles_paths(main_file):
    """Return (workspace_root, renderer_root) for this launcher file."""
    here = os.path.dirname(os.path.abspath(main_file))
    workspace_root = os.path.dirname(os.path.dirname(here))
    runfiles_root = os.path.dirname(workspace_root)
    return workspace_root, os.path.join(runfiles_root, RENDERER_REPO)


def read_our_version(workspace_root):
    """Read `__version__` from our logger's _version.py without importing it."""
    path = os.path.join(workspace_root, "python", "tensorboard", "_version.py")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return "unknown"
    match = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.M)
    return match.group(1) if match else "unknown"


def _flag_value(args, name):
    """Return the last value given for `--name` (`--name=v` or `--name v`)."""
    value = None
    for i, arg in enumerate(args):
        if arg.startswith(name + "="):
            value = arg[len(name) + 1:]
        elif arg == name and i + 1 < len(args):
            value = args[i + 1]
    return value


def _has_flag(args, name):
    """True if `--name` appears alone or as `--name=...`, or abbreviated (`--bind`, `--hos=...`),
    as upstream's argparse accepts it."""
    for arg in args:
        token = arg.split("=", 1)[0]
        if token == name or (token.startswith("--") and len(token) > 2 and name.startswith(token)):
            return True
    return False


def _drop_flag(args, name):
    """Return args without any `--name=v` / `--name v` occurrence."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == name:
            skip = True
            continue
        if arg.startswith(name + "="):
            continue
        out.append(arg)
    return out


def _is_s3(logdir_value):
    """True if a --logdir or --logdir_spec value points at S3."""
    if not logdir_value:
        return False
    for part in logdir_value.split(","):
        # --logdir_spec entries may be `name:path`.
        if part.startswith("s3://") or re.match(r"^[^/:]+:s3://", part):
            return True
    return False


def file_url_to_path(value):
    """A `file://` logdir (RFC 8089: file:///abs or file://localhost/abs, %-escapes) as the local
    path it names; any other value unchanged. A file URL naming another host is a ValueError."""
    if not value.startswith("file://"):
        return value
    from urllib.parse import unquote  # pylint: disable=import-outside-toplevel

    host, slash, rest = value[len("file://"):].partition("/")
    if host not in ("", "localhost"):
        raise ValueError("--logdir %r: a file:// URL names a path on this machine "
                         "(file:///abs/path), not on host %r" % (value, host))
    return unquote(slash + rest) or "/"


def _local_logdir(args):
    """args with a `--logdir file://...` value replaced by its local path."""
    out, take_next = [], False
    for arg in args:
        if take_next:
            arg, take_next = file_url_to_path(arg), False
        elif arg == "--logdir":
            take_next = True
        elif arg.startswith("--logdir="):
            arg = "--logdir=" + file_url_to_path(arg[len("--logdir="):])
        out.append(arg)
    return out


def rewrite_args(args, stderr=None):
    """Apply the launcher's defaults to upstream's command line arguments.

    Returns the new argument list (argv without the program name).
    """
    stderr = stderr or sys.stderr
    args = _local_logdir(args)
    if not (_has_flag(args, "--host") or _has_flag(args, "--bind_all")):
        args.append("--host=" + DEFAULT_HOST)
    logdir = _flag_value(args, "--logdir") or _flag_value(args, "--logdir_spec")
    load_fast = _flag_value(args, "--load_fast")
    if _is_s3(logdir) and load_fast == "true":  # auto: upstream and --data_provider choose a path that reads S3
        print(
            "tensorboard: note: the fast data server cannot read s3:// "
            "logdirs; using --load_fast=false (set S3_ENDPOINT for a "
            "non-AWS endpoint).",
            file=stderr,
        )
        args = _drop_flag(args, "--load_fast") + ["--load_fast=false"]
    return args


def wants_version(args):
    """True if the user asked for `--version` (or upstream's --version_tb)."""
    for arg in args:
        if arg == "--":
            return False
        if arg in ("--version", "--version_tb", "--version=true", "--version_tb=true"):
            return True
    return False


def wants_info(args):
    """True for `tensorboard info` (our subcommand; upstream has none of that name)."""
    return args[:1] == ["info"]


class LineDropper:
    """A text stream that forwards whole lines to `target` except those equal to `dropped`."""

    def __init__(self, target, dropped):
        self.target, self.dropped, self.pending = target, dropped, ""

    def write(self, text):
        """Buffer `text`; forward each completed line unless it is the dropped one."""
        self.pending += text
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            if line != self.dropped:
                self.target.write(line + "\n")
        return len(text)

    def flush(self):
        """Forward an unterminated tail as is (it cannot be the dropped line's end)."""
        if self.pending:
            self.target.write(self.pending)
            self.pending = ""
        self.target.flush()


@contextlib.contextmanager
def stderr_without(line):
    """Run the block with sys.stderr dropping exactly `line`; everything else reaches stderr."""
    real, dropper = sys.stderr, LineDropper(sys.stderr, line)
    sys.stderr = dropper
    try:
        yield
    finally:
        sys.stderr = real
        dropper.flush()


def our_logger_dir(workspace_root):
    """Directory of our logger package `tensorboard` (not the renderer's), found without importing."""
    runfiles_root = os.path.dirname(os.path.abspath(workspace_root))
    candidates = [os.path.join(workspace_root, "python")] + [
        p for p in sys.path
        if not (os.path.abspath(p or os.curdir) + os.sep).startswith(runfiles_root + os.sep)]
    for entry in candidates:
        package = os.path.join(os.path.abspath(entry or os.curdir), "tensorboard")
        if os.path.isfile(os.path.join(package, "__init__.py")):
            return package
    return "not found"


def info_lines(workspace_root, renderer):
    """`tensorboard info`: our version, then where each part lives (one `key: value` per line)."""
    from tensorboard import version  # pylint: disable=import-outside-toplevel  (the renderer's)

    return [
        "tensorboard %s" % read_our_version(workspace_root),
        "renderer: TensorBoard %s (upstream's web UI, unmodified)" % version.VERSION,
        "renderer location: %s" % os.path.dirname(renderer.__file__),
        "logger location: %s" % our_logger_dir(workspace_root),
        "python: %s (%s)" % (sys.executable, sys.version.split()[0]),
    ]


def isolate_renderer(renderer_root):
    """Make `import tensorboard` resolve to the runfiles copy of upstream.

    Raises ImportError if something else would be imported instead.
    """
    renderer_root = os.path.abspath(renderer_root)
    sys.path[:] = [renderer_root] + [
        p for p in sys.path if os.path.abspath(p or os.curdir) != renderer_root
    ]
    for name in list(sys.modules):
        if name == "tensorboard" or name.startswith("tensorboard."):
            del sys.modules[name]
    import tensorboard  # pylint: disable=import-outside-toplevel

    expected = os.path.join(renderer_root, "tensorboard") + os.sep
    if not os.path.abspath(tensorboard.__file__).startswith(expected):
        raise ImportError(
            "renderer isolation failed: `tensorboard` imported from %s, "
            "expected under %s" % (tensorboard.__file__, expected)
        )
    return tensorboard


def renderer_plugins():
    """Upstream's default plugins plus the metadata-registered projector."""
    from tensorboard import default  # pylint: disable=import-outside-toplevel
    from tensorboard.plugins.projector import (  # pylint: disable=import-outside-toplevel
        projector_plugin,
    )

    plugins = default.get_plugins()
    if projector_plugin.ProjectorPlugin not in plugins:
        plugins.append(projector_plugin.ProjectorPlugin)
    return plugins


def enable_our_modules(workspace_root, renderer):
    """Let the renderer's `tensorboard` package also find our logger's modules (tensorboard.serving,
    tensorboard.reader): names upstream lacks resolve to ours, every upstream name stays upstream's."""
    ours = our_logger_dir(workspace_root)
    if ours != "not found" and ours not in renderer.__path__:
        renderer.__path__.append(ours)


def defer_optional_imports():
    """boto3 and fsspec, which upstream's file layer imports only to know they are installed, are imported
    when first used (tensorboard.serving.deferred_imports): not before a local logdir's first load."""
    from tensorboard.serving import deferred_imports  # pylint: disable=import-outside-toplevel  (ours, light)

    deferred_imports.defer_renderer_optional()


def start_preload(args):
    """Starts reading a local logdir our reader will serve in worker processes now, before the server's
    imports, so it is read on the other core meanwhile (tensorboard.serving.preload)."""
    from tensorboard.serving import preload  # pylint: disable=import-outside-toplevel  (ours, light)

    preload.start_for(args)


def our_flag_loaders(program):
    """The loaders of our flags, with upstream's program patched to honour them: --data_provider (our reader
    serves wherever upstream would use its Python loader) and the access flags (--allowed_hosts, --auth, HTTPS),
    which every server it builds obeys."""
    from tensorboard.serving import access, paths  # pylint: disable=import-outside-toplevel  (ours)

    paths.install(program)
    access.install(program)
    return [paths.DataPathFlag(), access.AccessFlags()]


def defer_asset_gzip():
    """The UI's static files gzipped on their first request instead of all while the server is built
    (tensorboard.serving.assets): the server answers sooner, with the same bytes."""
    from tensorboard.plugins.core import core_plugin  # pylint: disable=import-outside-toplevel
    from tensorboard.serving import assets  # pylint: disable=import-outside-toplevel  (ours)

    assets.install(core_plugin)


SUBCOMMANDS = ("export", "reduce", "plot", "runs")  # ours, each a module of tensorboard.cli


def run_subcommand(workspace_root, name, args):
    """`tensorboard export ARGS`, `reduce ARGS`, `plot ARGS` or `runs ARGS`: our logger package's command (the
    installed one; in a source checkout, the tree next to this file). The renderer is never imported."""
    ours = os.path.join(workspace_root, "python")
    if os.path.isfile(os.path.join(ours, "tensorboard", "__init__.py")):  # runfiles hold only _version.py
        sys.path.insert(0, ours)
    else:  # installed: the stub put the runfiles (upstream's `tensorboard`) ahead of site-packages
        runfiles_root = os.path.dirname(os.path.abspath(workspace_root))
        sys.path[:] = [p for p in sys.path
                       if not (os.path.abspath(p or os.curdir) + os.sep).startswith(runfiles_root + os.sep)]
    for name in [m for m in sys.modules if m == "tensorboard" or m.startswith("tensorboard.")]:
        del sys.modules[name]
    import importlib  # pylint: disable=import-outside-toplevel

    return importlib.import_module("tensorboard.cli." + name).main(args)


def main(argv=None):
    """Entry point: run upstream TensorBoard with our defaults (or our own `export`, `reduce`, `plot` and `runs`)."""
    argv = list(sys.argv if argv is None else argv)
    workspace_root, renderer_root = runfiles_paths(__file__)
    if argv[1:2] and argv[1] in SUBCOMMANDS:
        return run_subcommand(workspace_root, argv[1], argv[2:])
    args = argv[1:]
    if wants_version(args):  # our version alone, as upstream prints its own
        print(read_our_version(workspace_root))
        return 0
    renderer = isolate_renderer(renderer_root)
    if os.environ.get("TENSORBOARD_STANDALONE_VERBOSE"):
        print("%s: renderer %s" % (PRODUCT, renderer.__file__), file=sys.stderr)
    if wants_info(args):
        print("\n".join(info_lines(workspace_root, renderer)))
        return 0
    enable_our_modules(workspace_root, renderer)
    defer_optional_imports()
    start_preload(args)

    from absl import app  # pylint: disable=import-outside-toplevel

    from tensorboard import main_lib, manager, program  # pylint: disable=import-outside-toplevel
    from tensorboard.plugins import base_plugin  # pylint: disable=import-outside-toplevel

    try:
        sys.argv = ["tensorboard"] + rewrite_args(args)
    except ValueError as err:
        print("tensorboard: error: %s" % err, file=sys.stderr)
        return 2
    with stderr_without(TF_MISSING_LINE):
        main_lib.global_init()
    enable_our_modules(workspace_root, renderer)
    defer_asset_gzip()
    server = program.TensorBoard(plugins=renderer_plugins() + our_flag_loaders(program))

    def configure(argv):
        # The info file's cache key must come from the user's own arguments (what `%tensorboard`
        # computes to find and reuse this server), not from ours with the added --host.
        result = server.configure(argv)
        server.cache_key = manager.cache_key(working_directory=os.getcwd(), arguments=list(args),
                                             configure_kwargs={})
        return result

    try:
        app.run(server.main, flags_parser=configure)
    except base_plugin.FlagsError as e:
        print("Error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
