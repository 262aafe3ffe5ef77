#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The code's shape, measured (docs/architecture.md, "Layers"): the lines of
each folder given, and every function of their .cc files longer than
--max-function lines, longest first. Of a folder's lines it also says how
many declare a command line: the bodies of Register* functions (options,
flags, footers) and top-level help-text constants (`constexpr const char*
kDescription = "...";`), the rest being what the commands do.

    python3 scripts/code_shape.py --max-function 60 cli

Exit 1 when a function is over the limit (ctest shape/functions), 2 on bad
use. A function is a definition that begins at column 0 (the layout of
.clang-format: namespaces do not indent) and ends at its matching brace;
braces inside string and character literals and comments are skipped.
"""
import argparse
import os
import re
import sys

SKIP = ("namespace", "}", "#", "//", "struct", "class", "enum", "using", "template", "constexpr",
        "static_assert", "extern", "typedef", "union")


def code_only(text):
    """`text` with string and character literals and comments blanked."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(lines, first line, name) of each function defined in `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = code_only(f.read()).split("\n")
    found, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line and not line[0].isspace() and not line.startswith(SKIP):
            j, signature = i, line
            while "{" not in lines[j] and ";" not in lines[j] and j < i + 8 and j + 1 < len(lines):
                j += 1
                signature += lines[j]
            head = signature.split("{")[0]
            if "{" in lines[j] and "(" in head and ";" not in head and "=" not in head.split("(")[0]:
                depth, k = 0, j
                while k < len(lines):
                    depth += lines[k].count("{") - lines[k].count("}")
                    if depth <= 0:
                        break
                    k += 1
                name = re.search(r"([A-Za-z_][A-Za-z0-9_:~]*)\s*\(", head)
                found.append((k - i + 1, i + 1, name.group(1) if name else head.strip()[:40]))
                i = k + 1
                continue
        i += 1
    return found


def declaring_lines(path):
    """Lines of `path` in Register* functions and top-level text constants."""
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read().split("\n")
    count = sum(n for n, _, fn in functions(path) if fn.split("::")[-1].startswith("Register"))
    i = 0
    while i < len(raw):
        if re.match(r"(constexpr |static )*const char\*? ?k\w*(\[\])? =", raw[i]):
            j = i
            while j < len(raw) and not raw[j].rstrip().endswith(";"):
                j += 1
            count += j - i + 1
            i = j
        i += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-function", type=int, default=60, metavar="N")
    parser.add_argument("folders", nargs="+", metavar="FOLDER")
    args = parser.parse_args()
    over = []
    for folder in args.folders:
        if not os.path.isdir(folder):
            print(f"code_shape: {folder}: no such folder", file=sys.stderr)
            return 2
        names = sorted(n for n in os.listdir(folder) if n.endswith((".cc", ".h")))
        total = declaring = 0
        for name in names:
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                total += f.read().count("\n")
            if name.endswith(".cc"):
                over += [(n, path, line, fn) for n, line, fn in functions(path)
                         if n > args.max_function]
                declaring += declaring_lines(path)
        print(f"{folder}: {total} lines in {len(names)} files "
              f"({declaring} declare the command line: Register* functions and help texts; "
              f"{total - declaring} the rest)")
    for n, path, line, fn in sorted(over, reverse=True):
        print(f"{path}:{line}: {fn}: {n} lines (over {args.max_function})")
    print(f"functions over {args.max_function} lines: {len(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
