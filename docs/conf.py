# Sphinx configuration of the rensa documentation (`make docs`: build/docs/html).
#
# The Python reference imports rensa from a build tree: RENSA_DOCS_PYTHONPATH (set by the
# Makefile and the CTest test), by default build/python. The C++ reference is generated from
# the headers at build time (docs/tools/cpp_api.py), nothing generated is committed.
# docs/design.md and docs/style.md are Markdown, which this Sphinx does not read: the pages
# link to them in the repository instead.
import os
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
root = here.parent
sys.path.insert(0, os.environ.get('RENSA_DOCS_PYTHONPATH', str(root / 'build' / 'python')))
sys.path.insert(0, str(here / 'tools'))

project = 'rensa'
author = 'the rensa developers'
copyright = 'the rensa developers'

extensions = ['sphinx.ext.autodoc', 'rensa_sphinx']  # rensa_sphinx reads Google-style sections too
exclude_patterns = ['*.md', 'tools', 'requirements.txt', '_build']
source_suffix = {'.rst': 'restructuredtext'}
root_doc = 'index'
# Links into the repository (design.md, examples, headers) are plain paths shown as literals.
highlight_language = 'none'
pygments_style = 'sphinx'

autodoc_docstring_signature = True
autodoc_member_order = 'bysource'
autodoc_default_options = {'exclude-members': '__init__, __new__'}

html_theme = 'alabaster'
html_title = 'rensa documentation'
html_static_path = []
html_theme_options = {'description': 'Chainer and ChainerMN in C++20, with Python bindings', 'fixed_sidebar': True}
