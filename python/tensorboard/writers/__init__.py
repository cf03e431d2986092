"""The user-facing writers: `FileWriter` (Summary protos and Events), `SummaryWriter` (the `add_*`
methods, grouped by kind in `_scalar_methods`, `_media_methods` and `_structure_methods`) and
`GlobalSummaryWriter`. Import them from `tensorboard` or `tensorboard.writer`.
"""
