#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# proctape-ci.sh: proctape on a CI host, in two steps both CI systems call.
#   install  puts proctape on the host from a release artifact: the Debian
#            package proctape_<version>_amd64.deb or the portable binary
#            proctape-<version>-linux-x86_64 or -aarch64 (this machine's,
#            by `uname -m`), from a URL or a local file;
#   capture  when a job fails: captures the job's processes, gathers the
#            .ptape recordings its launcher left, verifies each file and
#            writes a MANIFEST, all in one directory the CI uploads.
# Called by action.yml (a GitHub Actions composite action), github-steps.yml
# and gitlab-ci.yml beside it (README.md, "Capturing on CI"). 'capture' never
# fails the job by itself: whatever it cannot do is said on standard error and
# in the MANIFEST, and it exits 0 unless --strict. '--help' lists the statuses.
set -euo pipefail

readonly ME=proctape-ci

usage() {
  cat <<'USAGE'
proctape-ci.sh: install proctape on a CI host; capture a failing job's processes.

Usage: proctape-ci.sh install [--dir DIR] [--sha256 HEX] ARTIFACT
       proctape-ci.sh capture [--out DIR] [--root PID|parent] [--runner-comm NAME]...
                              [--recordings DIR]... [--frames N] [--interval MS]
                              [--timeout SECONDS] [--max-recordings N]
                              [--proctape FILE] [--strict]

install  ARTIFACT is a URL (https://, http://, file://) or a local file, told
         apart by its first bytes (not its name); {arch} in it is replaced by
         this machine's architecture (`uname -m`: x86_64 or aarch64; on any
         other machine install refuses, exit 7):
           proctape_<version>_amd64.deb     installed by apt-get (dpkg -i when
                                            there is no apt-get), as root or by
                                            sudo -n, with its Depends; with
                                            --dir DIR its binary is copied to
                                            DIR/proctape too (it needs the
                                            libraries the package installed)
           proctape-<version>-linux-x86_64  the portable binary, this machine's
           proctape-<version>-linux-aarch64 (another is refused), copied to
                                            DIR/proctape (DIR: --dir; default
                                            /usr/local/bin as root, else
                                            ~/.local/bin)
         DIR is added to $GITHUB_PATH on GitHub Actions. --sha256 HEX refuses
         an artifact of another checksum. Each proctape installed must run
         ('proctape --version'). Prints a line for each: what, where.
capture  Writes into --out DIR (default ./proctape-artifacts):
           job.ptape   'proctape capture' of the job's process tree: the
                       processes beneath --root (PID, or 'parent': the process
                       that ran this script), by default beneath the nearest
                       ancestor named by --runner-comm (default Runner.Worker,
                       gitlab-runner); without one, of every process visible
                       here (--frames N=3, --interval MS=500)
           host.ptape  one frame of every process visible here, when
                       job.ptape is of a tree (a process the job left behind
                       may have been reparented out of it)
           recordings/ each *.ptape and *.partial file under each --recordings
                       DIR (at most --max-recordings N=200), numbered copies
           reports/    'proctape verify --json' and 'show --json' of each file
           MANIFEST    one line per file: verify's status, bytes, SHA-256,
                       name, verify's verdict; '#' lines say where each came from
         Every proctape run is cut after --timeout SECONDS=60 (a capture cut
         keeps the frames it finished). Environment values stay redacted.
         --proctape FILE: the binary (default: proctape on PATH, then
         /usr/local/bin, ~/.local/bin); it must run. A capture that cannot
         be made (no proctape, or one that does not run; job.ptape not
         written) is said loudly: a banner on standard error "NOT CAPTURED",
         an error annotation on GitHub Actions, a '# NOT CAPTURED' line in
         the MANIFEST.

Exit status:
  0  done; for capture also when something could not be captured or a file is
     damaged (said on standard error and in the MANIFEST, loudly when the
     job's processes are not captured): capture does not fail a job unless
     --strict
  2  usage error
  3  install: the artifact cannot be fetched or read
  4  install: not a proctape artifact for this machine (neither a Debian
     package nor an ELF binary of its architecture, another --sha256), or the
     installed proctape does not run
  5  install: installing failed (a .deb without root or sudo -n, apt-get or
     dpkg failed, DIR cannot be written)
  6  capture --strict: something could not be captured, or a file is damaged
  7  install: no proctape is made for this machine (`uname -m` is neither
     x86_64 nor aarch64)

Examples:
  bash proctape-ci.sh install 'https://example.org/proctape-0.1.0-linux-{arch}'
  bash proctape-ci.sh install --sha256 "$SUM" ./proctape_0.1.0_amd64.deb
  bash proctape-ci.sh capture --recordings "$RUNNER_TEMP/proctape" --out evidence
USAGE
}

# One line on standard error, then exit with `status`.
die() {
  local status=$1
  shift
  printf '%s: %s\n' "$ME" "$*" >&2
  exit "$status"
}
usage_error() { die 2 "$* ('proctape-ci.sh --help' for usage)"; }

# "$@" of an option that takes a value: the value, or a usage error.
value_of() {
  (($# >= 2)) || usage_error "$1 needs a value"
  printf '%s' "$2"
}
positive_int() {  # NAME VALUE
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || usage_error "$1 must be a positive integer, not '$2'"
}

# Runs "$@" as root: directly, or through sudo -n.
as_root() {
  if ((EUID == 0)); then
    "$@"
  else
    sudo -n "$@"
  fi
}
can_be_root() {
  ((EUID == 0)) || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }
}

# deb, elf-x86_64, elf-aarch64, elf-other or unknown, from the first bytes
# of FILE (a 64-bit little-endian ELF's e_machine: 0x3e x86-64, 0xb7 AArch64).
artifact_kind() {
  local head
  head=$(od -An -tx1 -N20 -- "$1" | tr -d ' \n')
  case $head in
    213c617263683e0a*) echo deb ;;                       # "!<arch>\n"
    7f454c460201*)
      case ${head:36:4} in
        3e00) echo elf-x86_64 ;;
        b700) echo elf-aarch64 ;;
        *) echo elf-other ;;
      esac
      ;;
    7f454c46*) echo elf-other ;;
    *) echo unknown ;;
  esac
}

