"""A MkDocs hook: the reST cross-reference roles of the docstrings read as plain code on the site.

The docstrings use Sphinx's field lists (``:param x:``), which mkdocstrings parses with
``docstring_style: sphinx``, and Sphinx's roles (``:func:`name```), which it leaves as they are. This
hook turns each role into the name it points at (``~a.b.c`` shows ``c``, as Sphinx does), so a page
reads ``house_edges`` rather than ``:func:house_edges``.
"""

import re

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):<code>(~?)([^<]+)</code>")


def _name(match: re.Match) -> str:
    short, target = match.groups()
    return f"<code>{target.rsplit('.', 1)[-1] if short else target}</code>"


def on_page_content(html: str, **kwargs: object) -> str:
    return ROLE.sub(_name, html)
