"""Man pages (man and mdoc macros, gzipped as Debian installs them) and GNU info manuals
(nodes, split parts, index markers) read as `man` and `info` show them; a `.gz` of any
readable format read as that format; a gzip bomb, a link-only page and a compressed
archive skipped with their reasons, through the real `docai index` too."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

from docai import messages
from docai.loading import load_file
from docai.records import Location
from tests.support.docai_cli import DOCAI, docai_env

MAN_PAGE = r""".\" Comment line
.de XX
Macro body never shown
..
.ie \n(.g \{\
.  ds Aq \(aq
.\}
.TH TARX 1 "2024" "tarx 1.0"
.SH NAME
tarx \- an archiving utility
.SH SYNOPSIS
.B tarx
[\fIOPTION\fR...] [\fIFILE\fR]...
.SH OPTIONS
.TP
\fB\-t\fR, \fB\-\-list\fR
List the contents of an archive\(em members only.
.TP
.BR \-x ", " \-\-extract
Extract files from an archive. Don\*(Aqt overwrite.
.SS Compression
.IP "\-z" 4
Filter the archive through \fBgzip\fP(1).
.TP
.RI r\  filename
Append text read from
.IR filename .
.SH "SEE ALSO"
.BR gzip (1)
"""

MDOC_PAGE = r""".Dd March 1, 2024
.Dt LSX 1
.Os
.Sh NAME
.Nm lsx
.Nd list directory contents
.Sh SYNOPSIS
.Nm
.Op Fl la
.Ar file ...
.Sh DESCRIPTION
.Bl -tag -width Ds
.It Fl l
List in long format.
.It Fl a
Include entries whose names begin with a dot.
.El
.Sh EXIT STATUS
.Ex -std
.Sh SEE ALSO
.Xr ls 1
"""

INFO_PART = (
    "This is demo.info, produced by makeinfo.\n\n"
    "\x1f\nFile: demo.info,  Node: Top,  Next: Invoking,  Up: (dir)\n\nDemo\n****\n\n"
    "* Menu:\n\n* Invoking::          How to run it.\n\n"
    "\x1f\nFile: demo.info,  Node: Invoking,  Next: Exit Status,  Prev: Top,  Up: Top\n\n"
    "2 Invoking\n**********\n\nRun demo with files.\n\n"
    "\x1f\nFile: demo.info,  Node: Exit Status,  Prev: Invoking,  Up: Invoking\n\n"
    "2.1 Exit Status\n===============\n\n"
    "Normally the exit status is 0 if a line is selected.\n\n"
    "\x00\x08[index\x00\x08]\n* Menu:\n\n* exit status:       Exit Status.   (line 6)\n\n"
)


def write(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_gzipped_man_page_reads_as_man_shows_it(tmp_path: Path) -> None:
    path = write(tmp_path, "man1/tarx.1.gz", gzip.compress(MAN_PAGE.encode()))
    document = load_file(tmp_path, path).document
    assert document is not None and document.title == "TARX(1)"
    by_path = {section.heading_path: section for section in document.sections}
    options = by_path[("TARX(1)", "OPTIONS")]
    assert "-t, --list\nList the contents of an archive— members only." in options.text
    assert "-x, --extract\nExtract files from an archive. Don't overwrite." in options.text
    assert options.location_at(options.text.index("-x, --extract")) == Location("line", 19)
    compression = by_path[("TARX(1)", "OPTIONS", "Compression")].text
    assert "Filter the archive through gzip(1)." in compression
    assert "r filename\nAppend text read from filename." in compression  # `\ ` joins
    assert by_path[("TARX(1)", "NAME")].text == "tarx - an archiving utility"
    text = "\n".join(section.text for section in document.sections)
    for hidden in ("Macro body", "\\f", "\\-", "Comment", ".TP", "Aq"):
        assert hidden not in text, hidden


def test_a_page_linked_to_another_is_read_once_by_its_own_name(tmp_path: Path) -> None:
    """Debian installs aliases as symlinks (`egrep.1.gz` -> `grep.1.gz`): the alias is
    skipped naming the page, so a passage is cited by the page the user knows; a link to
    a page outside the folder is that page's only copy here, and is read."""
    docs = tmp_path / "docs"
    write(docs, "man1/tarx.1.gz", gzip.compress(MAN_PAGE.encode()))
    (docs / "man1/untarx.1.gz").symlink_to("tarx.1.gz")
    outside = write(tmp_path, "elsewhere/lsx.1", MDOC_PAGE.encode())
    (docs / "man1/lsx.1").symlink_to(outside)
    alias = load_file(docs, docs / "man1/untarx.1.gz")
    assert alias.document is None and alias.skipped is not None
    assert alias.skipped.reason == messages.LOAD_SKIP_MAN_LINK.format(target="man1/tarx.1.gz")
    page = load_file(docs, docs / "man1/tarx.1.gz").document
    assert page is not None and page.title == "TARX(1)"
    linked_out = load_file(docs, docs / "man1/lsx.1", follow_links=True).document
    assert linked_out is not None and linked_out.title == "lsx(1)"


def test_an_mdoc_page_reads_its_callable_macros(tmp_path: Path) -> None:
    document = load_file(tmp_path, write(tmp_path, "lsx.1", MDOC_PAGE.encode())).document
    assert document is not None and document.title == "lsx(1)"
    text = "\n".join(section.text for section in document.sections)
    for shown in ("lsx — list directory contents", "lsx [-la] file ...", "-l\nList in long",
                  "-a\nInclude entries", "exits 0 on success", "ls(1)"):
        assert shown in text, shown


def test_an_info_manual_reads_node_by_node(tmp_path: Path) -> None:
    path = write(tmp_path, "info/demo.info-1.gz", gzip.compress(INFO_PART.encode()))
    document = load_file(tmp_path, path).document
    assert document is not None
    by_path = {section.heading_path: section for section in document.sections}
    status = by_path[("demo", "Invoking", "Exit Status")]
    assert "the exit status is 0 if a line is selected" in status.text
    assert status.location == Location("line", 22)  # its header line
    text = "\n".join(section.text for section in document.sections)
    for hidden in ("* Menu:", "Invoking::", "====", "makeinfo", "index"):
        assert hidden not in text, hidden


def test_compressed_files_read_as_their_format_or_skipped_with_reasons(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "guide.txt.gz", gzip.compress(b"Plain guide words about widgets.\n"))
    write(docs, "link.1.gz", gzip.compress(b".so man1/tarx.1\n"))
    write(docs, "backup.tar.gz", gzip.compress(b"not read"))
    write(docs, "bomb.md.gz", gzip.compress(b"a" * (21 * 1024 * 1024)))
    write(docs, "cut.md.gz", gzip.compress(b"# Title\n\nwords " * 1000)[:-6])
    done = subprocess.run([DOCAI, "index", "--docs", str(docs)],
                          env=docai_env(tmp_path, "http://127.0.0.1:9"),
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    output = done.stdout
    assert "1 arquivo(s) indexado(s)" in output
    assert "link.1.gz: " + messages.LOAD_SKIP_MAN_LINK.format(target="man1/tarx.1") in output
    assert "backup.tar.gz: " + messages.LOAD_SKIP_GZ_UNSUPPORTED.format(suffix=".tar") in output
    assert "bomb.md.gz: descompactado passaria de" in output
    assert "cut.md.gz: " + messages.LOAD_SKIP_GZ_BROKEN.format(
        reason=messages.LOAD_GZ_TRUNCATED) in output


def test_a_gzip_of_many_empty_parts_and_a_page_of_20000_sections_stay_quick(
        tmp_path: Path) -> None:
    """Hostile inputs of the new readers: 200,000 gzip members (each a step of inflating)
    and a reST page of 20,000 labelled sections (labels are matched to titles in one pass)."""
    many = load_file(tmp_path, write(tmp_path, "parts.md.gz", gzip.compress(b"") * 200_000))
    assert many.skipped is not None and "partes comprimidas" in many.skipped.reason
    page = "".join(f".. _label-{n}:\n\nS{n}\n{'=' * (len(str(n)) + 1)}\n\nSee :ref:`label-{n}`.\n\n"
                   for n in range(2_000))
    document = load_file(tmp_path, write(tmp_path, "sections.rst", page.encode())).document
    assert document is not None and len(document.sections) == 2_000
    assert document.sections[-1].text == "See S1999."
