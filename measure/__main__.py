"""``python -m measure ...`` = ``gloss measure ...`` (for verification nodes without an install)."""

import sys

from measure.cli import main
from site_plugins.files.pipes import exit_with

exit_with(lambda: main(sys.argv[1:]))
