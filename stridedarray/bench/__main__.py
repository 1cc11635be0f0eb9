"""`python -m stridedarray.bench`."""

from .cli import main

raise SystemExit(main())
