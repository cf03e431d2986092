"""Generated protobuf modules (built by `make proto` from tensorboard/src/*.proto)."""
