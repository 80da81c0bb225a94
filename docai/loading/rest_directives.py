"""Sphinx's directives as docutils stand-ins, and an `include` kept inside the docs folder.

Plain docutils knows none of Sphinx's directives (`toctree`, `versionadded`, `code-block`
with its options, `autofunction`, the Python domain's `function`/`class`...): each would
become an error message holding the directive's raw source. Sphinx itself is far too heavy
to run per file (an application, a build environment, extensions), so these stand-ins give
each directive the text its HTML page shows, and nothing else:
- prose directives (`versionadded`, `seealso`, `deprecated`, `only`, `tab`...) keep their
  title line and their body, parsed as reST;
- version notes keep their version and text (written on the directive's line or the next);
- any other directive, known or not (`function`, `confval`, the Python docs' `opcode`...),
  is an object description: its arguments as a signature line, `:type:` and `:default:` as
  Sphinx shows them, and its body parsed as reST;
- Sphinx's `auto*` directives (whose text lives in code docai never imports) are dropped,
  with a note that API pages need the built HTML;
- code directives (`code-block`, `sourcecode`, `doctest`...) keep their code;
- navigation and build directives (`toctree`, `index`, `highlight`, `currentmodule`...)
  are dropped.
Any option is accepted (a stand-in does not know every extension's options).

docutils keeps its directives in one table per process: registering the stand-ins there
once (`register`) is how Sphinx itself extends it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.parsers.rst.directives import misc
from docutils.statemachine import StringList

from docai import messages
from docai.loading.names import display_name
from docai.loading.reading import Unreadable, read_text

# Includes nested deeper than this (or in a cycle, which reaches it) are refused.
MAX_INCLUDE_DEPTH = 8
# An include larger than this is refused (the parse time limit covers the main file only).
MAX_INCLUDE_BYTES = 2 * 1024 * 1024
# Includes read for one page at most (a page including one file many times, each including
# more, would otherwise grow exponentially within the depth limit).
MAX_INCLUDES = 200


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
    joiner = ": "  # "Availability: Unix."; a version note reads "Added in version 3.2"

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        body = self.body()
        heading = self.joiner.join(part for part in (self.label, self.argument_line()) if part)
        if heading:  # its roles read as in any paragraph (`.. seealso:: :pep:`539``)
            shown, _ = self.state.inline_text(heading + (":" if body else ""), self.lineno)
            container += self.placed(nodes.paragraph("", "", *shown))
        self.parse_body(body, container)
        return [container]

    def argument_line(self) -> str:
        return " ".join(" ".join(self.arguments).split())

    def placed(self, paragraph: nodes.paragraph, below: int = 0) -> nodes.paragraph:
        """`paragraph` cited by the directive's line (`below` lines under it), as the
        paragraphs docutils parses are by theirs."""
        paragraph.source, line = self.state_machine.get_source_and_line(self.lineno)
        paragraph.line = line + below if line is not None else None
        return paragraph

    def body(self) -> StringList:
        return self.content

    def parse_body(self, body: StringList, container: nodes.Element) -> None:
        if body:
            self.state.nested_parse(body, self.content_offset, container)


class _Version(_Prose):
    """`.. versionchanged:: 1.0 text`: the version on the title line; the text after it,
    on that line or the ones below, is the note's first paragraph (as Sphinx reads it)."""

    joiner = " "

    def argument_line(self) -> str:
        return " ".join(self.arguments).split(maxsplit=1)[0] if self.arguments else ""

    def body(self) -> StringList:
        words = " ".join(self.arguments).split(maxsplit=1)
        if len(words) < 2:
            return self.content
        first = StringList([words[1]], source=self.content.source(0) if self.content else "")
        return first + StringList([""]) + self.content if self.content else first


