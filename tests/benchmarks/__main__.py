"""``python -m tests.benchmarks``: run the benchmarks B1–B8 and print the table."""

import sys

from .harness import main

sys.exit(main())
