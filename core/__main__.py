"""``python -m wskit`` runs ``wsctl``."""

import sys

from wskit.cli import main

sys.exit(main())
