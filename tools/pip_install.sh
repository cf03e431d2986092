#!/usr/bin/env bash
# pip_install.sh VENV [--reinstall] [--no-deps] [-c FILE]... REQUIREMENT...
#
# Installs requirements into the venv VENV, quietly: with uv (pinned in tools/envs/release.sh) when it can be
# had, else with the venv's own pip. uv resolves and installs several times faster than pip (a venv of torch +
# jax + upstream tensorboard: 12 s against 62 s), which is most of what a fresh machine spends before the tests.
#
# uv reads no pip configuration, so this machine's pip settings are passed on: index and extra-index URLs,
# find-links, constraints and the CA bundle. The index strategy is pip's own (the best version across all
# indexes), so both tools pick the same versions; docs/compatibility.md's checks hold either way. Bytecode is
# compiled at install, as pip does: where PYTHONDONTWRITEBYTECODE is set, a package installed without it is
# compiled again at every import, and the suite's thousands of interpreters take twice as long.
# TB_PIP_INSTALLER=pip forces pip.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 VENV [--reinstall] [--no-deps] [-c FILE]... REQUIREMENT..." >&2; exit 2; }
VENV=$1
shift
[ -x "$VENV/bin/python" ] || { echo "pip_install: $VENV has no bin/python" >&2; exit 1; }

# The uv binary, made once (tools/envs/release.sh); empty when it can't be made (offline without a cache, ...).
uv_binary() {
  [ "${TB_PIP_INSTALLER:-uv}" = uv ] || return 0
  bash tools/envs/release.sh >&2 || return 0
  [ -x .venv-release-tools/bin/uv ] && echo .venv-release-tools/bin/uv
}

# uv flags for what pip's configuration says (pip config list: key='value' lines, in every scope).
pip_settings_as_uv_flags() {
  python3 -m pip config list 2>/dev/null | while IFS= read -r line; do
    key=${line%%=*}; key=${key##*.}; value=${line#*=}; value=${value#\'}; value=${value%\'}
    for item in $value; do
      case "$key" in
        index-url) echo "--index-url=$item" ;;
        extra-index-url) echo "--extra-index-url=$item" ;;
        find-links) echo "--find-links=$item" ;;
        constraint) [ -f "$item" ] && echo "--constraint=$item" ;;
      esac
    done
  done | sort -u
}

UV=$(uv_binary)
if [ -n "$UV" ]; then
  cert=$(python3 -m pip config list 2>/dev/null | sed -n "s/^[^=]*\.cert='\(.*\)'$/\1/p" | tail -n1)
  mapfile -t settings < <(pip_settings_as_uv_flags)
  [ -n "$cert" ] && [ -f "$cert" ] && export SSL_CERT_FILE="$cert"
  exec "$UV" pip install -q --python "$VENV/bin/python" --index-strategy unsafe-best-match --compile-bytecode \
    "${settings[@]}" "$@"
fi
args=()
for arg in "$@"; do
  case "$arg" in --reinstall) args+=(--force-reinstall) ;; *) args+=("$arg") ;; esac
done
"$VENV/bin/python" -m pip install -q "${args[@]}" 2> >(grep -v "is ignored: it is neither" >&2)
