"""Sphinx's own directives and roles read as the built page shows them: any directive's
arguments as a signature line and its body as reST (the Python domain, the Python docs'
`opcode`...), version notes whose text starts on the next line, `confval`'s type and
default, `:ref:` as its section's title; no docutils message, `.. role::` line or
`auto*` directive in any passage, and one note that API pages need the built HTML."""

from __future__ import annotations

from pathlib import Path

from docai import messages
from docai.loading import load_file

PAGE = """\
.. role:: code-py(code)
   :language: python

Config
======

.. _core-signals-list:

Core signals
------------

See :ref:`core-signals-list` and :option:`-x`.

.. versionchanged:: 1.0
   ``LOGGER_NAME`` was removed. See :doc:`/logging`.

.. function:: dumps(obj, *, sort_keys=False)

   Serialize *obj* to a **string**.

.. coroutinefunction:: sleep(delay)

   Block for *delay* seconds.

.. availability:: Unix.

.. confval:: html_static_path
   :type: :code-py:`list[str]`
   :default: ``[]``

   Paths that contain static files.

.. autofunction:: flask.json.dumps

.. opcode:: NOP

   Do nothing code.

:param x: uses :option:`-x` here
"""


def test_sphinx_directives_read_as_the_built_page(tmp_path: Path) -> None:
    (tmp_path / "config.rst").write_text(PAGE, encoding="utf-8")
    result = load_file(tmp_path, tmp_path / "config.rst")
    assert result.document is not None
    text = "\n".join(section.text for section in result.document.sections)
    for shown in ("See Core signals and -x.", "Changed in version 1.0:",
                  "LOGGER_NAME was removed. See logging.", "dumps(obj, *, sort_keys=False)",
                  "Serialize obj to a string.", "sleep(delay)", "Block for delay seconds.",
                  "Availability: Unix.", "Type: list[str]", "Default: []",
                  "Paths that contain static files.", "NOP", "Do nothing code.",
                  "param x: uses -x here"):
        assert shown in text, shown
    for hidden in ("code-py", ":ref:", "``", "*obj*", "**", "ERROR", "INFO", str(tmp_path),
                   "flask.json.dumps", ".. ", "::"):
        assert hidden not in text, hidden
    assert [notice.message for notice in result.notices] == [messages.LOAD_NOTE_AUTODOC]


MODULE_PAGE = """\
subprocess
==========

.. module:: subprocess

.. function:: run(args, *, stdin=None, input=None, stdout=None, stderr=None,\\
                  capture_output=False, timeout=None)

   Run the command described by *args*.

.. class:: Popen(args)

   .. attribute:: returncode

      The child's exit status.

.. method:: Popen.poll()

   Check if the child process has terminated.

.. decorator:: contextmanager

   A decorator.

.. currentmodule:: None

.. function:: print(*objects)

   A builtin.
"""


def test_python_objects_are_headed_as_sphinx_heads_them(tmp_path: Path) -> None:
    """A signature continued with a backslash is one line; a module-level object is named
    with its module (`subprocess.run`, which a question names), a nested or dotted one as
    written; each signature cites its directive's line."""
    (tmp_path / "subprocess.rst").write_text(MODULE_PAGE, encoding="utf-8")
    document = load_file(tmp_path, tmp_path / "subprocess.rst").document
    assert document is not None
    (section,) = document.sections
    lines = section.text.split("\n\n")
    for shown in ("subprocess.run(args, *, stdin=None, input=None, stdout=None, stderr=None,"
                  " capture_output=False, timeout=None)", "subprocess.Popen(args)",
                  "returncode", "Popen.poll()", "@subprocess.contextmanager", "print(*objects)"):
        assert shown in lines, shown
    assert "\\" not in section.text
    page = MODULE_PAGE.split("\n")
    for signature, name in (("subprocess.run(", ".. function:: run("),
                            ("Popen.poll()", ".. method:: Popen.poll()"),
                            ("print(", ".. function:: print(")):
        cited = section.location_at(section.text.index(signature))
        assert cited is not None and page[cited.number - 1].startswith(name), signature