# This machine's architecture as the release names it (x86_64, aarch64);
# exit 7 on a machine no binary is made for.
machine_arch() {
  local machine
  machine=$(uname -m) || die 7 "install: uname -m failed: cannot tell this machine's architecture"
  case $machine in
    x86_64 | aarch64) printf '%s' "$machine" ;;
    arm64) printf 'aarch64' ;;
    *) die 7 "install: no proctape is made for this machine ($machine): only x86_64 and aarch64" ;;
  esac
}

# Fetches SOURCE (a URL or a file) into DEST; exit 3 when it cannot.
fetch() {
  local source=$1 dest=$2 status=0
  case $source in
    http://* | https://* | file://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 --connect-timeout 30 --max-time 900 -o "$dest" "$source" || status=$?
        ((status == 0)) || die 3 "install: cannot download $source (curl exit $status)"
      elif command -v wget >/dev/null 2>&1; then
        wget -q --tries=3 --timeout=60 -O "$dest" "$source" || status=$?
        ((status == 0)) || die 3 "install: cannot download $source (wget exit $status)"
      else
        die 3 "install: cannot download $source: neither curl nor wget is installed"
      fi
      ;;
    *://*) usage_error "install: $source: only https://, http:// and file:// URLs are fetched" ;;
    *)
      [[ -e $source ]] || die 3 "install: $source: no such file"
      [[ -f $source ]] || die 3 "install: $source: not a regular file"
      [[ -r $source ]] || die 3 "install: $source: cannot be read"
      cp -- "$source" "$dest" || die 3 "install: cannot copy $source"
      ;;
  esac
}

default_bin_dir() {
  if ((EUID == 0)); then echo /usr/local/bin; else echo "${HOME:-/nonexistent}/.local/bin"; fi
}

