#!/usr/bin/env bash
# Compiles tensorboard/src/*.proto into python/tensorboard/src/*_pb2.py.
# The modules register their descriptors in our own descriptor pool
# (tensorboard/src/pool.py), not protobuf's default one: upstream TensorBoard's
# compat protos, importable in the same process under `tensorboard.compat.proto`,
# define the same full names (`tensorboard.Summary`, ...), and one pool cannot hold both.
# The protoc is grpcio-tools' bundled one, pinned so its gencode runs on every
# protobuf runtime in the range the package declares (>=6.31.1,<8).
set -euo pipefail
cd "$(dirname "$0")/.."
PROTOC_VENV=${PROTOC_VENV:-.venv-protoc}
GRPCIO_TOOLS_VERSION=1.75.1   # bundles protoc 31.1 == protobuf 6.31.1, the floor we declare
if [ ! -x "$PROTOC_VENV/bin/python" ] || ! "$PROTOC_VENV/bin/python" -c "import grpc_tools" 2>/dev/null; then
  echo "gen_protos: installing grpcio-tools==$GRPCIO_TOOLS_VERSION into $PROTOC_VENV"
  python3 -m venv "$PROTOC_VENV"
  "$PROTOC_VENV/bin/pip" install -q "grpcio-tools==$GRPCIO_TOOLS_VERSION" "protobuf==6.31.1"
fi
# Generate into a scratch dir and replace only modules whose text changed, each with an atomic
# rename: a test or script importing the package meanwhile never sees a missing or half-written module.
mkdir -p python/tensorboard/src build
OUT=$(mktemp -d build/protos.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
"$PROTOC_VENV/bin/python" -m grpc_tools.protoc -I . --python_out="$OUT" tensorboard/src/*.proto
for gen in "$OUT"/tensorboard/src/*_pb2.py; do
  grep -q '_descriptor_pool.Default().AddSerializedFile' "$gen" \
    || { echo "gen_protos: $gen does not register through _descriptor_pool.Default(): protoc's output changed" >&2; exit 1; }
  sed -i -e 's/^DESCRIPTOR = _descriptor_pool\.Default()\.AddSerializedFile(/DESCRIPTOR = _pool.POOL.AddSerializedFile(/' \
    -e 's/^from google\.protobuf\.internal import builder as _builder$/&\nfrom tensorboard.src import pool as _pool/' "$gen"
  dest=python/tensorboard/src/$(basename "$gen")
  cmp -s "$gen" "$dest" || mv -f "$gen" "$dest"
done
for old in python/tensorboard/src/*_pb2.py; do  # modules whose .proto is gone
  [ -e "$OUT/tensorboard/src/$(basename "$old")" ] || [ -e "tensorboard/src/$(basename "${old%_pb2.py}").proto" ] || rm -f "$old"
done
echo "gen_protos: $(ls python/tensorboard/src/*_pb2.py | wc -l) modules in python/tensorboard/src"
