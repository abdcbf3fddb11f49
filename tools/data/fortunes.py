"""Everyday text with no English twin: the fortune cookies Debian packages in a language,
back-translated into English with the shipped model (Sennrich et al. 2016), for English → XX.

Usage: python3 -m tools.data.fortunes [XX ...] [--limit N] [--data DIR] [--attn PATH] [--models DIR]

The splits, the extra data and most of the prose are software text, and every pair of them is a
human translation. Sayings, jokes, anecdotes and quotations are what a learner types, and Debian
ships them in seven of the product's languages (PACKAGES) with no English translation. Each
sentence of them becomes a pair whose English side the pair's shipped model wrote (`attn translate
--pair XX-en --beam 4`), so a model trained on it reads a machine's English and learns to write
human XX; `tools.train` draws such a corpus in that direction only (the `fortunes.synthetic` file
names the machine-written side).

Read from the packages' .debs (fetched into DIR/cache/debs as tools/data/build.sh does), never the
offensive sections (`off/`), the ASCII art or, for Chinese, the classical poems (tang300, song100);
attributions ("-- Author") and terminal colour codes are removed, each cookie split into sentences
(tools/data/sentences.py) and tokenized as the splits are. Kept: sentences of 3 to 60 tokens with
letters, each once, that are no line of the pair's train, valid or test split and no sentence of
XL-WA's gold set (--xl-wa DIR, default ../shared/data/xl-wa where present; for Chinese NIST's); at most --limit
(default 10,000) of them, drawn evenly over the packages' files. The pairs then pass
tools/data/pairs.py's filters (an untranslated or too unequal pair is dropped).

Writes DIR/en-XX/fortunes.{en,XX,origin}, fortunes.synthetic ("en"), fortunes-stats.json (counts
at each step, the package, its version and licence) and licences/<package>.copyright (named as
sources.tsv's packages' are).
Needs build/bin/attn (cmake --build build/native --target attn_cli) and the shipped models.
"""
import collections
import json
import random
import re
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

from tools.data import debs, pairs, sentences
from tools.data.words import tokenize

ROOT = Path(__file__).resolve().parents[2]
# the product's languages that Debian has fortune cookies in (fortunes-br: Brazilian Portuguese)
PACKAGES = {"bg": "fortunes-bg", "de": "fortunes-de", "es": "fortunes-es", "it": "fortunes-it",
            "pt": "fortunes-br", "ru": "fortunes-ru", "zh": "fortunes-zh"}
SKIPPED_FILES = {"asciiart", "banner", "tang300", "song100"}  # pictures, classical Chinese verse
MIN_TOKENS, MAX_TOKENS = 3, 60
NIST_GOLD = ROOT.parent / "shared/data/nist-zh-gold/dev.tsv"  # Chinese's gold set, in XL-WA's format
ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
ATTRIBUTION = re.compile(r"^\s*(--|—|―|~~)")


def cookie_files(deb):
    """{name: text} of the package's fortune files (not the strfile indexes, symlinks, offensive
    sections or the skipped files), decoded as UTF-8 (a file that is not is skipped)."""
    def wanted(name):
        parts = name.split("/")
        return ("/games/fortunes/" in name and "off" not in parts and not name.endswith((".dat", ".u8"))
                and parts[-1] not in SKIPPED_FILES)
    out = {}
    for name, data in sorted(debs.files(deb, wanted).items()):
        try:
            out[name.split("/games/fortunes/", 1)[1]] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return out


def cookie_sentences(text, lang):
    """The sentences of a fortune file's cookies ('%' lines between them), attributions and colour
    codes removed, each cookie's lines joined (a line break inside a cookie is not a sentence end)."""
    for cookie in re.split(r"^%\s*$", ESCAPE.sub("", text), flags=re.M):
        lines = [line.strip() for line in cookie.splitlines() if line.strip() and not ATTRIBUTION.match(line)]
        joined = unicodedata.normalize("NFC", " ".join(" ".join(lines).split()))
        if joined:
            yield from sentences.split(joined, lang)


def usable(line):
    tokens = line.split()
    return (MIN_TOKENS <= len(tokens) <= MAX_TOKENS and pairs.LETTER.search(line)
            and not pairs.BROKEN.search(line) and not pairs.PLACEHOLDER.search(line))


def monolingual(files, lang, known, xl_wa, limit, stats):
    """(origin, tokenized line) of the files' usable sentences, each once, not in `known` (line
    keys) or the gold set; at most `limit`, drawn evenly (a fixed seed) and kept in file order."""
    counts, seen, kept = collections.Counter(), set(), []
    for name, text in files.items():
        for sentence in cookie_sentences(text, lang):
            counts["sentences"] += 1
            line = " ".join(tokenize(sentence, lang))
            key = pairs.line_key(line, lang)
            if not usable(line):
                counts["dropped: length outside 3..60 tokens, no letters, or a placeholder"] += 1
            elif key in seen:
                counts["dropped: duplicate"] += 1
            elif key in known:
                counts["dropped: a line of train, valid or test"] += 1
            elif xl_wa and (xl_wa.equal(line) or xl_wa.contained(line)):
                counts["dropped: a sentence of the XL-WA gold set"] += 1
            else:
                seen.add(key)
                kept.append((f"fortunes/{name}", line))
    counts["usable"] = len(kept)
    if len(kept) > limit:
        chosen = sorted(random.Random(0).sample(range(len(kept)), limit))
        kept = [kept[i] for i in chosen]
    counts["chosen"] = len(kept)
    stats["monolingual"] = dict(counts)
    return kept


