"""The Docusaurus twin: the tutorial npm's `create-docusaurus` ships as MDX, and the same
pages as the HTML Docusaurus builds from them.

No registry ships the built HTML, so it is built here: the pinned template is created
(`npx create-docusaurus`), installed (`npm install`, about 370 MB under a scratch folder)
and built (`npm run build`), a few minutes. The HTML form holds the pages that have an MDX
source (`docs/x/y.mdx` is `x/y/index.html`), not the category listings the build adds.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import partial
from pathlib import Path

VERSION = "3.10.2"


def html_page(mdx: str) -> str:
    """The built page of an MDX source, both relative to their form's folder."""
    return mdx.removesuffix(".mdx") + "/index.html"


def mdx_source(html: str) -> str:
    """The MDX source of a built page (a gold source written on the HTML form)."""
    return html.removesuffix("/index.html") + ".mdx"


def build_forms(target: Path) -> None:
    """`target`/mdx (the template's docs folder) and `target`/html (its built pages)."""
    with tempfile.TemporaryDirectory(prefix="docai-docusaurus-") as work:
        run = partial(subprocess.run, check=True, stdin=subprocess.DEVNULL)  # never a prompt
        run(["npx", "--yes", f"create-docusaurus@{VERSION}", "site", "classic", "--javascript",
             "--skip-install"], cwd=work)
        site = Path(work) / "site"
        run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=site)
        run(["npm", "run", "build"], cwd=site)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(site / "docs", target / "mdx")
        for source in sorted((site / "docs").rglob("*.mdx")):
            relative = source.relative_to(site / "docs").as_posix()
            page = target / "html" / html_page(relative)
            page.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(site / "build" / "docs" / html_page(relative), page)
