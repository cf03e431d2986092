"""The subcommands our `tensorboard` command adds to upstream's: each picks the front door that serves it."""
