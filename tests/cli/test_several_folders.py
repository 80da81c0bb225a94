"""Several docs folders read as one collection (`--docs` repeated, a list in config.toml):
sources labelled by folder, each folder's own ignore rules and links, a change in one folder
re-reading only its file, and the mistakes a user can make naming them."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pexpect

from tests.support.docai_cli import DOCAI, InProcessDocai, docai_env
from tests.support.fake_ollama import FakeOllama
from tests.support.sample_docs import write_docs

PROMPT = "docai>"
PAGE = "# {title}\n\n## Uso\n\nO termo {term} aparece só nesta página.\n"


def search(docai: InProcessDocai, term: str, *docs: Path) -> list[str]:
    options = [part for folder in docs for part in ("--docs", folder)]
    code, out, err = docai("search", "--json", "--dense", "off", *options, term)
    assert code == 0, err
    return [hit["source"] for hit in json.loads(out)["results"]]


def test_two_folders_give_labelled_sources_and_a_change_rereads_only_its_file(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    api = write_docs(tmp_path / "api", {"guia.md": PAGE.format(title="API", term="alfazeta")})
    manual = write_docs(tmp_path / "manual", {
        "guia.md": PAGE.format(title="Manual", term="betazeta"),
        "cap1.md": PAGE.format(title="Capítulo", term="gamazeta"),
    })
    assert search(docai, "alfazeta", api, manual) == ["api/guia.md"]
    assert search(docai, "betazeta", api, manual) == ["manual/guia.md"]
    (manual / "cap1.md").write_text(PAGE.format(title="Capítulo", term="deltazeta"),
                                    encoding="utf-8")
    code, out, err = docai("index", "--docs", api, "--docs", manual)
    assert code == 0, err
    assert "0 novo(s), 1 alterado(s), 0 removido(s), 2 sem mudança" in out + err
    assert f"em {api}, {manual}:" in out + err
    assert search(docai, "deltazeta", api, manual) == ["manual/cap1.md"]
    code, out, err = docai("status", "--json", "--docs", api, "--docs", manual)
    assert code == 0, err
    status = json.loads(out)
    assert status["folders"] == [str(api), str(manual)]
    assert (status["files"], status["chunks"] > 0) == (3, True)
    assert search(docai, "alfazeta", api) == ["guia.md"]  # one folder alone: as before


def test_folders_of_the_same_name_are_told_apart_by_their_parent(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    first = write_docs(tmp_path / "v1" / "docs", {"a.md": PAGE.format(title="Um", term="alfazeta")})
    second = write_docs(tmp_path / "v2" / "docs",
                   {"a.md": PAGE.format(title="Dois", term="betazeta")})
    assert search(docai, "alfazeta", first, second) == ["v1-docs/a.md"]
    assert search(docai, "betazeta", first, second) == ["v2-docs/a.md"]


def test_each_folder_keeps_its_rules_and_its_links_stay_inside_the_folders(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    secret = write_docs(tmp_path / "privado",
                   {"chave.md": PAGE.format(title="Chave", term="zetasecreta")})
    api = write_docs(tmp_path / "api", {
        "guia.md": PAGE.format(title="API", term="alfazeta"),
        "gerado.md": PAGE.format(title="Gerado", term="gamazeta"),
        ".gitignore": "gerado.md\n",
    })
    manual = write_docs(tmp_path / "manual", {"cap.md": PAGE.format(title="Cap", term="betazeta")})
    (manual / "fora.md").symlink_to(secret / "chave.md")
    (manual / "da-api.md").symlink_to(api / "guia.md")  # into another folder of the collection
    assert search(docai, "gamazeta", api, manual) == []  # api's own .gitignore
    assert search(docai, "zetasecreta", api, manual) == []  # a link out of every folder
    code, out, err = docai("index", "--docs", api, "--docs", manual)
    assert code == 0, err
    assert "manual/fora.md" in out + err and str(secret) in out + err
    assert "da-api.md" not in out + err  # read: the same passage as api/guia.md, kept once
    assert search(docai, "alfazeta", api, manual) == ["api/guia.md"]


def test_a_list_in_the_config_file_and_the_mistakes_named(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    docai.use_env(tmp_path, "http://127.0.0.1:9")
    api = write_docs(tmp_path / "api", {"guia.md": PAGE.format(title="API", term="alfazeta")})
    manual = write_docs(tmp_path / "manual", {"cap.md": PAGE.format(title="Cap", term="betazeta")})
    config = tmp_path / "config" / "docai" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'docs = ["{api}", "{manual}"]\n', encoding="utf-8")
    code, out, err = docai("search", "--json", "--dense", "off", "betazeta")
    assert code == 0, err
    assert [hit["source"] for hit in json.loads(out)["results"]] == ["manual/cap.md"]
    code, _, err = docai("search", "--docs", api, "--docs", tmp_path / "nada", "x")
    assert code == 2 and str(tmp_path / "nada") in err and "não existe" in err
    code, _, err = docai("search", "--docs", tmp_path, "--docs", api, "x")
    assert code == 2 and f"a pasta {api} está dentro de {tmp_path}" in err
    config.write_text("docs = [1, 2]\n", encoding="utf-8")
    code, _, err = docai("search", "x")
    assert code == 2 and "uma lista deles" in err


def test_the_repl_cites_each_folder_by_its_label_and_follows_both(tmp_path: Path) -> None:
    api = write_docs(tmp_path / "api", {"guia.md": PAGE.format(title="API", term="alfazeta")})
    manual = write_docs(tmp_path / "manual", {"cap.md": PAGE.format(title="Cap", term="betazeta")})
    with FakeOllama(reply="Resposta [1].", think_shape="none") as fake:
        child = pexpect.spawn(DOCAI, ["--docs", str(api), "--docs", str(manual),
                                      "--dense", "off"],
                              env=docai_env(tmp_path, fake.url), encoding="utf-8",
                              timeout=60, dimensions=(40, 200))
        child.expect(f"de {api}, {manual}")
        child.expect(PROMPT)
        child.sendline("O que é betazeta?")
        child.expect(r"\[1\] manual/cap\.md:3 > Cap > Uso")
        child.expect(PROMPT)
        page = write_docs(api, {"novo.md": PAGE.format(title="Novo", term="deltazeta")}) / "novo.md"
        past = time.time() - 30
        os.utime(page, (past, past))
        child.sendline("O que é deltazeta?")
        child.expect(r"1 arquivo\(s\) atualizado\(s\)")
        child.expect(r"\[1\] api/novo\.md:3 > Novo > Uso")
        child.expect(PROMPT)
        child.sendline("/info")
        child.expect(r"Pastas \(uma coleção\): " + re.escape(f"{api}, {manual}"))
        child.expect(r"Arquivos indexados: 3 \(md 3\)")
        child.expect(PROMPT)
        child.sendline("sair")
        child.expect(pexpect.EOF)


def test_folders_whose_labels_would_collide_each_get_their_own(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    folders = [tmp_path / "mf" / parent / name
               for parent, name in (("p", "a"), ("q", "a"), ("r", "q-a"), ("s", "q-a-2"))]
    for number, folder in enumerate(folders):
        write_docs(folder, {f"nota{number}.md": f"# Nota {number}\n\npalavra{number} aqui.\n"})
    args = [part for folder in folders for part in ("--docs", folder)]
    done = docai("index", *args)
    assert done.returncode == 0, done.stderr
    sources = set()
    for number in range(4):
        sources.update(search(docai, f"palavra{number}", *folders))
    assert len({source.split("/")[0] for source in sources}) == 4, sources
    union = tmp_path / "cache" / "folders"
    assert not [p.name for p in union.iterdir() if p.name.startswith((".union-", ".stale-"))]


def test_a_collection_of_folders_is_logged_by_its_folders_and_found_by_each(
    docai: InProcessDocai, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    docai.use_env(tmp_path, fake_ollama.url)
    api = write_docs(tmp_path / "click" / "docs")
    manual = write_docs(tmp_path / "manual", {"extra.md": "# Extra\n\nNada aqui.\n"})
    asked = docai("ask", "Como instalo o docai com pip?", "--docs", api, "--docs", manual)
    assert asked.returncode == 0, asked.stderr
    [entry] = json.loads(docai("log", "--json").stdout)
    assert entry["docs"] == f"{api} + {manual}"
    found = docai("log", "--docs", api)
    assert found.returncode == 0 and "Como instalo o docai com pip?" in found.stdout
    assert f"{api} + {manual}" in found.stdout and "/folders/" not in found.stdout


def test_folders_with_nothing_to_read_are_named_as_given_not_by_the_cache(
    tmp_path: Path, docai: InProcessDocai
) -> None:
    """Several folders are read through one folder of the cache: the error must name the
    folders the user gave, and the command it suggests must take them."""
    first = write_docs(tmp_path / "a", {"capa.png": "x", "plano.key": "y"})
    second = write_docs(tmp_path / "b", {"vazio.md": "   \n"})
    cache = tmp_path / "cache"
    for command in (["index"], ["search", "qualquer"]):
        done = docai(*command, "--docs", first, "--docs", second, "--cache-dir", cache)
        assert done.returncode == 2
        assert str(first) in done.stderr and str(second) in done.stderr, done.stderr
        assert f"--docs {first} --docs {second}" in done.stderr
        assert str(cache / "folders") not in done.stderr