def back_translate(lines, lang, attn, models):
    """English of each line, by the pair's shipped model (one line out per line in)."""
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as source:
        source.write("".join(line + "\n" for line in lines))
        source.flush()
        out = subprocess.run([str(attn), "translate", "--pair", f"{lang}-en", "--beam", "4", "-i", source.name],
                             capture_output=True, text=True, env={"ATTN_MODELS": str(models), "PATH": "/usr/bin:/bin"})
    if out.returncode != 0:
        raise SystemExit(f"attn translate --pair {lang}-en failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    english = out.stdout.split("\n")[:-1] if out.stdout.endswith("\n") else out.stdout.split("\n")
    if len(english) != len(lines):
        raise SystemExit(f"attn translate --pair {lang}-en wrote {len(english)} lines for {len(lines)}")
    return english


def fetch(package, cache):
    """The package's .deb in `cache`, downloaded with apt-get when missing."""
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob(f"{package}_*.deb"))
    if not found:
        subprocess.run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", package],
                       cwd=cache, check=True, stdout=sys.stderr)
        found = sorted(cache.glob(f"{package}_*.deb"))
    if not found:
        raise SystemExit(f"{package}: apt-get download left no .deb in {cache}")
    return found[0]


def build(lang, data, deb, attn, models, limit, xl_wa):
    """DATA/en-LANG/fortunes.*: the back-translated pairs of one language; returns the stats."""
    folder = data / f"en-{lang}"
    if not folder.is_dir():
        raise SystemExit(f"{folder} is missing: tools/data/build.sh --pair en-{lang} first")
    package, version, licence, copyright_file = debs.package_copyright(deb)
    stats = {"pair": f"en-{lang}", "package": package, "version": version, "licence": licence}
    files = cookie_files(deb)
    if not files:
        raise SystemExit(f"{deb}: no fortune files in UTF-8")
    chosen = monolingual(files, lang, pairs.split_lines(folder, (lang,)), xl_wa, limit, stats)
    english = back_translate([line for _, line in chosen], lang, attn, models)
    stats["non_ascii_letters"] = {}
    kept = list(pairs.filtered(((origin, en, xx) for (origin, xx), en in zip(chosen, english)), None, stats, lang))
    pairs.write_pairs(folder, "fortunes", lang, kept)
    (folder / "fortunes.synthetic").write_text("en\n", encoding="utf-8")
    (folder / "licences").mkdir(exist_ok=True)
    (folder / "licences" / f"{package}.copyright").write_bytes(copyright_file)
    stats["written"] = len(kept)
    stats.pop("non_ascii_letters")
    (folder / "fortunes-stats.json").write_text(json.dumps(stats, indent=1, ensure_ascii=False) + "\n",
                                                encoding="utf-8")
    return stats


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)

    def option(name, default):
        if name in args:
            i = args.index(name)
            if i + 1 >= len(args):
                raise SystemExit(f"{name} needs a value")
            value = args[i + 1]
            del args[i:i + 2]
            return value
        return default

    limit = int(option("--limit", "10000"))
    data = Path(option("--data", str(ROOT / "data")))
    attn = Path(option("--attn", str(ROOT / "build/bin/attn")))
    models = Path(option("--models", str(ROOT / "models")))
    xl_wa_dir = Path(option("--xl-wa", str(ROOT.parent / "shared/data/xl-wa")))
    langs = args or sorted(PACKAGES)
    unknown = [lang for lang in langs if lang not in PACKAGES]
    if unknown:
        raise SystemExit(f"no fortune package for {', '.join(unknown)}: one of {', '.join(sorted(PACKAGES))}")
    if limit < 1:
        raise SystemExit("--limit must be at least 1")
    if not attn.exists():
        raise SystemExit(f"missing {attn}: cmake --build build/native --target attn_cli")
    for lang in langs:
        gold = NIST_GOLD if lang == "zh" else xl_wa_dir / lang / "dev.tsv"
        xl_wa = pairs.XlWa(gold, lang) if gold.exists() else None
        stats = build(lang, data, fetch(PACKAGES[lang], data / "cache/debs"), attn, models, limit, xl_wa)
        print(f"en-{lang} fortunes: {stats['written']} pairs of {stats['monolingual']['usable']} usable sentences "
              f"({stats['package']} {stats['version']}, {stats['licence']})", flush=True)


if __name__ == "__main__":
    main()
