"""The event-file layer: serialized `Event`s in, event files out.

`event_file.EventFileWriter` queues events and writes them from a thread; `record` frames them
(TFRecord: length, CRC-32C, data, CRC-32C); `file_names` names the files as upstream does;
`wire` writes the hot scalar Event's bytes by hand; `storage` and
`object_store` reach local disks and fsspec URLs; `deferred_event` is the queued event made off the
caller's thread and the `Encoder` that makes it. The writer's collaborators, each owning its state:
`_files` (the current file, roll-over, the on_error policy), `_deferred_writes` (values still
computing on a device), `_lifecycle` (its thread, exit and fork, through tensorboard.process),
`_signals` and `_wakeup`. Imports only tensorboard.src, tensorboard.process and itself.
"""
