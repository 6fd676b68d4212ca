"""``python -m site_plugins.cli``: the same as ``gloss`` (the package's ``main``)."""

import sys

from site_plugins.cli import main

sys.exit(main())
