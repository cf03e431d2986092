"""`python -m tensorboard.report --logdir D --out report.html`: `tensorboard export` with an .html --out."""
import sys

from tensorboard.report.cli import main

sys.exit(main())
