"""`python -m benchmarks`, from the repository's root."""

from .cli import main

raise SystemExit(main())
