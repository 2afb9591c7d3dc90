"""``python -m wskit`` runs ``wsctl``."""

import sys

from wskit.cli import main

__all__: list[str] = []


sys.exit(main())