# The first line of `proctape --version`, or exit 4.
version_of() {
  local out
  out=$("$1" --version 2>&1) || die 4 "install: $2 does not run: ${out%%$'\n'*}"
  printf '%s' "${out%%$'\n'*}"
}

on_path() {  # DIR
  case ":$PATH:" in *":$1:"*) return 0 ;; *) return 1 ;; esac
}

cmd_install() {
  local dir="" sha256="" source=""
  while (($#)); do
    case $1 in
      --dir) dir=$(value_of "$@"); shift 2 ;;
      --dir=*) dir=${1#*=}; shift ;;
      --sha256) sha256=$(value_of "$@"); shift 2 ;;
      --sha256=*) sha256=${1#*=}; shift ;;
      -h | --help) usage; exit 0 ;;
      -?*) usage_error "install: unknown option $1" ;;
      *)
        [[ -z $source ]] || usage_error "install: one ARTIFACT only, not '$source' and '$1'"
        source=$1
        shift
        ;;
    esac
  done
  [[ -n $source ]] || usage_error "install: which ARTIFACT? (a URL or a file)"
  [[ -z $sha256 || $sha256 =~ ^[0-9a-fA-F]{64}$ ]] || usage_error "--sha256 must be 64 hex digits"
  local arch
  arch=$(machine_arch) || exit $?
  source=${source//\{arch\}/$arch}

  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/proctape-ci.XXXXXX") || die 5 "install: cannot make a temporary directory"
  # shellcheck disable=SC2064  # expanded now: the directory of this run
  trap "rm -rf -- '$work'" EXIT
  chmod 0755 "$work"  # apt's _apt user reads the .deb from here
  fetch "$source" "$work/artifact"

  if [[ -n $sha256 ]]; then
    local sum
    sum=$(sha256sum -- "$work/artifact") || die 3 "install: cannot read $source"
    [[ ${sum%% *} == "${sha256,,}" ]] ||
      die 4 "install: $source has SHA-256 ${sum%% *}, not the $sha256 expected"
  fi

  local kind
  kind=$(artifact_kind "$work/artifact")
  case $kind in
    deb) install_deb "$source" "$work" "$dir" ;;
    "elf-$arch") install_binary "$source" "$work/artifact" "${dir:-$(default_bin_dir)}" ;;
    elf-x86_64 | elf-aarch64) die 4 "install: $source is a binary for ${kind#elf-}, not this $arch machine" ;;
    elf-other) die 4 "install: $source is an ELF binary for another machine than $arch" ;;
    *) die 4 "install: $source is neither a Debian package nor a proctape binary" ;;
  esac
}

install_deb() {  # SOURCE WORKDIR [DIR]
  local source=$1 deb=$2/proctape.deb dir=${3:-} status=0
  mv -- "$2/artifact" "$deb"
  chmod 0644 "$deb"
  can_be_root || die 5 "install: a .deb is installed as root: run as root or with passwordless sudo, or install the portable binary"
  if command -v apt-get >/dev/null 2>&1; then
    # apt-get installs the package's Depends too; an empty or stale package
    # index (a fresh container) is refreshed once.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >&2 || {
      as_root apt-get update -qq >&2 || true
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >&2 || status=$?
    }
    ((status == 0)) || die 5 "install: apt-get could not install $source (exit $status)"
  else
    as_root dpkg -i "$deb" >&2 || status=$?
    ((status == 0)) || die 5 "install: dpkg -i could not install $source (exit $status)"
  fi
  local bin found
  bin=$(package_binary) || die 4 "install: the package of $source put no proctape on PATH"
  printf '%s: installed %s (Debian package) as %s\n' "$ME" "$(version_of "$bin" "$bin")" "$bin"
  # The package's binary is where 'proctape' is found, or the next steps
  # run another one: said, loudly.
  found=$(command -v proctape 2>/dev/null || true)
  if [[ $found != "$bin" && -z $dir ]]; then
    printf '%s: install: warning: proctape on PATH is %s, not the package'"'"'s %s\n' "$ME" \
      "${found:-nothing}" "$bin" >&2
  fi
  # --dir DIR: where the steps after look (GitLab's after_script: the project
  # directory), a copy of the package's binary, which runs with the
  # libraries the package's Depends installed.
  if [[ -n $dir ]]; then place_binary "$source" "$bin" "$dir" "Debian package's binary, a copy"; fi
}

