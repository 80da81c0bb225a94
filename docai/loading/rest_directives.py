"""Sphinx's directives as docutils stand-ins, and an `include` kept inside the docs folder.

Plain docutils knows none of Sphinx's directives (`toctree`, `versionadded`, `code-block`
with its options, `autofunction`, the Python domain's `function`/`class`...): each would
become an error message holding the directive's raw source. Sphinx itself is far too heavy
to run per file (an application, a build environment, extensions), so these stand-ins give
each directive the text its HTML page shows, and nothing else:
- prose directives (`versionadded`, `seealso`, `deprecated`, `only`, `tab`...) keep their
  title line and their body, parsed as reST;
- object descriptions (`function`, `class`, `confval`, `option`...) keep their signature
  and body, and Sphinx's `auto*` directives (whose text lives in code docai does not
  import) keep only their signature;
- code directives (`code-block`, `sourcecode`, `doctest`...) keep their code;
- navigation and build directives (`toctree`, `index`, `highlight`, `currentmodule`...)
  are dropped.
Any option is accepted (a stand-in does not know every extension's options). Directives
outside these lists still fail in docutils; `rest.py` keeps their body as text.

docutils keeps its directives in one table per process: registering the stand-ins there
once (`register`) is how Sphinx itself extends it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

from docai import messages
from docai.loading.names import display_name
from docai.loading.reading import Unreadable, read_text

# Includes nested deeper than this (or in a cycle, which reaches it) are refused.
MAX_INCLUDE_DEPTH = 8
# An include larger than this is refused (the parse time limit covers the main file only).
MAX_INCLUDE_BYTES = 2 * 1024 * 1024


class _AnyOptions(dict[str, Any]):
    """An option spec that takes every option as text (truthy, so docutils reads options)."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged

    def __contains__(self, key: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return True


class _Dropped(Directive):
    """Navigation or build configuration: nothing a reader of the page sees as text."""

    optional_arguments = 99
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict[str, Any]] = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        return []


class _Prose(Directive):
    """A titled block of prose: the title (and the argument) as a line, then the body."""

    optional_arguments = 99
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict[str, Any]] = _AnyOptions()
    label = ""

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        heading = " ".join(part for part in (self.label, " ".join(self.arguments)) if part)
        if heading:
            container += nodes.paragraph(text=heading + (":" if self.content else ""))
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, container)
        return [container]


class _Signature(_Prose):
    """An object description (`.. function:: name(args)`): its signature, then its body."""


