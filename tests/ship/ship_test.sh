#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shipped tree, checked from a real `cmake --install` into a temporary
# prefix and from the Debian packages cpack makes (README "Install"). One
# check per ctest test (label ship; tests/ship/CMakeLists.txt):
#   bash tests/ship/ship_test.sh CHECK BUILD_DIR
# Expected values come from the installed binary's own help, never from a
# list written here. Everything made goes into one temporary directory,
# removed on exit.
set -euo pipefail

check=$1
build=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/proctape-ship-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() {  # expect_eq WHAT GOT EXPECTED
  [[ $2 == "$3" ]] || fail "$1: got '$2', expected '$3'"
}

install_tree() {
  cmake --install "$build" --prefix "$prefix" >"$work/install.log" ||
    fail "cmake --install failed: $(cat "$work/install.log")"
}

# The commands the binary lists in `proctape --help`, and each one's
# subcommands from its own --help ("Subcommands:"), as "corpus add".
commands_of() {  # commands_of PROCTAPE
  local proctape=$1 cmd
  for cmd in $("$proctape" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'); do
    echo "$cmd"
    "$proctape" "$cmd" --help 2>/dev/null |
      sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | sed "s/^/$cmd /"
  done
}

# The paths README's paragraph that begins with MARK names (the `...` of
# it that begin with PATTERN), one a line; COMMAND in one stands for any.
readme_paths() {  # readme_paths MARK PATTERN
  local source_dir
  source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  awk -v mark="$1" 'index($0, mark) == 1 {on = 1} on && /^$/ {exit} on' \
    "$source_dir/README.md" | tr '\n' ' ' | grep -o '`[^`]*`' | tr -d '`' | grep -E "$2" || true
}

# Every file of LIST (one a line) is named by README's paragraph MARK (the
# file or a directory above it), and every path the paragraph names is there
# (under ROOT).
expect_readme_names() {  # expect_readme_names MARK PATTERN ROOT LIST
  local paths file path named
  paths=$(readme_paths "$1" "$2")
  [[ -n $paths ]] || fail "README.md has no paragraph beginning '$1' naming paths"
  while IFS= read -r file; do
    named=0
    while IFS= read -r path; do
      # shellcheck disable=SC2053  # the path is a pattern: COMMAND is any
      if [[ $file == ${path//COMMAND/*} || $file == ${path//COMMAND/*}/* ]]; then named=1; fi
    done <<<"$paths"
    ((named)) || fail "README.md's '$1' does not name $file, which is installed"
  done <<<"$4"
  while IFS= read -r path; do
    compgen -G "$3/${path//COMMAND/*}" >/dev/null ||
      fail "README.md's '$1' names $path, which is not installed"
  done <<<"$paths"
}

# Each document an installed man page cites is named by its installed path
# (DOCDIR/docs/NAME, DOCDIR/proto/NAME), which holds it; none is cited by its
# place in the source tree. PAGES: the pages' roff text.
expect_cited_docs_installed() {  # expect_cited_docs_installed ROOT DOCDIR PAGES
  local pages cited bare file
  pages=$(sed 's/\\://g' <<<"$3")  # roff's \: (a line may break there) is no text
  bare=$(grep -E '(^|[^A-Za-z0-9_./-])(docs|proto)/[A-Za-z0-9_]' <<<"$pages" || true)
  [[ -z $bare ]] || fail "a man page cites a document by its source path: $bare"
  cited=$(grep -oE "$2/(docs|proto)/[A-Za-z0-9_./-]*[A-Za-z0-9_]" <<<"$pages" | sort -u)
  [[ -n $cited ]] || fail "no man page cites a document under $2"
  while IFS= read -r file; do
    [[ -f $1$file ]] || fail "a man page cites $file, which is not installed"
  done <<<"$cited"
  grep -qx "\.IR $2 \." <<<"$pages" || fail "the pages do not say the documentation is in $2"
}

case $check in
  # cmake --install puts every file under the prefix, none elsewhere, and
  # the binary runs from there.
  install_tree)
    install_tree
    while IFS= read -r f; do
      [[ $f == "$prefix"/* ]] || fail "installed outside the prefix: $f"
    done <"$build/install_manifest.txt"
    bin=$prefix/bin/proctape
    [[ -x $bin ]] || fail "no executable bin/proctape"
    expect_eq "installed --version" "$("$bin" --version)" "$("$build/cli/proctape" --version)"
    [[ $("$bin" --version) == "proctape "* ]] || fail "--version does not start with 'proctape '"
    for f in share/bash-completion/completions/proctape share/zsh/site-functions/_proctape \
             share/man/man1/proctape.1 share/doc/proctape/README.md \
             share/doc/proctape/BENCHMARKS.md share/doc/proctape/copyright; do
      [[ -s $prefix/$f ]] || fail "missing or empty: $f"
    done
    source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
    diff -r "$source_dir/docs" "$prefix/share/doc/proctape/docs" >/dev/null ||
      fail "share/doc/proctape/docs differs from docs/"
    for proto in "$source_dir"/proto/*.proto; do
      cmp -s "$proto" "$prefix/share/doc/proctape/proto/${proto##*/}" ||
        fail "share/doc/proctape/proto lacks ${proto##*/} as it is in proto/"
    done
    expect_readme_names '**`cmake --install`**' '^(bin|share|include|lib)(/|$)' "$prefix" \
      "$(sed "s|^$prefix/||" "$build/install_manifest.txt")"
    ;;

  # A page for proctape and one for every command it lists (corpus add:
  # proctape-corpus-add.1), named as its page, rendered without a warning.
  man_pages)
    install_tree
    bin=$prefix/bin/proctape
    man1=$prefix/share/man/man1
    expected=$( (echo proctape; commands_of "$bin" | sed 's/^/proctape-/; s/ /-/g') | sort)
    got=$(cd "$man1" && ls | sed 's/\.1$//' | sort)
    expect_eq "man pages" "$got" "$expected"
    for page in $got; do
      file=$man1/$page.1
      warnings=$(MANWIDTH=80 man -l --warnings "$file" 2>&1 >/dev/null)
      [[ -z $warnings ]] || fail "man -l $page.1: $warnings"
      warnings=$(groff -ww -z -man "$file" 2>&1)
      [[ -z $warnings ]] || fail "groff -ww $page.1: $warnings"
      name=$(MANWIDTH=80 man -l "$file" 2>/dev/null | sed -n '/^NAME/{n;p;q}' | awk '{print $1}')
      expect_eq "$page.1's NAME" "$name" "$page"
    done
    expect_cited_docs_installed "" "$prefix/share/doc/proctape" "$(cat "$man1"/*.1)"
    # The page says what --help says: a command's first option line.
    first=$("$bin" capture --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p' | head -1)
    MANWIDTH=80 man -l "$man1/proctape-capture.1" 2>/dev/null | grep -q -- "$first" ||
      fail "proctape-capture.1 does not show $first"
    ;;

  # The installed bash completion, sourced with bash-completion: commands,
  # a command's options, a choice, .ptape files (and directories) of the
  # directory, and no file that is gone.
  bash_completion)
    install_tree
    bin=$prefix/bin/proctape
    mkdir "$work/files" "$work/files/sub"
    touch "$work/files/a.ptape" "$work/files/b.ptape" "$work/files/notes.txt"
    cat >"$work/complete.bash" <<'BASH'
source /usr/share/bash-completion/bash_completion
source "$COMPLETION"
complete -p proctape | grep -q -- '-F _proctape' || { echo "not registered"; exit 1; }
comp() {  # comp WORD... : the candidates for the last word, sorted, one line
  COMP_WORDS=(proctape "$@"); COMP_CWORD=$#; COMP_LINE="proctape $*"; COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _proctape proctape "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
  echo
}
cd "$FILES"
echo "commands: $(comp '')"
echo "corpus: $(comp corpus '')"
while IFS= read -r cmd; do  # every command's long options
  echo "options $cmd: $(comp $cmd --)"
done <<<"$COMMANDS"
echo "verify --j: $(comp verify --j)"
echo "export --format: $(comp export x.ptape --format '')"
echo "show files: $(comp show '')"
echo "show --json files: $(comp show --json '')"
rm b.ptape
echo "after rm: $(comp show '')"
BASH
    out=$(COMPLETION=$prefix/share/bash-completion/completions/proctape FILES=$work/files \
          COMMANDS=$(commands_of "$bin") bash --norc --noprofile "$work/complete.bash") ||
      fail "bash completion: $out"
    line() { sed -n "s/^$1: //p" <<<"$out"; }
    sorted() { tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
    expect_eq commands "$(line commands)" "$("$bin" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sorted)"
    expect_eq "corpus subcommands" "$(line corpus)" "$(commands_of "$bin" | sed -n 's/^corpus //p' | sorted)"
    # Every command: every long name of an option line of its --help
    # ("  -o,--output,--out FILE"), and --help (every command takes it; the
    # help of `help` is the list of commands), nothing else.
    while IFS= read -r cmd; do
      expect_eq "$cmd's options" "$(line "options $cmd")" \
        "$( (echo --help; "$bin" $cmd --help |
             sed -n 's/^  \(-[a-zA-Z],\)\{0,1\}\(--[a-z][a-z-]*\(,--[a-z][a-z-]*\)*\).*/\2/p' |
             tr ',' '\n') | sort -u | sorted)"
    done < <(commands_of "$bin")
    expect_eq "verify --j" "$(line 'verify --j')" "--json "
    expect_eq "export --format" "$(line 'export --format')" \
      "$("$bin" export --help | grep -o -- '--format [a-z|-]*' | head -1 | cut -d' ' -f2 | tr '|' '\n' | sorted)"
    expect_eq ".ptape files and directories" "$(line 'show files')" "a.ptape b.ptape sub "
    expect_eq "after a flag" "$(line 'show --json files')" "a.ptape b.ptape sub "
    expect_eq "a removed file is not offered" "$(line 'after rm')" "a.ptape sub "
    ;;

  # The installed zsh completion, run by zsh with compadd and _files
  # standing in for the completion system (they print what they are given).
  zsh_completion)
    command -v zsh >/dev/null || fail "zsh is not installed (scripts/setup.sh installs it)"
    install_tree
    bin=$prefix/bin/proctape
    zsh -n "$prefix/share/zsh/site-functions/_proctape" || fail "zsh -n _proctape"
    mkdir "$work/files" "$work/files/sub"
    touch "$work/files/a.ptape" "$work/files/notes.txt"
    cat >"$work/complete.zsh" <<'ZSH'
setopt nullglob
compadd() {  # offers those that begin with the word being completed
  [[ $1 == -- ]] && shift
  local c; for c; do [[ $c == ${words[CURRENT]}* ]] && print -r -- $c; done
}
compset() { return 0 }
_files() {
  case $1 in
    -g) local -a m; m=( ${~2} ); ((${#m})) || return 1; print -l -- $m *(/) ;;
    -/) print -l -- *(/) ;;
    *) print -l -- * ;;
  esac
}
comp() {  # comp WORD...: the candidates for the last word, sorted, one line
  local -a words; words=(proctape "$@"); local CURRENT=${#words}
  print -r -- "$(source $COMPLETION | sort | tr '\n' ' ')"
}
cd $FILES
print -r -- "commands: $(comp '')"
print -r -- "corpus: $(comp corpus '')"
print -r -- "verify --j: $(comp verify --j)"
print -r -- "export --format: $(comp export x.ptape --format '')"
print -r -- "show files: $(comp show '')"
ZSH
    out=$(COMPLETION=$prefix/share/zsh/site-functions/_proctape FILES=$work/files \
          zsh -f "$work/complete.zsh") || fail "zsh completion: $out"
    line() { sed -n "s/^$1: //p" <<<"$out"; }
    sorted() { tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
    expect_eq commands "$(line commands)" "$("$bin" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sorted)"
    expect_eq "corpus subcommands" "$(line corpus)" "$(commands_of "$bin" | sed -n 's/^corpus //p' | sorted)"
    expect_eq "verify --j" "$(line 'verify --j')" "--json "
    expect_eq "export --format" "$(line 'export --format')" \
      "$("$bin" export --help | grep -o -- '--format [a-z|-]*' | head -1 | cut -d' ' -f2 | tr '|' '\n' | sorted)"
    expect_eq ".ptape files and directories" "$(line 'show files')" "a.ptape sub "
    ;;

  # cpack -G DEB makes proctape_<version>_amd64.deb; extracted, its binary
  # runs, and its man pages (compressed), completions and copyright are in
  # place; Depends names the shared libraries it needs.
  # The four packages cpack makes (packaging/CMakeLists.txt): the command's
  # proctape_<version>_amd64.deb with the shared libraries it links as
  # Depends; libproctape0 holding the shared library alone; the -dev and
  # python3 packages depending on exactly this version of it; each with
  # Debian's copyright and the changelog. README names every file of them.
  deb)
    version=$("$build/cli/proctape" --version | awk '{print $2}')
    (cd "$build" && cpack -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1) ||
      fail "cpack -G DEB: $(tail -5 "$work/cpack.log")"
    deb=$work/cpack/proctape_${version}_amd64.deb
    lib=$work/cpack/libproctape0_${version}_amd64.deb
    dev=$work/cpack/libproctape-dev_${version}_amd64.deb
    py=$work/cpack/python3-proctape_${version}_all.deb
    for f in "$deb" "$lib" "$dev" "$py"; do
      [[ -f $f ]] || fail "no $(basename "$f"): $(ls "$work/cpack")"
      package=$(dpkg-deb -f "$f" Package)
      dpkg-deb -x "$f" "$work/root"
      for doc in copyright changelog.gz; do
        [[ -s $work/root/usr/share/doc/$package/$doc ]] || fail "$package lacks usr/share/doc/$package/$doc"
      done
    done
    depends=$(dpkg-deb -f "$deb" Depends)
    for need in libc6 libprotobuf libzstd1 libstdc++6; do
      [[ $depends == *"$need"* ]] || fail "Depends lacks $need: $depends"
    done
    [[ $depends != *libproctape* ]] || fail "proctape depends on the library package: $depends"
    # libproctape0: the library by its soname, and nothing else but its docs.
    files=$(dpkg-deb -c "$lib" | awk '$1 !~ /^d/ {print substr($6, 2)}' | grep -v '^/usr/share/doc/libproctape0/')
    expect_eq "libproctape0's files" "$(sed 's/\.so\.0\..*/.so.0.V/' <<<"$files" | sort)" \
      "$(printf '%s\n' /usr/lib/$(gcc -dumpmachine)/libproctape.so.0 /usr/lib/$(gcc -dumpmachine)/libproctape.so.0.V)"
    dpkg-deb -I "$lib" shlibs | grep -qx "libproctape 0 libproctape0 (= $version)" ||
      fail "libproctape0's shlibs: $(dpkg-deb -I "$lib" shlibs 2>&1)"
    [[ $(dpkg-deb -f "$dev" Depends) == *"libproctape0 (= $version)"* ]] ||
      fail "libproctape-dev's Depends: $(dpkg-deb -f "$dev" Depends)"
    [[ -L $work/root/usr/lib/$(gcc -dumpmachine)/libproctape.so && -f $work/root/usr/include/proctape.h ]] ||
      fail "libproctape-dev lacks the libproctape.so link or proctape.h"
    [[ $(dpkg-deb -f "$py" Depends) == *"libproctape0 (= $version)"*python3* ]] ||
      fail "python3-proctape's Depends: $(dpkg-deb -f "$py" Depends)"
    [[ -f $work/root/usr/lib/python3/dist-packages/proctape/__init__.py ]] ||
      fail "python3-proctape lacks usr/lib/python3/dist-packages/proctape"
    expect_eq "extracted --version" "$("$work/root/usr/bin/proctape" --version)" \
      "$("$build/cli/proctape" --version)"
    for f in share/man/man1/proctape.1.gz share/man/man1/proctape-capture.1.gz \
             share/bash-completion/completions/proctape share/zsh/site-functions/_proctape; do
      [[ -s $work/root/usr/$f ]] || fail "the package lacks usr/$f"
    done
    MANWIDTH=80 man -l "$work/root/usr/share/man/man1/proctape.1.gz" 2>/dev/null | grep -q '^NAME' ||
      fail "proctape.1.gz does not render"
    expect_cited_docs_installed "$work/root" /usr/share/doc/proctape \
      "$(zcat "$work/root"/usr/share/man/man1/*.1.gz)"
    expect_readme_names '**The Debian packages**' '^/usr/' "$work/root" \
      "$(for f in "$deb" "$lib" "$dev" "$py"; do dpkg-deb -c "$f"; done | awk '$1 !~ /^d/ {print substr($6, 2)}')"
    ;;

  *) fail "unknown check '$check'" ;;
esac
echo "ok: $check"
