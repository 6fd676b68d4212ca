"""``python -m measure ...`` = ``gloss measure ...`` (for verification nodes without an install)."""

import sys

from measure.cli import main

sys.exit(main(sys.argv[1:]))
