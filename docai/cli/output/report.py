"""Turn a BuildReport into the pt-BR lines the commands print (pure: no I/O here).

File names come from the user's disk: each is shown with `display_name` (a newline or an
escape sequence in a name becomes a visible escape), and any other outside text (paths,
reasons) through `one_line`, so no line of the list can be broken or hijacked."""

from __future__ import annotations

import shlex
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from docai import messages
from docai.cli.terminal_text import one_line
from docai.loading import display_name
from docai.loading.discover import UNREAD_BUILD, UNREAD_FORMAT, UNREAD_HIDDEN, Unread
from docai.redaction import redact_url

if TYPE_CHECKING:  # imported for its type only: the build stage is heavy to import
    from docai.index.build_report import BuildReport

# How many kinds of file the line of `docai index` about unread files names (a folder like
# /usr/share/doc holds a hundred; the error for a folder with none to read names all).
UNREAD_KINDS_SHOWN = 12
_UNREAD_FOLDERS = {UNREAD_HIDDEN: messages.INDEX_UNREAD_HIDDEN,
                   UNREAD_BUILD: messages.INDEX_UNREAD_BUILD}

def status_lines(report: BuildReport) -> list[str]:
    """One line each for a discarded cache and an unsaved cache."""
    return [one_line(line) for line in (report.cache_status, report.cache_warning) if line]


def nothing_to_search(report: BuildReport, docs: Path | tuple[Path, ...]) -> str:
    """Why an index without chunks is of no use: no supported file at all (naming the
    kinds of file the folder does hold, most common first), or none with text. `docs`:
    the folder, or the folders read as one, as the user named them."""
    shown = one_line(", ".join(str(folder) for folder in docs)
                     if isinstance(docs, tuple) else str(docs))
    if report.skipped:
        return messages.NO_TEXT_IN_DOCUMENTS.format(
            count=len(report.skipped), path=shown, quoted=_quoted(docs))
    kinds = suffix_counts(Counter(item.suffix for item in report.unread
                                  if item.kind == UNREAD_FORMAT))
    found = messages.NO_DOCUMENTS_FOUND.format(kinds=kinds) if kinds else ""
    return messages.NO_DOCUMENTS.format(path=shown, found=found)


def suffix_counts(counts: Counter[str], most: int | None = None) -> str:
    """Every suffix of `counts` with its count, most common first ("3 .odp, 2 .png"), and
    the suffixes seen once together after them ("1 de cada: .key, .xcf, sem extensão"):
    a folder of forty kinds stays one readable line, none of them left out. With `most`,
    only that many kinds, and how many more there are (`docai status` names each)."""
    def shown(suffix: str) -> str:
        return one_line(suffix) or messages.NO_DOCUMENTS_NO_SUFFIX

    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0] == "", item[0]))
    if most is not None and len(ranked) > most:
        return messages.INDEX_UNREAD_MORE_KINDS.format(
            kinds=suffix_counts(Counter(dict(ranked[:most]))), more=len(ranked) - most)
    counted = ", ".join(messages.NO_DOCUMENTS_KIND.format(count=count, suffix=shown(suffix))
                        for suffix, count in ranked if count > 1)
    singles = [shown(suffix) for suffix, count in ranked if count == 1]
    once = (messages.NO_DOCUMENTS_ONE_EACH.format(suffixes=", ".join(singles))
            if len(singles) > 1 else
            messages.NO_DOCUMENTS_KIND.format(count=1, suffix=singles[0]) if singles else "")
    return "; ".join(part for part in (counted, once) if part)


def unread_line(unread: tuple[Unread, ...]) -> str | None:
    """How many files and folders `docai index` did not read by design, by kind (the
    formats with their counts, hidden and build folders); those the ignore rules left out
    have their own line. None when there are none."""
    formats = Counter(item.suffix for item in unread if item.kind == UNREAD_FORMAT)
    folders = Counter(item.kind for item in unread if item.kind in _UNREAD_FOLDERS)
    kinds = [suffix_counts(formats, UNREAD_KINDS_SHOWN)] if formats else []
    kinds += [_UNREAD_FOLDERS[kind].format(count=count) for kind, count in folders.items()]
    if not kinds:
        return None
    return messages.INDEX_UNREAD.format(count=sum(formats.values()) + sum(folders.values()),
                                        kinds="; ".join(kinds))