class _Signature(_Prose):
    """An object description (`.. function:: name(args)`, any directive not known
    otherwise): each signature on its line, `:type:`/`:default:` as fields, then its body.

    As Sphinx shows them: a line ending in a backslash goes on on the next; a Python
    object outside any other (`.. function:: run(args)` after `.. module:: subprocess`)
    is named with its module (`subprocess.run(args)`), unless its name says its own
    prefix (`Popen.poll()`); a decorator with its `@`."""

    SHOWN_OPTIONS: ClassVar[tuple[str, ...]] = ("type", "default")
    optional_arguments = 1  # the whole argument text, its line ends kept: a line a signature

    def run(self) -> list[nodes.Node]:
        context = self.state.document.settings.docai_context
        container = nodes.container()
        kind = self.name.removeprefix("py:")
        module = context.module if kind in PYTHON_OBJECTS and not context.objects else ""
        lines = " ".join(self.arguments).split("\n")
        for number, signature in enumerate(_CONTINUED.sub("", "\n".join(lines)).split("\n")):
            if signature.strip():
                shown = nodes.paragraph(text=_named(" ".join(signature.split()), module, kind))
                container += self.placed(shown, _signature_line(lines, number))
        shown = [(name, self.options[name]) for name in self.SHOWN_OPTIONS
                 if isinstance(self.options.get(name), str) and self.options[name].strip()]
        if shown:
            fields = StringList([f":{name.capitalize()}: {value}" for name, value in shown])
            self.state.nested_parse(fields, self.content_offset, container)
        context.objects += 1
        try:
            self.parse_body(self.content, container)
        finally:
            context.objects -= 1
        return [container]


class _Module(_Dropped):
    """`.. module:: name` / `.. currentmodule:: name`: no text, the module later object
    descriptions are named with (`None` for none)."""

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0].strip() if self.arguments else ""
        self.state.document.settings.docai_context.module = "" if name == "None" else name
        return []


# The Python domain's object directives (the ones Sphinx names with their module).
PYTHON_OBJECTS = frozenset((
    "function", "class", "exception", "data", "decorator", "coroutinefunction",
    "method", "classmethod", "staticmethod", "attribute", "property", "decoratormethod",
    "coroutinemethod", "abstractmethod", "type",
))
_CONTINUED = re.compile(r"\\\n")
_PLAIN_NAME = re.compile(r"[A-Za-z_]\w*(?=\(|\[|$| )")


def _signature_line(lines: list[str], number: int) -> int:
    """How many lines below the directive the `number`th signature starts (the lines
    before it ending in a backslash were one signature each with their next)."""
    signature = below = 0
    while signature < number and below < len(lines):
        if not lines[below].endswith("\\"):
            signature += 1
        below += 1
    return below


def _named(signature: str, module: str, kind: str) -> str:
    """`signature` as Sphinx heads it: the module before an undotted name, `@` before a
    decorator's."""
    if module and _PLAIN_NAME.match(signature):
        signature = f"{module}.{signature}"
    return "@" + signature if kind in ("decorator", "decoratormethod") else signature


class _AutoDoc(_Dropped):
    """Sphinx's `auto*` directives: their text is a docstring in code docai never imports;
    the page gets one note that its API reference is in the built HTML."""

    def run(self) -> list[nodes.Node]:
        context = self.state.document.settings.docai_context
        if messages.LOAD_NOTE_AUTODOC not in context.notes:
            context.notes.append(messages.LOAD_NOTE_AUTODOC)
        return []


class _Code(Directive):
    """Code shown as code (`code-block`, `sourcecode`, `doctest`, `testcode`...)."""

    optional_arguments = 99
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict[str, Any]] = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        if not code.strip():
            return []
        block = nodes.literal_block(code, code)
        block.source, line = self.state_machine.get_source_and_line(self.content_offset)
        block.line = line + 1 if line is not None else None  # the code's first line
        return [block]


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
        try:
            resolved = target.resolve()
            inside = resolved.is_relative_to(context.root.resolve())
        except (OSError, RuntimeError, ValueError):
            inside = False
        if not inside:
            context.notes.append(messages.LOAD_NOTE_INCLUDE_OUTSIDE.format(target=shown))
            return []
        if context.depth >= MAX_INCLUDE_DEPTH or resolved in context.reading:
            context.notes.append(messages.LOAD_NOTE_INCLUDE_TOO_DEEP.format(target=shown))
            return []
        if context.includes >= MAX_INCLUDES:
            context.notes.append(messages.LOAD_NOTE_INCLUDES_TOO_MANY.format(limit=MAX_INCLUDES))
            return []
        if not resolved.is_file():
            reason = (messages.LOAD_INCLUDE_FOLDER if resolved.is_dir()
                      else messages.LOAD_INCLUDE_NOT_FOUND)
            context.notes.append(messages.LOAD_NOTE_INCLUDE_MISSING.format(target=shown,
                                                                           reason=reason))
            return []
        context.includes += 1
        read = read_text(resolved, max_bytes=MAX_INCLUDE_BYTES)
        if isinstance(read, Unreadable):
            context.notes.append(
                messages.LOAD_NOTE_INCLUDE_MISSING.format(target=shown, reason=read.reason))
            return []
        text = _between(read.text, self.options.get("start-after"), self.options.get("end-before"))
        if self.literal or "literal" in self.options or "code" in self.options:
            return [nodes.literal_block(text, text)] if text.strip() else []
        context.depth += 1
        context.reading.append(resolved)
        try:
            container = nodes.container()
            lines = StringList(text.splitlines(), source=str(resolved))
            self.state.nested_parse(lines, 0, container, match_titles=True)
        finally:
            context.depth -= 1
            context.reading.pop()
        return container.children


