"""Tests of fortunes.py (fortune cookies back-translated into English). Builds tiny .debs with
dpkg-deb and stands a script in for attn.

    /usr/bin/python3 -m pytest tools/data/test_fortunes.py
"""
import json
import os
import stat
from pathlib import Path

import pytest

from tools.data import fortunes
from tools.data.test_extra import make_deb

COOKIES = ("Donde hay concordia\nsiempre hay victoria.\n%\nLa amistad es una igualdad armónica. "
           "Nadie lo duda.\n\t\t-- Pitágoras\n%\n\x1b[33mEl que escribe en el alma de un niño escribe "
           "para siempre.\x1b[m\n%\nHola.\n%\nDonde hay concordia siempre hay victoria.\n%\n")


def fake_attn(folder, body):
    """An executable standing in for attn: `body` is a shell script reading the -i file ($7)."""
    path = Path(folder) / "attn"
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def fortune_deb(folder):
    return make_deb(folder, "fortunes-es", {
        "usr/share/games/fortunes/es/amistad.fortunes": COOKIES.encode("utf-8"),
        "usr/share/games/fortunes/es/amistad.fortunes.dat": b"\x00\x01",
        "usr/share/games/fortunes/es/off/varios.fortunes": "Una frase ofensiva aquí mismo.\n%\n".encode("utf-8"),
        "usr/share/games/fortunes/de/asciiart": b"  /\\_/\\\n ( o.o )\n%\n",
        "usr/share/games/fortunes/es/latin1.fortunes": "Año nuevo, vida nueva.\n%\n".encode("latin-1"),
    })


def test_cookies_are_read_without_offensive_sections_pictures_indexes_or_other_encodings(tmp_path):
    files = fortunes.cookie_files(fortune_deb(tmp_path))
    assert list(files) == ["es/amistad.fortunes"]


def test_a_cookie_is_joined_across_lines_split_into_sentences_without_attribution_or_colours():
    assert list(fortunes.cookie_sentences(COOKIES, "es")) == [
        "Donde hay concordia siempre hay victoria.", "La amistad es una igualdad armónica.", "Nadie lo duda.",
        "El que escribe en el alma de un niño escribe para siempre.", "Hola.",
        "Donde hay concordia siempre hay victoria."]


def test_sentences_are_kept_once_tokenized_never_a_split_line_and_at_most_the_limit_in_file_order():
    files = {"es/amistad.fortunes": COOKIES}
    stats = {}
    kept = fortunes.monolingual(files, "es", {"nadie lo duda ."}, None, 100, stats)
    assert [line for _, line in kept] == ["Donde hay concordia siempre hay victoria .",
                                          "La amistad es una igualdad armónica .",
                                          "El que escribe en el alma de un niño escribe para siempre ."]
    assert {origin for origin, _ in kept} == {"fortunes/es/amistad.fortunes"}
    assert stats["monolingual"]["dropped: duplicate"] == 1
    assert stats["monolingual"]["dropped: a line of train, valid or test"] == 1
    assert stats["monolingual"]["dropped: length outside 3..60 tokens, no letters, or a placeholder"] == 1  # "Hola ."
    two = fortunes.monolingual(files, "es", set(), None, 2, {})
    order = [line for _, line in kept]
    assert len(two) == 2 and two == sorted(two, key=lambda item: order.index(item[1]))


def test_the_pairs_are_written_with_the_machine_side_named_and_the_package_licence(tmp_path):
    data = tmp_path / "data"
    (data / "en-es").mkdir(parents=True)
    (data / "en-es" / "train.es").write_text("Nadie lo duda .\n", encoding="utf-8")
    attn = fake_attn(tmp_path, 'sed "s/[aeiou]/x/g" "$7"')  # attn translate --pair es-en --beam 4 -i FILE
    stats = fortunes.build("es", data, fortune_deb(tmp_path), attn, tmp_path, 100, None)
    folder = data / "en-es"
    assert (folder / "fortunes.en").read_text(encoding="utf-8").splitlines()[0] == \
        "Dxndx hxy cxncxrdxx sxxmprx hxy vxctxrxx ."
    assert len((folder / "fortunes.es").read_text(encoding="utf-8").splitlines()) == stats["written"] == 3
    assert (folder / "fortunes.synthetic").read_text(encoding="utf-8") == "en\n"
    assert (folder / "licences" / "fortunes-es.copyright").exists()
    recorded = json.loads((folder / "fortunes-stats.json").read_text(encoding="utf-8"))
    assert (recorded["package"], recorded["licence"], recorded["written"]) == ("fortunes-es", "GPL-2+", 3)


def test_a_translator_that_loses_lines_or_a_missing_pair_is_named(tmp_path):
    data = tmp_path / "data"
    (data / "en-es").mkdir(parents=True)
    short, deb = fake_attn(tmp_path, 'head -n 1 "$7"'), fortune_deb(tmp_path)
    with pytest.raises(SystemExit, match="wrote 1 lines for 4"):
        fortunes.build("es", data, deb, short, tmp_path, 100, None)
    with pytest.raises(SystemExit, match="en-it is missing"):
        fortunes.build("it", data, deb, short, tmp_path, 100, None)
    with pytest.raises(SystemExit, match="no fortune package for nl"):
        fortunes.main(["nl", "--attn", str(short)])
    with pytest.raises(SystemExit, match="--limit must be at least 1"):
        fortunes.main(["es", "--limit", "0", "--attn", str(short)])
    assert not os.path.exists(data / "en-es" / "fortunes.en")


def test_a_failing_translator_is_named_with_its_message(tmp_path):
    data = tmp_path / "data"
    (data / "en-es").mkdir(parents=True)
    broken = fake_attn(tmp_path, 'echo "attn: models/pairs.json has no es-en" >&2; exit 2')
    with pytest.raises(SystemExit, match="failed \\(2\\): attn: models/pairs.json has no es-en"):
        fortunes.build("es", data, fortune_deb(tmp_path), broken, tmp_path, 100, None)
