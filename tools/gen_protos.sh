#!/usr/bin/env bash
# Compiles tensorboard/src/*.proto into python/tensorboard/src/*_pb2.py.
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
mkdir -p python/tensorboard/src
rm -f python/tensorboard/src/*_pb2.py
"$PROTOC_VENV/bin/python" -m grpc_tools.protoc -I . --python_out=python tensorboard/src/*.proto
echo "gen_protos: $(ls python/tensorboard/src/*_pb2.py | wc -l) modules in python/tensorboard/src"
