"""``python -m tests.benchmarks``: run the issue-8 benchmarks and print the table."""

import sys

from .harness import main

sys.exit(main())