class _SignatureOnly(_Prose):
    """Sphinx's `auto*` directives: their text is a docstring in code; the name remains."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        return [nodes.paragraph(text=" ".join(self.arguments))] if self.arguments else []


class _Code(Directive):
    """Code shown as code (`code-block`, `sourcecode`, `doctest`, `testcode`...)."""

    optional_arguments = 99
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict[str, Any]] = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        return [nodes.literal_block(code, code)] if code.strip() else []


class _Include(Directive):
    """`.. include::` and `.. literalinclude::` read only files inside the docs folder.

    A path is relative to the including file, or to the docs folder when it starts with
    `/` (Sphinx's rule). A refused include leaves the rest of the page as it is and adds a
    note naming the target and the reason (shown as a notice for the page).
    """

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    option_spec: ClassVar[dict[str, Any]] = _AnyOptions()
    literal = False

    def run(self) -> list[nodes.Node]:
        context = self.state.document.settings.docai_context
        argument = self.arguments[0].strip()
        if argument.startswith("<") and argument.endswith(">"):
            return []  # docutils' own standard-library includes: definitions, not prose
        current = self.state_machine.input_lines.source(
            self.lineno - self.state_machine.input_offset - 1
        )
        base = Path(current).parent if current and Path(current).is_absolute() else context.folder
        target = (context.root / argument.lstrip("/")) if argument.startswith("/") else (
            base / argument
        )
        shown = display_name(argument)
        if context.depth >= MAX_INCLUDE_DEPTH:
            context.notes.append(messages.LOAD_NOTE_INCLUDE_TOO_DEEP.format(target=shown))
            return []
        try:
            resolved = target.resolve()
            inside = resolved.is_relative_to(context.root.resolve())
        except (OSError, RuntimeError, ValueError):
            inside = False
        if not inside:
            context.notes.append(messages.LOAD_NOTE_INCLUDE_OUTSIDE.format(target=shown))
            return []
        if not resolved.is_file():
            context.notes.append(messages.LOAD_NOTE_INCLUDE_MISSING.format(
                target=shown, reason=messages.LOAD_INCLUDE_NOT_FOUND))
            return []
        read = read_text(resolved, max_bytes=MAX_INCLUDE_BYTES)
        if isinstance(read, Unreadable):
            context.notes.append(
                messages.LOAD_NOTE_INCLUDE_MISSING.format(target=shown, reason=read.reason))
            return []
        text = _between(read.text, self.options.get("start-after"), self.options.get("end-before"))
        if self.literal or "literal" in self.options or "code" in self.options:
            return [nodes.literal_block(text, text)] if text.strip() else []
        context.depth += 1
        try:
            container = nodes.container()
            lines = StringList(text.splitlines(), source=str(resolved))
            self.state.nested_parse(lines, 0, container, match_titles=True)
        finally:
            context.depth -= 1
        return container.children


class _LiteralInclude(_Include):
    literal = True


def _between(text: str, after: str | None, before: str | None) -> str:
    if after and after in text:
        text = text.split(after, 1)[1]
    if before and before in text:
        text = text.split(before, 1)[0]
    return text


DROPPED = (
    "toctree", "index", "highlight", "currentmodule", "module", "py:module",
    "py:currentmodule", "tabularcolumns", "default-role", "default-domain", "sectionauthor",
    "moduleauthor", "codeauthor", "autosummary", "graphviz", "inheritance-diagram", "digraph",
    "plot", "testsetup", "testcleanup", "cssclass", "meta", "raw", "contents", "todolist",
    "literalinclude-hidden", "spelling:word-list", "program", "c:namespace",
    "cpp:namespace",
)
PROSE = {
    "versionadded": "Added in version", "versionchanged": "Changed in version",
    "versionremoved": "Removed in version", "deprecated": "Deprecated since version",
    "seealso": "See also", "centered": "", "hlist": "", "glossary": "", "only": "",
    "ifconfig": "", "tab": "", "tabs": "", "tab-set": "", "tab-item": "", "group-tab": "",
    "code-tab": "", "card": "", "grid": "", "grid-item": "", "grid-item-card": "",
    "dropdown": "", "todo": "To do", "productionlist": "", "versionadded-since": "",
    "admonition-todo": "", "jinja": "", "container": "", "details": "",
}
SIGNATURES = (
    "function", "class", "method", "attribute", "data", "exception", "decorator",
    "decoratormethod", "classmethod", "staticmethod", "property", "type", "describe",
    "object", "option", "envvar", "confval", "setting", "cmdoption", "program-option",
    "role", "directive", "event", "term", "c:function", "c:macro", "c:type", "c:member",
    "c:var", "c:struct", "cpp:function", "cpp:class", "js:function", "js:class",
    "rst:directive", "rst:role", "rst:directive:option",
) + tuple(f"py:{kind}" for kind in (
    "function", "class", "method", "attribute", "data", "exception", "decorator",
    "classmethod", "staticmethod", "property", "type"))
SIGNATURE_ONLY = (
    "autofunction", "autoclass", "automethod", "autoattribute", "autodata", "automodule",
    "autoexception", "autodecorator", "autoproperty", "autoclasstoc", "autoprogram",
    "click", "argparse", "autoflask", "autotypeddict",
)
CODE = (
    "code-block", "sourcecode", "doctest", "testcode", "testoutput", "ipython",
    "jupyter-execute", "code-cell", "prompt", "console", "parsed-literal-block",
    "highlight-block", "jinja-block",
)


def register() -> None:
    """Put the stand-ins and the safe include in docutils' directive table (idempotent)."""
    for name in DROPPED:
        directives.register_directive(name, _Dropped)
    for name, label in PROSE.items():
        directives.register_directive(name, type(f"_Prose_{name}", (_Prose,), {"label": label}))
    for name in SIGNATURES:
        directives.register_directive(name, _Signature)
    for name in SIGNATURE_ONLY:
        directives.register_directive(name, _SignatureOnly)
    for name in CODE:
        directives.register_directive(name, _Code)
    directives.register_directive("include", _Include)
    directives.register_directive("literalinclude", _LiteralInclude)
