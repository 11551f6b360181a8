"""Sphinx configuration of the documentation site: ``make docs`` builds it into docs/_build/html.

Sphinx with furo and MyST, as Gymnasium's site: the pages are Markdown (MyST), the commands' reference comes from
their argparse parsers (sphinx-argparse), the API from the docstrings (autodoc). MkDocs 1.x is no longer developed,
which is why the site is not built with it. The env pages and the probe cards are written at build time from the
code (``_ext/war_pages.py``), so they cannot drift from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

import war_env  # noqa: E402

project = "war-env"
author = "war-env contributors"
copyright = "war-env contributors, MIT License"
release = war_env.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
    "war_pages",
]

# Only the site's own pages: experiment records, run folders and the build itself are not pages.
exclude_patterns = ["_build", "_ext", "runs", "experiments"]
source_suffix = {".md": "markdown"}
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
# Links to a heading of another page (``probes.md#the-score``) resolve to MyST's slugs down to level 3.
myst_heading_anchors = 3

# Every cross-reference must resolve. The types of other libraries have no pages here (no intersphinx: the build
# reads nothing from the network), so they are named once below.
nitpicky = True
nitpick_ignore = [
    ("py:class", name)
    for name in (
        "collections.abc.Mapping",
        "collections.abc.Sequence",
        "pathlib.Path",
        "numpy.ndarray",
        "AutoresetMode",
    )
]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}

# Options such as --resume are shown as typed, not with their dashes turned into an en dash.
smartquotes = False

html_theme = "furo"
html_title = f"war-env {release}"
html_static_path: list[str] = []