class _LiteralInclude(_Include):
    literal = True


def _between(text: str, after: str | None, before: str | None) -> str:
    if after and after in text:
        text = text.split(after, 1)[1]
    if before and before in text:
        text = text.split(before, 1)[0]
    return text


MODULES = ("module", "currentmodule", "py:module", "py:currentmodule")
DROPPED = (
    "toctree", "index", "highlight", "tabularcolumns", "default-role", "default-domain",
    "sectionauthor", "moduleauthor", "codeauthor", "autosummary", "graphviz",
    "inheritance-diagram", "digraph", "plot", "testsetup", "testcleanup", "cssclass", "meta",
    "raw", "contents", "todolist",
    "literalinclude-hidden", "spelling:word-list", "program", "c:namespace",
    "cpp:namespace", "audit-event", "audit-event-table",
)
VERSIONS = {
    "versionadded": "Added in version", "versionchanged": "Changed in version",
    "versionremoved": "Removed in version", "deprecated": "Deprecated since version",
    "deprecated-removed": "Deprecated since version",
}
PROSE = {
    "availability": "Availability", "impl-detail": "CPython implementation detail",
    "seealso": "See also", "centered": "", "hlist": "", "glossary": "", "only": "",
    "ifconfig": "", "tab": "", "tabs": "", "tab-set": "", "tab-item": "", "group-tab": "",
    "code-tab": "", "card": "", "grid": "", "grid-item": "", "grid-item-card": "",
    "dropdown": "", "todo": "To do", "productionlist": "", "versionadded-since": "",
    "admonition-todo": "", "jinja": "", "container": "", "details": "",
}
AUTODOC = (
    "autofunction", "autoclass", "automethod", "autoattribute", "autodata", "automodule",
    "autoexception", "autodecorator", "autoproperty", "autoclasstoc", "autoprogram",
    "click", "argparse", "autoflask", "autotypeddict",
)
CODE = (
    "code-block", "sourcecode", "doctest", "testcode", "testoutput", "ipython",
    "jupyter-execute", "code-cell", "prompt", "console", "parsed-literal-block",
    "highlight-block", "jinja-block", "click:example", "click:run", "runblock",
    "command-output", "exec", "program-output",
)


# A directive name as Sphinx and its extensions write them (`function`, `py:method`,
# `click:example`): any such name docutils does not know is read as an object description.
_DIRECTIVE_NAME = re.compile(r"[A-Za-z][\w.+-]*(?::[\w.+-]+)*")


def _any_directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
    """docutils' directive look-up, with every unknown name an object description."""
    found, found_messages = _DOCUTILS_LOOKUP(name, language, document)
    if found is None and _DIRECTIVE_NAME.fullmatch(name):
        return _Signature, []
    return found, found_messages


_DOCUTILS_LOOKUP = directives.directive


def register() -> None:
    """Put the stand-ins and the safe include in docutils' directive table, and the
    look-up that reads unknown directives as object descriptions (idempotent)."""
    directives.directive = _any_directive
    for name in DROPPED:
        directives.register_directive(name, _Dropped)
    for name, label in PROSE.items():
        directives.register_directive(name, type(f"_Prose_{name}", (_Prose,), {"label": label}))
    for name, label in VERSIONS.items():
        directives.register_directive(name, type(f"_Version_{name}", (_Version,),
                                                 {"label": label}))
    for name in AUTODOC:
        directives.register_directive(name, _AutoDoc)
    for name in MODULES:
        directives.register_directive(name, _Module)
    # Sphinx's default domain takes `class` for Python classes; docutils' own `class`
    # directive (a class name for the next element) is `rst-class` there.
    directives.register_directive("rst-class", misc.Class)
    directives.register_directive("class", _Signature)
    for name in CODE:
        directives.register_directive(name, _Code)
    directives.register_directive("include", _Include)
    directives.register_directive("literalinclude", _LiteralInclude)