# The binary the proctape package installed (dpkg's list of its files), else
# proctape on PATH.
package_binary() {
  local listed
  listed=$(dpkg-query -L proctape 2>/dev/null | grep -m1 -x '.*/bin/proctape' || true)
  if [[ -n $listed && -x $listed ]]; then
    printf '%s' "$listed"
  else
    command -v proctape
  fi
}

install_binary() {  # SOURCE FILE DIR
  place_binary "$1" "$2" "$3" "portable binary"
}

# FILE copied to DIR/proctape, checked to run there before it replaces
# anything, and DIR put on PATH for the steps after (GitHub's GITHUB_PATH)
# or said to be off it. WHAT: how the line names it.
place_binary() {  # SOURCE FILE DIR WHAT
  local source=$1 file=$2 dir=$3 what=$4 tmp version
  mkdir -p -- "$dir" 2>/dev/null || die 5 "install: cannot make the directory $dir"
  [[ -d $dir && -w $dir ]] || die 5 "install: $dir is not a directory this user can write"
  # Checked before it replaces anything: a temporary name beside the target,
  # renamed over DIR/proctape only once it runs.
  tmp=$(mktemp "$dir/.proctape.XXXXXX") || die 5 "install: cannot write into $dir"
  if ! cp -- "$file" "$tmp" || ! chmod 0755 "$tmp"; then
    rm -f -- "$tmp"
    die 5 "install: cannot write $tmp"
  fi
  version=$("$tmp" --version 2>&1) || {
    rm -f -- "$tmp"
    die 4 "install: $source does not run here: ${version%%$'\n'*}"
  }
  mv -f -- "$tmp" "$dir/proctape" || { rm -f -- "$tmp"; die 5 "install: cannot write $dir/proctape"; }
  printf '%s: installed %s (%s) as %s\n' "$ME" "${version%%$'\n'*}" "$what" "$dir/proctape"
  if ! on_path "$dir"; then
    if [[ -n ${GITHUB_PATH:-} ]]; then
      printf '%s\n' "$dir" >>"$GITHUB_PATH"  # on PATH from the next step on
    else
      # shellcheck disable=SC2016  # $PATH is for the reader to type
      printf '%s: %s is not on PATH: export PATH="%s:$PATH"\n' "$ME" "$dir" "$dir" >&2
    fi
  fi
}

# ---- capture ---------------------------------------------------------------

