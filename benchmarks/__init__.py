"""The project's research benchmarks: measurements that steer the library's design, kept in
the repository and not installed (the user's benchmark is `python -m stridedarray.bench`).

Run them from the repository's root with `python -m benchmarks --suite NAME` (README.md says
what each suite measures). The sampling, the report writer and the machine description are
the installed benchmark's (`stridedarray.bench`), imported from there.
"""
