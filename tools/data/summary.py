"""Markdown tables of the pairs built by build.sh, read from data/en-XX/stats.json.

Usage: python3 tools/data/summary.py [DATA_DIR]     (DATA_DIR defaults to data/)

Prints the tables of docs/DATA_CARD.md: pairs per source and split, words, and the counts of
each extraction step and filter, so the card quotes the last build and nothing else.
"""
import json
import sys
from pathlib import Path

SOURCES = ("lo-help", "lo-ui", "gettext", "gnome-help", "xl-wa-train")


def load(data):
    out = {}
    for path in sorted(data.glob("en-*/stats.json")):
        stats = json.loads(path.read_text())
        out[stats["pair"]] = stats
    return out


def n(value):
    """1,234; 0; – for a source or step that does not exist for the pair."""
    return "–" if value is None else f"{value:,}"


def main():
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "data"
    pairs = load(data)
    print("Train pairs per source, held-out pairs, train words (tokens with a letter or digit):\n")
    print("| pair | " + " | ".join(SOURCES) + " | train | valid | test | train words en | "
          "train words XX |")
    print("|---|" + "---:|" * (len(SOURCES) + 5))
    for name, stats in pairs.items():
        lang = name.split("-")[1]
        train = stats["splits"]["train"]
        cells = [n(train.get(s, {}).get("pairs")) for s in SOURCES]
        cells += [n(stats["splits"][s]["total"]["pairs"]) for s in ("train", "valid", "test")]
        words_en = sum(train[s].get("en_words", 0) for s in SOURCES if s in train)
        words_xx = sum(train[s].get(f"{lang}_words", 0) for s in SOURCES if s in train)
        print(f"| en-{lang} | " + " | ".join(cells) + f" | {n(words_en)} | {n(words_xx)} |")

    print("\nHeld-out pairs per source (valid / test):\n")
    print("| pair | " + " | ".join(SOURCES[:4]) + " |")
    print("|---|" + "---:|" * 4)
    for name, stats in pairs.items():
        cells = [f"{n(stats['splits']['valid'].get(s, {}).get('pairs'))} / "
                 f"{n(stats['splits']['test'].get(s, {}).get('pairs'))}" for s in SOURCES[:4]]
        print(f"| {name} | " + " | ".join(cells) + " |")

    print("\nExtraction (units: paragraphs, messages or blocks) -> sentence pairs -> kept:\n")
    print("| pair | " + " | ".join(SOURCES[:4]) + " |")
    print("|---|" + "---|" * 4)
    for name, stats in pairs.items():
        split = stats["splitting"]
        filters = stats["filters"]
        cells = []
        for s in SOURCES[:4]:
            if f"{s}: units" not in split:
                cells.append("–")
                continue
            cells.append(f"{n(split[f'{s}: units'])} → {n(split[f'{s}: sentence pairs'])} → "
                         f"{n(filters[s].get('kept', 0))}")
        print(f"| {name} | " + " | ".join(cells) + " |")

    # The order pairs.py applies them in; XL-WA rows are shown even when nothing matched.
    order = ("replacement", "length outside", "a side without", "placeholder", "length ratio",
             "identical on both", "mostly identical", "duplicate", "sentence of the XL-WA",
             "contains a sentence of the XL-WA")
    reasons = ["dropped: sentence of the XL-WA gold set",
               "dropped: contains a sentence of the XL-WA gold set"]
    for stats in pairs.values():
        for counts in stats["filters"].values():
            for reason in counts:
                if reason.startswith("dropped") and reason not in reasons:
                    reasons.append(reason)
    reasons.sort(key=lambda r: next(i for i, o in enumerate(order) if r[9:].startswith(o)))
    print("\nFilters, in the order applied (sentence pairs dropped, all sources together):\n")
    print("| pair | input | " + " | ".join(r.replace("dropped: ", "") for r in reasons)
          + " | kept |")
    print("|---|" + "---:|" * (len(reasons) + 2))
    for name, stats in pairs.items():
        total = {}
        for counts in stats["filters"].values():
            for reason, value in counts.items():
                total[reason] = total.get(reason, 0) + value
        print(f"| {name} | {n(total['input'])} | "
              + " | ".join(n(total.get(r, 0)) for r in reasons) + f" | {n(total['kept'])} |")

    print("\nLibreOffice help paragraphs and GNOME help blocks (extraction step):\n")
    print("| pair | help paragraphs | paired | code | UI names only | empty "
          "| GNOME pages paired / skipped (structure differs) | GNOME blocks paired |")
    print("|---|" + "---:|" * 7)
    for name, stats in pairs.items():
        h = stats["extraction"].get("lo-help", {})
        g = stats["extraction"].get("gnome-help", {})
        print(f"| {name} | {n(h.get('paragraphs'))} | {n(h.get('pairs'))} | "
              f"{n(h.get('dropped: code/example/image paragraph'))} | "
              f"{n(h.get('dropped: only UI names (menu path, key, literal input)'))} | "
              f"{n(h.get('dropped: empty'))} | "
              f"{n(g.get('pages paired'))} / "
              f"{n(g.get('pages skipped: block structure differs', 0 if g else None))} "
              f"| {n(g.get('pairs'))} |")

    print("\nCharacter checks (non-ASCII letters of the other language: extracted units = their "
          "sentences; kept pairs = written files):\n")
    print("| pair | units | sentences | kept | written | sample |")
    print("|---|---:|---:|---:|---:|---|")
    for name, stats in pairs.items():
        c = stats["non_ascii_letters"]
        top = sorted(stats["characters_written"].items(), key=lambda kv: -kv[1])[:6]
        sample = " ".join(f"{ch} {count:,}" for ch, count in top)
        print(f"| {name} | {n(c['xx_units'])} | {n(c['xx_sentences'])} | {n(c['xx_kept'])} | "
              f"{n(c['xx_written'])} | {sample} |")


if __name__ == "__main__":
    main()
