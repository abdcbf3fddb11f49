"""Rule-based sentence splitter for English and the paired languages.

A paragraph is split after `.`, `!`, `?` or `…` (and any closing quotes or brackets after it)
when whitespace follows and the next word starts with a capital letter (an opening quote,
bracket, `¿` or `¡` may come first). It is not split after an abbreviation of the language
("e.g.", "p. ej.", "т. е.", "npr.") or after a single letter (initials, "т. е."). Text is never
changed: joining the sentences with single spaces gives the paragraph back (its whitespace
already collapsed).

`split_pair` splits both sides of a pair and keeps the split only when both sides give the same
number of sentences; otherwise the pair stays whole.

Chinese is split after `。`, `！` or `？` (and closing quotes or brackets), whatever follows.
"""
import re

# Lowercased, without the final period; a dotted abbreviation is written with its inner periods.
ABBREVIATIONS = {
    "en": "e.g i.e etc vs mr mrs ms dr prof st no nos fig figs approx incl cf resp ca eq vol "
          "ed jan feb mar apr jun jul aug sep sept oct nov dec",
    "bg": "напр т.е вж др г гр ул стр бел т.нар с т.к и.т.н",
    "da": "f.eks bl.a evt osv mht ca dvs nr jf inkl pga hhv kl vha ang s el fx",
    "de": "z.b bzw usw vgl ggf evtl d.h u.a s.o s.u nr ca inkl bzgl max min ff abb z.t o.ä",
    "es": "p.ej ej sr sra srta dr dra etc pág núm aprox ud uds vd vds cap fig",
    "et": "nt jne nr vms st ingl jm sh vt näit lk u k.a s.t e.k",
    "fr": "p.ex ex etc cf env m mm mme mlle dr p pp chap fig n°",
    "hu": "pl stb kb ill ld vö ún dr ifj id sz ford kül",
    "it": "ecc es sig dott pag cfr ad",
    "nl": "bijv bv d.w.z o.a enz m.b.v nr ca etc i.p.v vb zgn resp incl m.a.w",
    "pt": "ex p.ex sr sra dr dra etc pág nº n.º aprox cap fig",
    "ru": "т.е т.д т.п др см напр ср рис стр г гг т е им ок",
    "sl": "npr itd ipd t.i oz tj št str dr gl prim idr t.j",
}
_ABBREV = {lang: set(words.split()) for lang, words in ABBREVIATIONS.items()}

# End punctuation, closing quotes/brackets, whitespace, then (opening marks and) a capital.
BOUNDARY = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s+[\"'“‘«„(\[¿¡]*[^\W\d_])")


# Chinese ends a sentence with a full-width mark and starts the next without a space or a capital.
ZH_BOUNDARY = re.compile(r"[。！？]+[”’」』）\]]*(?=\s*\S)")


def split(text, lang):
    """Sentences of one paragraph (see the module docstring)."""
    if lang == "zh":
        out, start = [], 0
        for found in ZH_BOUNDARY.finditer(text):
            out.append(text[start:found.end()].strip())
            start = found.end()
        tail = text[start:].strip()
        return [sentence for sentence in out + [tail] if sentence]
    abbreviations = _ABBREV.get(lang, set()) | _ABBREV["en"]  # English ones occur everywhere
    out, start = [], 0
    for found in BOUNDARY.finditer(text):
        end = found.end()
        if not re.sub(r"^[\"'“‘«„(\[¿¡]+", "", text[end:].lstrip())[:1].isupper():
            continue
        if text[found.start()] == ".":
            word = text[start:found.start()].split()[-1:] or [""]
            word = re.sub(r"^[\"'“‘«„(\[¿¡]+", "", word[0]).lower()
            if len(word) == 1 and word.isalpha() or word in abbreviations:
                continue
        sentence = text[start:end].strip()
        if sentence:
            out.append(sentence)
        start = end
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def split_pair(en, xx, lang):
    """Sentence pairs of a paragraph pair: split only when both sides agree on the count."""
    en_parts, xx_parts = split(en, "en"), split(xx, lang)
    if len(en_parts) == len(xx_parts):
        return list(zip(en_parts, xx_parts))
    return [(en, xx)]
