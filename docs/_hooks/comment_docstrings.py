"""griffe extension: ``#:`` comments above an attribute are its docstring.

The library documents its constants and fields the way Sphinx reads them, with a ``#:``
comment on the lines just above the assignment; griffe reads only string literals. This
extension gives an attribute without a docstring the text of those comments, so the reference
shows what the source says.
"""

from __future__ import annotations

import ast
from typing import Any

import griffe


class CommentDocstrings(griffe.Extension):
    """Give each attribute without a docstring its ``#:`` comment block."""

    def on_attribute_instance(self, *, node: Any, attr: griffe.Attribute, **kwargs: Any) -> None:
        if attr.docstring is not None or not isinstance(node, ast.AST) or attr.lineno is None:
            return
        lines = attr.module.lines  # the whole file's lines
        comment: list[str] = []
        index = attr.lineno - 2  # the line above the assignment (lines are 0-based)
        while index >= 0 and lines[index].strip().startswith("#:"):
            comment.insert(0, lines[index].strip()[2:].strip())
            index -= 1
        if comment:
            attr.docstring = griffe.Docstring(
                "\n".join(comment), lineno=index + 2, endlineno=attr.lineno - 1, parent=attr
            )
