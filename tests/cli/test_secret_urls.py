"""A password in a server address is sent, never shown: every echo of a bad `OLLAMA_HOST`,
`--ollama-url`, `--base-url` or config `server` hides it (the real `docai` process)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.docai_cli import DOCAI, docai_env
from tests.support.network import closed_port_url
from tests.support.sample_docs import write_docs

SECRET = "s3cr3tpw"
BAD_URLS = (
    f"http://u:{SECRET}@127.0.0.1:99999",  # port out of range
    f"u:{SECRET}@127.0.0.1:99999",  # OLLAMA_HOST's usual shape, without a scheme
    f"http://u:{SECRET}@[::1",  # an address httpx cannot parse
    f"ftp://u:{SECRET}@127.0.0.1",  # not http
)


def run(home: Path, env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DOCAI, *args], env={**docai_env(home, closed_port_url()), **env},
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_bad_server_address_is_named_without_its_password(tmp_path: Path, url: str) -> None:
    docs = write_docs(tmp_path / "docs")
    config = tmp_path / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True)
    runs = [
        run(tmp_path, {"OLLAMA_HOST": url}, "--docs", docs, "search", "pip"),
        run(tmp_path, {}, "--docs", docs, "--ollama-url", url, "search", "pip"),
        run(tmp_path, {}, "--docs", docs, "--backend", "openai", "--base-url", url,
            "search", "pip"),
    ]
    config.write_text(f'server = "{url}"\n', encoding="utf-8")
    env = {"OLLAMA_HOST": ""}
    runs += [run(tmp_path, env, "--docs", docs, "search", "pip"), run(tmp_path, env, "config")]
    for done in runs:
        assert SECRET not in done.stdout + done.stderr
    for done in runs[:4]:
        assert done.returncode == 2
        assert "docai: erro:" in done.stderr
        assert "u:***@" in done.stderr  # named, so the user sees which address is wrong