def summary_lines(report: BuildReport, docs_dir: Path | str, cache_dir: Path) -> list[str]:
    """The full account `docai index` gives: counts, changes, what was not read by design
    (counted by kind), skipped files, notices, times."""
    timings = report.timings
    lines = [
        messages.INDEX_SUMMARY.format(
            files=report.files, path=one_line(str(docs_dir)), sections=report.sections,
            chunks=report.chunks, tokens=report.tokens,
        ),
        messages.INDEX_CHANGES.format(
            new=report.new, changed=report.changed, removed=report.removed,
            unchanged=report.unchanged,
        ),
    ]
    if report.ignored:
        lines.append(messages.INDEX_IGNORED.format(count=report.ignored))
    if (counted := unread_line(report.unread)) is not None:
        lines.append(counted)
    if report.skipped:
        lines.append(messages.INDEX_SKIPPED_HEADER.format(count=len(report.skipped)))
        lines += [
            messages.INDEX_SKIPPED_LINE.format(
                source=display_name(item.source), reason=one_line(item.reason)
            )
            for item in report.skipped
        ]
    if report.notices:
        lines.append(messages.INDEX_NOTICES_HEADER.format(count=len(report.notices)))
        lines += [
            messages.INDEX_NOTICE_LINE.format(
                source=display_name(item.source), message=one_line(item.message)
            )
            for item in report.notices
        ]
    lines.append(
        messages.INDEX_TIMINGS.format(
            scan=timings.scan, parse=timings.parse, index=timings.index, save=timings.save,
            total=timings.scan + timings.parse + timings.index + timings.save,
        )
    )
    lines.append(messages.INDEX_CACHE_AT.format(path=one_line(str(cache_dir))))
    return lines


def update_line(report: BuildReport) -> str | None:
    """A short note when files were (re)read, for commands that are not about the index.

    None when nothing was indexed: "the folder has no documents" already says it all, and
    counting skipped files as "new" would contradict it."""
    if report.chunks == 0 or not (report.new or report.changed or report.removed):
        return None
    if not (report.unchanged or report.changed or report.removed or report.cache_status):
        return None  # a first build: "docai pronto: N arquivo(s)" or the answer says enough
    return messages.SEARCH_UPDATED.format(
        new=report.new, changed=report.changed, removed=report.removed
    )


def index_command(docs_dir: Path | tuple[Path, ...], cache_dir: Path | None) -> str:
    """The `docai index` command that lists this index's skipped files: with the cache
    folder in use when the user chose one, or it would build a second index elsewhere."""
    if cache_dir is None:
        return messages.INDEX_COMMAND.format(docs=_quoted(docs_dir))
    return messages.INDEX_COMMAND_CACHE.format(docs=_quoted(docs_dir), cache=_quoted(cache_dir))


def store_index_command(store: str, collection: str, docs_dir: Path | None) -> str:
    """The `docai index` command that updates a shared collection (password hidden)."""
    docs = _quoted(docs_dir) if docs_dir is not None else "PASTA"
    return messages.INDEX_COMMAND_STORE.format(
        docs=docs, store=shlex.quote(one_line(redact_url(store))),
        collection=shlex.quote(one_line(collection)))


def print_index_notes(
    report: BuildReport, docs_dir: Path | tuple[Path, ...], err: TextIO,
    cache_dir: Path | None = None,
) -> None:
    """What the user should know after opening the index: a rebuilt or unsaved cache, files
    re-read, files skipped (`docai index` lists why)."""
    notes = status_lines(report)
    if (update := update_line(report)) is not None:
        notes.append(update)
    # Said when files were read (the news), not again at every command while the same files
    # stay skipped (a /salvar transcript in the docs folder, say).
    if report.skipped and (report.new or report.changed or report.cache_status):
        notes.append(messages.SEARCH_SKIPPED.format(
            count=len(report.skipped), command=index_command(docs_dir, cache_dir)))
    for line in notes:
        err.write(line + "\n")
    err.flush()


def _quoted(path: Path | tuple[Path, ...]) -> str:
    """`path` as it can be pasted into a shell command; several folders (read as one) each
    after its own `--docs`."""
    if isinstance(path, tuple):
        return " --docs ".join(_quoted(folder) for folder in path)
    return shlex.quote(one_line(str(path)))
