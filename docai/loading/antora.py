"""Antora's conventions around AsciiDoc pages (asciidoctor's documentation, many projects'
sites): a component's `antora.yml` sets attributes for all its pages
(`asciidoc: attributes: {release-version: 2.5}`), pages include resources by ID
(`include::partial$intro.adoc[]` is `modules/<module>/partials/intro.adoc`, `example$`
`examples/`, `page$` `pages/`, `other-module:partial$x.adoc` another module's), and
`nav.adoc` files are the site's menus, not pages.

`antora.yml` is read as the small YAML it is (keys, nested maps by indentation, scalar
values), without a YAML library: only `asciidoc.attributes` is used, and a file over
256 KB or any line docai does not follow leaves the attributes it found so far.
"""

from __future__ import annotations

import re
from pathlib import Path

from docai.loading.reading import Unreadable, read_text

_MAX_DESCRIPTOR_BYTES = 256 * 1024
_ENTRY = re.compile(r"(?P<indent>[ ]*)(?P<key>[\w.-]+)[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*")
_RESOURCE = re.compile(r"(?:(?P<module>[\w.-]+):)?(?P<family>partial|example|page|image|"
                       r"attachment)\$(?P<path>.+)")
FAMILY_FOLDERS = {"partial": "partials", "example": "examples", "page": "pages",
                  "image": "images", "attachment": "attachments"}


def component_folder(root: Path, path: Path) -> Path | None:
    """The folder of the `antora.yml` above `path` (inside `root`), if any."""
    folder = path.parent
    while True:
        if (folder / "antora.yml").is_file():
            return folder
        if folder == root or folder.parent == folder or not folder.is_relative_to(root):
            return None
        folder = folder.parent


def component_attributes(root: Path, path: Path) -> dict[str, str]:
    """The attributes `antora.yml` sets for the component `path` belongs to."""
    component = component_folder(root, path)
    if component is None:
        return {}
    read = read_text(component / "antora.yml", max_bytes=_MAX_DESCRIPTOR_BYTES)
    return {} if isinstance(read, Unreadable) else descriptor_attributes(read.text)


def descriptor_attributes(text: str) -> dict[str, str]:
    """`asciidoc.attributes` of an `antora.yml`: name -> value (`false` unsets, a trailing
    `@` only marks a value pages may override)."""
    attributes: dict[str, str] = {}
    path: list[tuple[int, str]] = []
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry = _ENTRY.fullmatch(line)
        if entry is None:
            continue
        indent = len(entry["indent"])
        while path and path[-1][0] >= indent:
            path.pop()
        keys = [key for _, key in path]
        if keys == ["asciidoc", "attributes"] and entry["value"] is not None:
            value = entry["value"].strip().strip("'\"").removesuffix("@")
            if value not in ("false", "~", "null"):
                attributes[entry["key"]] = "" if value == "true" else value
        path.append((indent, entry["key"]))
    return attributes


def resource_file(target: str, including: Path, root: Path) -> Path | None:
    """The file a resource ID names (`partial$x.adoc`, `mod:example$y.rb`), from the page
    `including` it; None when `target` is no resource ID or has no module above it."""
    resource = _RESOURCE.fullmatch(target)
    if resource is None:
        return None
    module = next((folder for folder in including.parents
                   if folder.parent.name == "modules" and folder.is_relative_to(root)), None)
    if module is None:
        return None
    if resource["module"]:
        module = module.parent / resource["module"]
    return module / FAMILY_FOLDERS[resource["family"]] / resource["path"]


def is_navigation(root: Path, path: Path) -> bool:
    """A component's `nav.adoc` (its menu of links to the pages)."""
    return path.name == "nav.adoc" and component_folder(root, path) is not None
