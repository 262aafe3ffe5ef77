#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The C ABI's surface (docs/library.md, "The C ABI"):
#   abi_test.sh symbols LIB SOURCE_DIR   libproctape.so.0 exports proctape_*
#       alone, and exactly capi/symbols.txt (an ABI change is a visible diff);
#       its soname is libproctape.so.0.
#   abi_test.sh header SOURCE_DIR        include/proctape.h compiles alone as
#       C99 (-Wall -Wextra -Werror -pedantic) and as C++.
#   abi_test.sh snippets SOURCE_DIR      every ```c block of README.md and
#       docs/*.md compiles as written, with the same flags.
set -euo pipefail
fail() { echo "abi_test: FAIL: $*" >&2; exit 1; }
case ${1:-} in
  symbols)
    lib=$2 src=$3
    exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
    [[ -n $exported ]] || fail "$lib exports nothing"
    if others=$(grep -v '^proctape_' <<<"$exported"); then
      fail "$lib exports symbols outside proctape_*: $others"
    fi
    diff -u "$src/capi/symbols.txt" <(printf '%s\n' "$exported") ||
      fail "the exported symbols differ from capi/symbols.txt (update it with the ABI change)"
    soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    [[ $soname == libproctape.so.0 ]] || fail "soname is '$soname', not libproctape.so.0"
    echo "abi_test: $(wc -l <<<"$exported") symbols, all proctape_*, as capi/symbols.txt; soname $soname"
    ;;
  header)
    src=$2
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    printf '#include <proctape.h>\nint main(void) { proctape_error e; e.status = PROCTAPE_OK; return (int)e.status; }\n' >"$tmp/alone.c"
    cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$src/include" "$tmp/alone.c" ||
      fail "include/proctape.h is not C99-clean"
    cp "$tmp/alone.c" "$tmp/alone.cc"
    c++ -std=c++20 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$src/include" "$tmp/alone.cc" ||
      fail "include/proctape.h does not compile as C++"
    # The check can fail: a C++-only construct is refused by the same command.
    printf '#include <proctape.h>\nstatic bool b;\nint main(void) { return b; }\n' >"$tmp/bad.c"
    if cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$src/include" "$tmp/bad.c" 2>/dev/null; then
      fail "the C99 check accepted C++ (bool without stdbool.h)"
    fi
    echo "abi_test: include/proctape.h compiles as C99 and as C++"
    ;;
  snippets)
    src=$2
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    n=0
    for doc in "$src/README.md" "$src"/docs/*.md; do
      # Each block to its own file, named by the document and the block's first line.
      awk -v dir="$tmp" -v base="$(basename "$doc" .md)" '
        /^```c$/ { block = 1; file = dir "/" base "-" NR ".c"; next }
        /^```$/ { block = 0 }
        block { print > file }' "$doc"
    done
    for c in "$tmp"/*.c; do
      [[ -e $c ]] || continue
      cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$src/include" -c "$c" -o "$tmp/out.o" ||
        fail "the C block at $(basename "$c" .c | sed 's/-\([0-9]*\)$/.md line \1/') does not compile as written"
      n=$((n + 1))
    done
    ((n > 0)) || fail "no \`\`\`c block in README.md or docs/*.md"
    echo "abi_test: $n C block(s) of README.md and docs/*.md compile as C99"
    ;;
  *) echo "usage: abi_test.sh symbols LIB SOURCE_DIR | header SOURCE_DIR | snippets SOURCE_DIR" >&2; exit 2 ;;
esac
