"""`python -m tensorboard.report --logdir D --out report.html` (the same as `tensorboard export` with an .html --out)."""
import sys

from tensorboard.report.cli import main

sys.exit(main())
