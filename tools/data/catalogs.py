"""Spanish gettext catalogs inside Debian .deb files -> cleaned English/Spanish message pairs.

Usage: python3 catalogs.py [--lang XX] [--prefix TEXT] OUT_TSV SOURCES_TSV STATS_JSON DEB...

For every .deb given, reads the catalogs of language XX (default `es`: …/es/LC_MESSAGES/*.mo)
straight from the package archive and the package's copyright file (for its licence names). Each message becomes
zero or more (English, Spanish) pairs; OUT_TSV gets `catalog<TAB>english<TAB>spanish`,
SOURCES_TSV one line per package (name, version, catalogs, messages, licence) for the data
card, STATS_JSON the number of messages dropped by each rule. `--prefix` is put before every
origin (the default, none, is what the English-Spanish build of docs/DATA_CARD.md uses); with
`--lang` other than es a package without catalogs for XX is listed with 0 messages instead of
stopping the build.
"""
import collections
import io
import json
import re
import struct
import subprocess
import sys
import tarfile
import unicodedata
from pathlib import Path

CATALOG = re.compile(r"/es/LC_MESSAGES/[^/]+\.mo$")  # set by --lang

# Format directives that a program fills in at run time: a pair containing one is dropped, as the
# model is for running text and would otherwise learn to emit "%" "s" tokens.
FORMAT_DIRECTIVE = re.compile(
    r"%(\([\w-]+\))?[-+ #0']*(\*|\d+\$?)?(\.(\*|\d+))?(hh|h|ll|l|L|q|j|z|t|I64|I32)?"
    r"[diouxXeEfFgGaAcsSpnmCZ]"    # printf, Python %(name)s
    r"|%\d|%[A-Z][A-Z_]+"          # Qt %1, LibreOffice %FOO
    r"|\$\(?[A-Za-z_][\w]*\)?"     # $(ARG1), $VAR
    r"|\{[\w.:]*\}"                # {0}, {name}
    r"|\$\{\w+\}|%\{\w+\}"
)
MARKUP = re.compile(r"<[A-Za-z/!?][^>]*>|&[a-zA-Z]+;|&#\d+;")
# Technical strings: URLs, e-mail addresses, file paths, command-line options, identifiers.
TECHNICAL = re.compile(r"://|www\.|\S@\S|(^|\s)/\w|\w/\w+/|(^|\s)--?[a-zA-Z]|\w_\w|\\[a-z]|[=|]|\w\(\)")
# LibreOffice writes its own name as a variable; spelling it out keeps those sentences.
PRODUCT_NAMES = {"%PRODUCTNAME": "LibreOffice", "%PRODUCTVERSION": "7.4"}


def read_mo(data):
    """(msgid, msgstr) byte strings of a GNU .mo file, header included."""
    order = "<" if struct.unpack("<I", data[:4])[0] == 0x950412DE else ">"
    _, count, ids_at, strs_at = struct.unpack(order + "4I", data[4:20])
    for i in range(count):
        id_len, id_off = struct.unpack(order + "2I", data[ids_at + 8 * i: ids_at + 8 * i + 8])
        str_len, str_off = struct.unpack(order + "2I", data[strs_at + 8 * i: strs_at + 8 * i + 8])
        yield data[id_off: id_off + id_len], data[str_off: str_off + str_len]


