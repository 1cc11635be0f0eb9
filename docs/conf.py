"""Sphinx configuration of the stridedarray documentation.

Build: sphinx-build -W --keep-going -b html docs docs/_build/html  (needs the `docs` extra).
Pages are MyST Markdown (docs/*.md) and reStructuredText (the API reference, docs/api/*.rst);
the per-object pages under docs/api/generated/ are written by autosummary at build time.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
# Document this source tree when its C core is built in place (an editable install, or
# `setup.py build_ext --inplace`); otherwise the installed package (a wheel has no tree).
if any((HERE.parent / "stridedarray").glob("_core*.so")):
    sys.path.insert(0, str(HERE.parent))

import stridedarray  # noqa: E402

# The source repository, when pyproject.toml's [project.urls] names one ("Source" or
# "Repository"): linked from the navigation bar and the footer.
_urls = tomllib.loads((HERE.parent / "pyproject.toml").read_text())["project"].get("urls", {})
REPOSITORY_URL = _urls.get("Source") or _urls.get("Repository")

project = "stridedarray"
author = "the stridedarray developers"
copyright = "the stridedarray developers"
release = stridedarray.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.viewcode",
    "sphinx_design",
    "sphinx_copybutton",
    "array_api_reference",  # docs/_ext: links to the standard, checks the reference is complete
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# generated/: the benchmarks' tables (`python -m stridedarray.bench --docs docs/generated`, and
# from a checkout `python -m benchmarks --suite overhead|--dask --docs docs/generated`), pulled
# into the pages with MyST's {include}, not pages of their own.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "generated"]

# MyST: `#`-anchors for headings down to ### so that [text](page.md#a-heading) resolves.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# The copy button copies the code of an example without its >>> / ... prompts and output.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# `name` in docstrings links to the object when it exists and is shown as code otherwise.
default_role = "py:obj"

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "signature"
# The constructor's signature in the class's heading, not as `__new__` and `__init__` entries;
# Array's is dropped (docs/_ext): it is made by the creation functions, never called.
autodoc_class_signature = "mixed"
autodoc_default_options = {"member-order": "bysource"}
# The package is documented where users import it from (stridedarray.add), not where a name
# is defined (stridedarray._api.elementwise.add).
add_module_names = True

numpydoc_show_class_members = False  # the Array page lists its members itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"stridedarray {release}"
html_static_path = ["_static"]
templates_path = ["_templates"]
html_css_files = ["stridedarray.css"]
html_theme_options = {
    "logo": {"text": "stridedarray"},
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "footer_start": ["copyright", "project-links"],
    "footer_end": ["sphinx-version", "theme-version"],
    "secondary_sidebar_items": ["page-toc"],
    "icon_links": [
        {
            "name": "Source repository",
            "url": REPOSITORY_URL,
            "icon": "fa-brands fa-git-alt",
            "type": "fontawesome",
        }
    ]
    if REPOSITORY_URL
    else [],
}
html_show_sourcelink = False
# Top-level pages have no section to navigate: no left sidebar, the text gets the width.
html_sidebars = {
    "index": [],
    "quickstart": [],
    "install": [],
    "numpy-users": [],
    "changelog": [],
    "license": [],
}
html_context = {"default_mode": "light", "repository_url": REPOSITORY_URL}
