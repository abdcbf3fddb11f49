#!/usr/bin/env python3
"""The tree's size limits, checked (issue 28): no source file in src/ or web/ over 500 lines, and
no C++ function in src/ over 80 lines (a brace-matching scan: comments, strings and character
literals removed; a brace opened after a parameter list starts a function, a brace after
namespace/class/struct/union/enum is scanned into; lambdas count towards the function around them).

    python3 tools/check_layout.py [--list N]    # prints the longest files and functions with --list

Prints "N passed, N failed" (one check per file) and exits 1 on a failure, naming it.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".mjs", ".js", ".ts", ".html", ".css", ".in")
GENERATED = ("web/dist/",)  # build output, ignored by git anyway


def strip_code(text):
    """The text with comments, string and character literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator (1'000)
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;()]*$")


def functions(text):
    """(name, first line, number of lines) of every function body in C++ text."""
    code = strip_code(text)
    found = []
    head_start = 0  # where the text before the next brace begins
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in ";}":
            head_start = i + 1
        elif c == "{":
            head = code[head_start:i]
            flat = " ".join(head.split())
            # an initializer has "=" before its first parenthesis; a template's default arguments
            # (<class = void>) and an operator's name (operator==) are not initializers
            name_part = re.sub(r"operator\s*\S+?\s*\(", "(", re.sub(r"<[^<>()]*>", "", flat)).split("(")[0]
            if SCOPE.search(flat) or "=" in name_part or ")" not in flat:
                head_start = i + 1  # a scope to scan into, or an initializer
            else:
                depth, j = 1, i + 1
                while j < n and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                first = code.count("\n", 0, i) + 1
                last = code.count("\n", 0, j - 1) + 1
                name = re.findall(r"([~\w:<>]+)\s*\(", flat)
                found.append((name[0] if name else flat[:40], first, last - first + 1))
                i = j
                head_start = j
                continue
        i += 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", type=int, default=0, help="print the N longest files and functions")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(["git", "ls-files", "src", "web"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        print(f"0 passed, 1 failed\ngit ls-files failed in {root} (a git checkout is needed): {listed.stderr.strip()}")
        return 1
    paths = [p for p in listed.stdout.split() if p.endswith(SOURCE_SUFFIXES) and not p.startswith(GENERATED)]
    if not paths:
        print("0 passed, 1 failed\nno source files listed under src/ or web/")
        return 1
    passed, failures, lengths, bodies = 0, [], [], []
    for path in paths:
        text = (root / path).read_text(encoding="utf-8")
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        lengths.append((lines, path))
        problems = []
        if lines > MAX_FILE_LINES:
            problems.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
        if path.startswith("src/") and path.endswith((".cpp", ".hpp", ".h")):
            for name, first, count in functions(text):
                bodies.append((count, f"{path}:{first} {name}"))
                if count > MAX_FUNCTION_LINES:
                    problems.append(f"{path}:{first}: {name} is {count} lines (at most {MAX_FUNCTION_LINES})")
        if problems:
            failures.extend(problems)
        else:
            passed += 1
    if args.list:
        for lines, path in sorted(lengths, reverse=True)[:args.list]:
            print(f"file {lines:5d} {path}")
        for count, where in sorted(bodies, reverse=True)[:args.list]:
            print(f"function {count:4d} {where}")
    print(f"{passed} passed, {len(failures)} failed")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