# The comm (stat field 2) and parent of PID, as "PPID COMM"; fails if gone.
comm_and_parent() {
  local stat rest after state ppid
  stat=$(<"/proc/$1/stat") 2>/dev/null || return 1
  rest=${stat#*(}
  after=${stat##*) }
  read -r state ppid _ <<<"$after"
  : "$state"
  printf '%s %s' "$ppid" "${rest%)*}"
}

# The nearest ancestor of this script whose comm is one of RUNNER_COMMS.
find_runner() {
  local pid=$PPID line comm name
  while [[ $pid =~ ^[0-9]+$ ]] && ((pid > 1)); do
    line=$(comm_and_parent "$pid") || return 1
    comm=${line#* }
    for name in "${RUNNER_COMMS[@]}"; do
      [[ $comm == "$name" ]] && { printf '%s %s' "$pid" "$comm"; return 0; }
    done
    pid=${line%% *}
  done
  return 1
}

find_proctape() {  # [FILE]
  local candidate
  if [[ -n $1 ]]; then
    [[ -x $1 ]] && { printf '%s' "$1"; return 0; }
    return 1
  fi
  for candidate in "$(command -v proctape 2>/dev/null || true)" /usr/local/bin/proctape \
    "${HOME:-/nonexistent}/.local/bin/proctape"; do
    [[ -n $candidate && -x $candidate ]] && { printf '%s' "$candidate"; return 0; }
  done
  return 1
}

# A name without anything but [A-Za-z0-9._-] (the MANIFEST is tab-separated,
# one file a line).
safe_name() {
  local name=${1//[^A-Za-z0-9._-]/_}
  printf '%s' "${name:-_}"
}

cmd_capture() {
  OUT='proctape-artifacts'
  local root="" recordings=() frames=3 interval=500 timeout=60 max_recordings=200
  local proctape_arg="" strict=0 comms_given=0
  RUNNER_COMMS=(Runner.Worker gitlab-runner)
  while (($#)); do
    case $1 in
      --out) OUT=$(value_of "$@"); shift 2 ;;
      --root) root=$(value_of "$@"); shift 2 ;;
      --runner-comm)
        ((comms_given)) || RUNNER_COMMS=()
        comms_given=1
        RUNNER_COMMS+=("$(value_of "$@")")
        shift 2
        ;;
      --recordings) recordings+=("$(value_of "$@")"); shift 2 ;;
      --frames) frames=$(value_of "$@"); shift 2 ;;
      --interval) interval=$(value_of "$@"); shift 2 ;;
      --timeout) timeout=$(value_of "$@"); shift 2 ;;
      --max-recordings) max_recordings=$(value_of "$@"); shift 2 ;;
      --proctape) proctape_arg=$(value_of "$@"); shift 2 ;;
      --strict) strict=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage_error "capture: unknown argument $1" ;;
    esac
  done
  [[ -n $OUT ]] || usage_error "--out must name a directory"
  [[ -z $root || $root == parent || $root =~ ^[1-9][0-9]{0,9}$ ]] ||
    usage_error "--root must be a pid or 'parent', not '$root'"
  positive_int --frames "$frames"
  positive_int --interval "$interval"
  positive_int --timeout "$timeout"
  positive_int --max-recordings "$max_recordings"

  # From here on nothing fails the job: an unexpected failure ends the
  # capture with what it gathered, status 0 (6 with --strict).
  STRICT=$strict
  PROBLEMS=0
  NOT_CAPTURED=""
  trap 'capture_exit $?' EXIT

  mkdir -p -- "$OUT/recordings" "$OUT/reports" 2>/dev/null || {
    not_captured "cannot make the artifact directory $OUT: nothing captured"
    exit 0
  }
  : >"$OUT/MANIFEST.tmp" 2>/dev/null || {
    not_captured "cannot write into $OUT: nothing captured"
    exit 0
  }
  header "proctape-ci capture, $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(ci_job)"

  local proctape="" version
  if ! proctape=$(find_proctape "$proctape_arg"); then
    not_captured "no proctape to run (${proctape_arg:-not on PATH, /usr/local/bin or ~/.local/bin}): recordings gathered unverified"
    proctape=""
  elif ! version=$(run_bounded "$timeout" "$proctape" --version 2>&1); then
    not_captured "$proctape does not run here (${version%%$'\n'*}): recordings gathered unverified"
    proctape=""
  else
    header "proctape: ${version%%$'\n'*} ($proctape)"
  fi

  if [[ -n $proctape ]]; then
    local runner frame_options=(--frames "$frames")
    # proctape refuses an interval for one frame.
    ((frames == 1)) || frame_options+=(--interval "$interval")
    if [[ $root == parent ]]; then
      capture_tree "$proctape" "$PPID" "the process that ran this script" "$timeout" "${frame_options[@]}"
    elif [[ -n $root ]]; then
      capture_tree "$proctape" "$root" "--root" "$timeout" "${frame_options[@]}"
    elif runner=$(find_runner); then
      capture_tree "$proctape" "${runner%% *}" "the runner process \"${runner#* }\"" "$timeout" \
        "${frame_options[@]}"
    else
      header "job.ptape: every process visible here (no ancestor named ${RUNNER_COMMS[*]})"
      capture_one "$proctape" job.ptape "$timeout" "${frame_options[@]}"
    fi
  fi

  local dir count=0 file name
  for dir in "${recordings[@]}"; do
    if [[ ! -d $dir ]]; then
      header "recordings: $(printf '%q' "$dir") is not a directory (the launcher left none)"
      continue
    fi
    while IFS= read -r -d '' file; do
      if ((count >= max_recordings)); then
        problem "more than $max_recordings recordings: the rest of $(printf '%q' "$dir") left out"
        break
      fi
      count=$((count + 1))
      name=$(printf 'recordings/%03d-%s' "$count" "$(safe_name "${file##*/}")")
      if cp -- "$file" "$OUT/$name.tmp" 2>/dev/null && mv -f -- "$OUT/$name.tmp" "$OUT/$name"; then
        header "$name: $(printf '%q' "$file")"
      else
        rm -f -- "$OUT/$name.tmp"
        problem "cannot copy $(printf '%q' "$file")"
      fi
    done < <(find "$dir" -type f \( -name '*.ptape' -o -name '*.partial' \) -print0 2>/dev/null | sort -z)
  done

  write_manifest "$proctape" "$timeout"
}

ci_job() {
  if [[ ${GITHUB_ACTIONS:-} == true ]]; then
    printf 'GitHub Actions run %s job %s' "${GITHUB_RUN_ID:-?}" "${GITHUB_JOB:-?}"
  elif [[ ${GITLAB_CI:-} == true ]]; then
    printf 'GitLab CI job %s (%s)' "${CI_JOB_ID:-?}" "${CI_JOB_NAME:-?}"
  else
    printf 'no known CI'
  fi
}

# Lines of the MANIFEST's header ('# ...'), written as the capture goes.
header() { { printf '# %s\n' "$*" >>"$OUT/MANIFEST.tmp"; } 2>/dev/null || true; }
# Something not captured: standard error and the MANIFEST; counted for --strict.
problem() {
  PROBLEMS=$((PROBLEMS + 1))
  printf '%s: capture: %s\n' "$ME" "$*" >&2
  header "problem: $*"
}
# The job's processes not captured at all: a problem, and said loudly when
# the capture ends (loud_not_captured).
not_captured() {
  problem "$*"
  NOT_CAPTURED+="${NOT_CAPTURED:+; }$*"
}
# The banner a job log cannot miss, on standard error; on GitHub Actions an
# error annotation too (shown on the run's page) and the step summary.
loud_not_captured() {
  local rule='========================================================================'
  {
    printf '%s: %s\n' "$ME" "$rule"
    printf '%s: NOT CAPTURED: %s\n' "$ME" "$NOT_CAPTURED"
    printf '%s: the failing job'"'"'s processes are not in %s: install proctape before the job\n' "$ME" "$OUT"
    printf '%s: runs (proctape-ci.sh install), or give --proctape FILE\n' "$ME"
    printf '%s: %s\n' "$ME" "$rule"
  } >&2
  header "NOT CAPTURED: $NOT_CAPTURED"
  if [[ ${GITHUB_ACTIONS:-} == true ]]; then
    printf '::error title=proctape-ci: NOT CAPTURED::%s\n' "$NOT_CAPTURED"
    { printf '### proctape: NOT CAPTURED\n\n%s\n' "$NOT_CAPTURED" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"; } 2>/dev/null || true
  fi
}

capture_exit() {
  local status=$1
  trap - EXIT
  if ((status != 0)); then
    printf '%s: capture: stopped by an unexpected failure (status %d); what was gathered is in %s\n' \
      "$ME" "$status" "$OUT" >&2
    PROBLEMS=$((PROBLEMS + 1))
  fi
  if [[ -n $NOT_CAPTURED ]]; then loud_not_captured; fi
  if [[ -f $OUT/MANIFEST.tmp ]]; then mv -f -- "$OUT/MANIFEST.tmp" "$OUT/MANIFEST" 2>/dev/null || true; fi
  if ((STRICT && PROBLEMS > 0)); then exit 6; fi
  exit 0
}

# "$@" cut after SECONDS: SIGTERM (a capture then finishes its file with the
# frames it completed), SIGKILL 10 s later.
run_bounded() {
  local seconds=$1
  shift
  timeout --signal=TERM --kill-after=10 "$seconds" "$@"
}

capture_tree() {  # PROCTAPE PID HOW TIMEOUT FRAME-OPTIONS...
  local proctape=$1 root=$2 how=$3 seconds=$4
  shift 4
  header "job.ptape: the processes beneath pid $root ($how)"
  capture_one "$proctape" job.ptape "$seconds" --root "$root" "$@"
  header "host.ptape: every process visible here"
  capture_one "$proctape" host.ptape "$seconds" --frames 1
}

capture_one() {  # PROCTAPE NAME TIMEOUT ARGS...
  local proctape=$1 name=$2 seconds=$3 status=0 err
  shift 3
  err=$(run_bounded "$seconds" "$proctape" capture -o "$OUT/$name" --force "$@" 2>&1 >/dev/null) || status=$?
  case $status in
    0) ;;
    5) header "$name: its root is in no frame (gone before the capture)" ;;
    8) problem "$name: cut by a bound, not every process: ${err%%$'\n'*}" ;;
    124 | 130 | 143) problem "$name: cut after $seconds s, keeping the frames it finished" ;;
    *) problem "$name: proctape capture exit $status: ${err%%$'\n'*}" ;;
  esac
  # No file at all: the job's processes are not captured.
  if [[ $name == job.ptape && ! -f $OUT/$name ]]; then
    not_captured "job.ptape: proctape capture wrote nothing (exit $status: ${err%%$'\n'*})"
  fi
}