def plural_index(expression, n=1):
    """Value of a gettext Plural-Forms C expression (`n != 1`, `n%10==1 && n%100!=11 ? 0 : ...`)
    for `n`: which msgstr[] holds the form used for one thing. Ternaries, ||, &&, comparisons
    and arithmetic, by a small precedence-climbing parser (no eval)."""
    tokens = re.findall(r"\d+|n|&&|\|\||[=!<>]=|[-+*/%<>?:()!]", expression)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def primary():
        token = take()
        if token == "(":
            value = ternary()
            take()  # ")"
            return value
        if token == "!":
            return int(not primary())
        if token == "-":
            return -primary()
        return n if token == "n" else int(token)

    binary = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/", "%")]
    ops = {"||": lambda a, b: int(bool(a or b)), "&&": lambda a, b: int(bool(a and b)),
           "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
           "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
           "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
           "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "/": lambda a, b: a // b if b else 0, "%": lambda a, b: a % b if b else 0}

    def level(i):
        if i == len(binary):
            return primary()
        value = level(i + 1)
        while peek() in binary[i]:
            op = take()
            value = ops[op](value, level(i + 1))
        return value

    def ternary():
        condition = level(0)
        if peek() != "?":
            return condition
        take()
        yes = ternary()
        take()  # ":"
        no = ternary()
        return yes if condition else no

    return ternary()


def messages(data, dropped=None):
    """Decoded (msgid, msgstr) pairs: context dropped, plurals reduced to the singular (the
    msgstr[] form that the catalog's Plural-Forms expression picks for n = 1). A message that is
    not text in the catalog's charset (a bg catalog of bookworm has invalid UTF-8) is skipped and
    counted in `dropped`, as is every message of a catalog whose charset Python does not know."""
    entries = list(read_mo(data))
    charset = "utf-8"
    singular = 0
    for msgid, msgstr in entries:
        if msgid == b"":  # the header names the encoding and the plural rule
            found = re.search(rb"charset=([\w-]+)", msgstr)
            if found and found.group(1).lower() != b"charset":
                charset = found.group(1).decode()
            found = re.search(rb"plural=([^;\n]+)", msgstr)
            if found:
                try:
                    singular = plural_index(found.group(1).decode("ascii", "replace"))
                except (IndexError, ValueError, TypeError):
                    singular = 0
    for msgid, msgstr in entries:
        if msgid == b"":
            continue
        try:
            msgid = msgid.decode(charset).split("\x04")[-1]  # "context\x04text"
            # plural: "singular\0plural" -> the msgstr form for n == 1 (msgstr[0] in Spanish)
            forms = msgstr.decode(charset).split("\x00")
        except (UnicodeDecodeError, LookupError):
            if dropped is not None:
                dropped[f"not {charset} text"] += 1
            continue
        yield msgid.split("\x00")[0], forms[singular] if singular < len(forms) else forms[0]


def strip_accelerators(text):
    """Remove keyboard-accelerator marks: GTK "_File", Qt "&File", LibreOffice "~File"."""
    if text.count("_") == 1:
        text = re.sub(r"_(?=\w)", "", text)
    text = re.sub(r"~(?=\w)", "", text)
    return re.sub(r"(?<![\w&])&(?=\w)", "", text)


def clean(text):
    for name, value in PRODUCT_NAMES.items():
        text = text.replace(name, value)
    text = strip_accelerators(text)
    text = text.replace("\u2026", "...")  # some catalogs use the ellipsis character, some do not
    return unicodedata.normalize("NFC", " ".join(text.split()))


def pairs(msgid, msgstr, dropped):
    """Cleaned pairs from one message, counting why a message yields none in `dropped`."""
    if not msgstr.strip():
        dropped["untranslated (empty msgstr)"] += 1
        return []
    for rule, pattern in (("format directive", FORMAT_DIRECTIVE), ("markup", MARKUP)):
        if pattern.search(msgid) or pattern.search(msgstr):
            dropped[rule] += 1
            return []
    # A multi-line message pairs line by line when both sides have the same number of lines
    # (help texts are written so); otherwise the lines cannot be matched up and it is dropped.
    en_lines = [line for line in msgid.split("\n") if line.strip()]
    es_lines = [line for line in msgstr.split("\n") if line.strip()]
    if len(en_lines) != len(es_lines):
        dropped["multi-line with unequal line counts"] += 1
        return []
    out = []
    for en, es in zip(en_lines, es_lines):
        en, es = clean(en), clean(es)
        if TECHNICAL.search(en) or TECHNICAL.search(es):
            dropped["technical (URL, path, option, identifier)"] += 1
        elif not any(ch.isalpha() for ch in en):
            dropped["no letters"] += 1
        else:
            out.append((en, es))
    return out


def licence(copyright_text):
    """Licence of the package as a whole: the `Files: *` paragraph of a DEP-5 copyright file."""
    for paragraph in re.split(r"\n\s*\n", copyright_text):
        if re.search(r"^Files:\s*\*\s*$", paragraph, re.M):
            found = re.search(r"^License:\s*(\S.*)$", paragraph, re.M)
            if found:
                return found.group(1).strip()
    return "free-form copyright file"


def read_deb(path):
    """(package, version, {catalog name: bytes}, copyright text) of one .deb."""
    fields = subprocess.run(["dpkg-deb", "-f", str(path), "Package", "Version"],
                            check=True, capture_output=True, text=True).stdout
    info = dict(line.split(": ", 1) for line in fields.splitlines())
    tar_bytes = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)],
                               check=True, capture_output=True).stdout
    catalogs, copyright_text = {}, ""
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        for member in tar:
            if not member.isfile():
                continue  # symlinked duplicates such as iso_639_3.mo -> iso_639-3.mo
            if CATALOG.search(member.name):
                catalogs[Path(member.name).stem] = tar.extractfile(member).read()
            elif member.name.endswith(f"/doc/{info['Package']}/copyright"):
                copyright_text = tar.extractfile(member).read().decode("utf-8", "replace")
    return info["Package"], info["Version"], catalogs, copyright_text


def main():
    global CATALOG
    args = sys.argv[1:]
    lang, prefix = "es", ""
    while args and args[0] in ("--lang", "--prefix"):
        if args[0] == "--lang":
            lang = args[1]
        else:
            prefix = args[1]
        args = args[2:]
    CATALOG = re.compile(rf"/{re.escape(lang)}/LC_MESSAGES/[^/]+\.mo$")
    out_tsv, sources_tsv, stats_json, *debs = args
    dropped = collections.Counter()
    total_messages = total_pairs = 0
    with open(out_tsv, "w", encoding="utf-8") as out, \
         open(sources_tsv, "w", encoding="utf-8") as sources:
        sources.write("package\tversion\tcatalogs\tmessages\tlicence\n")
        for deb in debs:
            package, version, catalogs, copyright_text = read_deb(deb)
            if not catalogs and lang == "es" and not prefix:
                sys.exit(f"{deb}: no es/LC_MESSAGES catalog; remove it from the list")
            count = 0
            for name, data in sorted(catalogs.items()):
                for msgid, msgstr in messages(data, dropped):
                    count += 1
                    for en, es in pairs(msgid, msgstr, dropped):
                        out.write(f"{prefix}{package}/{name}\t{en}\t{es}\n")
                        total_pairs += 1
            total_messages += count
            sources.write(f"{package}\t{version}\t{' '.join(sorted(catalogs))}\t{count}\t"
                          f"{licence(copyright_text)}\n")
    stats = {"messages": total_messages, "dropped": dict(dropped), "pairs": total_pairs}
    Path(stats_json).write_text(json.dumps(stats, indent=1) + "\n")
    print(f"catalogs: {total_messages} messages -> {total_pairs} pairs; dropped {dict(dropped)}")


if __name__ == "__main__":
    main()