# reports/ and the MANIFEST's lines: verify of every file gathered.
write_manifest() {  # PROCTAPE TIMEOUT
  local proctape=$1 seconds=$2 file rel status verdict bytes sum files=0 damaged=0
  header "status	bytes	sha256	file	verify"
  while IFS= read -r -d '' file; do
    rel=${file#"$OUT"/}
    files=$((files + 1))
    bytes=$(stat -c %s -- "$file" 2>/dev/null || echo '?')
    sum=$(sha256sum -- "$file" 2>/dev/null || echo '?')
    status=- verdict="not verified (no proctape)"
    if [[ -n $proctape ]]; then
      local report=$OUT/reports/${rel//\//_}
      status=0
      verdict=$(run_bounded "$seconds" "$proctape" verify -- "$file" 2>&1) || status=$?
      verdict=${verdict%%$'\n'*}
      verdict=${verdict#"proctape: "}
      verdict=${verdict#"$file: "}
      run_bounded "$seconds" "$proctape" verify --json -- "$file" >"$report.verify.json" 2>&1 || true
      run_bounded "$seconds" "$proctape" show --json -- "$file" >"$report.show.json" 2>&1 || true
      if ((status != 0)); then  # its MANIFEST line says so
        damaged=$((damaged + 1))
        PROBLEMS=$((PROBLEMS + 1))
        printf '%s: capture: %s: %s\n' "$ME" "$rel" "$verdict" >&2
      fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$status" "$bytes" "${sum%% *}" "$rel" "$verdict" >>"$OUT/MANIFEST.tmp"
  done < <(find "$OUT" -maxdepth 2 -type f \( -name '*.ptape' -o -name '*.partial' \) \
    -not -path "$OUT/reports/*" -print0 | sort -z)

  local summary="wrote $OUT: $files files, $damaged not intact, MANIFEST"
  printf '%s: %s\n' "$ME" "$summary"
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    { printf '### proctape: %s\n\n```\n' "$summary"; cat -- "$OUT/MANIFEST.tmp"; printf '```\n'; } \
      >>"$GITHUB_STEP_SUMMARY" 2>/dev/null || true
  fi
}

main() {
  (($#)) || { usage >&2; exit 2; }
  local command=$1
  shift
  case $command in
    install) cmd_install "$@" ;;
    capture) cmd_capture "$@" ;;
    -h | --help | help) usage ;;
    *) usage_error "unknown command '$command': install or capture" ;;
  esac
}

main "$@"
