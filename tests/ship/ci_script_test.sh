#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# contrib/ci/proctape-ci.sh, run here as a CI job would: one ctest test per
# case (ci_tests.cmake). 'install' from a local file into a temporary
# directory on PATH (never /usr); a .deb through a stub apt-get (installing a
# package changes the machine); 'capture' of a real process tree with a fake
# runner process above it and a recordings directory of intact, damaged and
# foreign files; the YAML files that call the script.
#   ci_script_test.sh CASE PROCTAPE SOURCE_DIR
# Every process a case starts is ended by its pid when the case ends.
# shellcheck disable=SC2016  # '$...' in single quotes: text for another shell
set -euo pipefail

case_name=${1:?case} proctape=${2:?proctape binary} source_dir=${3:?source dir}
script=$source_dir/contrib/ci/proctape-ci.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-ci-test.XXXXXX")
started=()  # pids of the processes this case started
cleanup() {
  local pid
  for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf -- "$tmp"
}
trap cleanup EXIT

# shellcheck source=tests/ship/ci_test_lib.sh
source "$(dirname "$0")/ci_test_lib.sh"

install_portable_binary_from_a_file_onto_path() {
  local artifact sum
  artifact=$(portable_artifact)
  sum=$(sha256sum "$artifact")
  : >"$tmp/github_path"
  run 0 "${ci_env[@]}" "PATH=$base_path" "GITHUB_PATH=$tmp/github_path" \
    bash "$script" install --dir "$tmp/bin" --sha256 "${sum%% *}" "$artifact"
  grep -qxE "proctape-ci: installed proctape [0-9.]+( \([^)]*\))?( Apache-2\.0)? \(portable binary\) as $tmp/bin/proctape" "$tmp/out" ||
    fail "install did not say what it installed where: $(cat "$tmp/out")"
  cmp -s "$proctape" "$tmp/bin/proctape" || fail "$tmp/bin/proctape is not the artifact"
  [[ -x $tmp/bin/proctape ]] || fail "$tmp/bin/proctape is not executable"
  grep -qx "$tmp/bin" "$tmp/github_path" || fail "the directory was not added to GITHUB_PATH"
  [[ $(PATH="$tmp/bin:$base_path" command -v proctape) == "$tmp/bin/proctape" ]] ||
    fail "proctape on PATH is not the installed one"
  PATH="$tmp/bin:$base_path" proctape --version >/dev/null || fail "the installed proctape does not run"
  # Again, over the first: replaced whole, nothing left beside it.
  run 0 "${ci_env[@]}" "PATH=$tmp/bin:$base_path" bash "$script" install --dir "$tmp/bin" "$artifact"
  [[ $(ls -A "$tmp/bin") == proctape ]] || fail "left beside it: $(ls -A "$tmp/bin")"
}

install_refuses_another_checksum_and_installs_nothing() {
  local artifact
  artifact=$(portable_artifact)
  run 4 "${ci_env[@]}" "PATH=$base_path" bash "$script" install --dir "$tmp/bin" \
    --sha256 "$(printf '0%.0s' {1..64})" "$artifact"
  one_error_line "$artifact" SHA-256
  [[ ! -e $tmp/bin/proctape ]] || fail "installed all the same"
}

install_refuses_what_is_not_an_artifact() {
  mkdir -p "$tmp/dl"
  printf '#!/bin/sh\necho proctape 9\n' >"$tmp/dl/proctape-0.1.0-linux-x86_64"
  run 4 "${ci_env[@]}" "PATH=$base_path" bash "$script" install --dir "$tmp/bin" "$tmp/dl/proctape-0.1.0-linux-x86_64"
  one_error_line "neither a Debian package nor a proctape binary"
  run 3 "${ci_env[@]}" "PATH=$base_path" bash "$script" install --dir "$tmp/bin" "$tmp/dl/absent.deb"
  one_error_line "$tmp/dl/absent.deb" "no such file"
  run 3 "${ci_env[@]}" "PATH=$base_path" bash "$script" install --dir "$tmp/bin" "$tmp/dl"
  one_error_line "not a regular file"
  run 2 "${ci_env[@]}" "PATH=$base_path" bash "$script" install --dir "$tmp/bin"
  one_error_line "ARTIFACT"
  run 2 "${ci_env[@]}" "PATH=$base_path" bash "$script" install --frames 2 "$tmp/dl/absent.deb"
  one_error_line "--frames"
  [[ ! -e $tmp/bin/proctape ]] || fail "installed all the same"
}

# apt-get and sudo stubs: apt-get logs its arguments and "installs" by
# copying the built proctape onto PATH; APT_STALE=1 fails an install until
# 'apt-get update' ran, APT_BROKEN=1 fails every install.
make_apt_stubs() {
  mkdir -p "$tmp/stub"
  cat >"$tmp/stub/apt-get" <<STUB
#!/bin/bash
printf '%s\n' "\$*" >>"$tmp/apt.log"
case \$1 in
  update) : >"$tmp/apt.updated"; exit 0 ;;
  install)
    [[ \${APT_BROKEN:-0} == 1 ]] && exit 100
    [[ \${APT_STALE:-0} == 1 && ! -e "$tmp/apt.updated" ]] && exit 100
    [[ \$(head -c 7 "\${@: -1}") == '!<arch>' ]] || exit 100
    cp "$proctape" "$tmp/stub/proctape" ;;
esac
STUB
  printf '#!/bin/bash\n[[ $1 == -n ]] && shift\nexec "$@"\n' >"$tmp/stub/sudo"
  chmod +x "$tmp/stub/apt-get" "$tmp/stub/sudo"
  mkdir -p "$tmp/dl"
  printf '!<arch>\ndebian-binary   0           0     0     100644  4         `\n2.0\n' >"$tmp/dl/proctape_0.1.0_amd64.deb"
}

install_deb_through_apt_get_with_its_dependencies() {
  make_apt_stubs
  run 0 "${ci_env[@]}" "PATH=$tmp/stub:$base_path" APT_STALE=1 bash "$script" install "$tmp/dl/proctape_0.1.0_amd64.deb"
  grep -qxE "proctape-ci: installed proctape [0-9.]+( \([^)]*\))?( Apache-2\.0)? \(Debian package\) as $tmp/stub/proctape" "$tmp/out" ||
    fail "install did not say what it installed where: $(cat "$tmp/out")"
  # The package by its absolute path (apt-get installs a file only so, with
  # its Depends); the stale index refreshed once, then installed.
  grep -Eq '^install -y -qq /.*\.deb$' "$tmp/apt.log" || fail "apt-get was not given the .deb: $(cat "$tmp/apt.log")"
  [[ $(sed -n 2p "$tmp/apt.log") == "update -qq" ]] || fail "no apt-get update after a failed install: $(cat "$tmp/apt.log")"
  [[ $(wc -l <"$tmp/apt.log") -eq 3 ]] || fail "apt-get not install, update, install: $(cat "$tmp/apt.log")"
  rm -f "$tmp/stub/proctape" "$tmp/apt.log" "$tmp/apt.updated"
  run 5 "${ci_env[@]}" "PATH=$tmp/stub:$base_path" APT_BROKEN=1 bash "$script" install "$tmp/dl/proctape_0.1.0_amd64.deb"
  [[ $(tail -n1 "$tmp/err") == "proctape-ci: install: apt-get could not install $tmp/dl/proctape_0.1.0_amd64.deb (exit 100)" ]] ||
    fail "a failed apt-get not said on one line: $(cat "$tmp/err")"
}

# --dir DIR with a .deb: the package installed (its Depends with it) and its
# binary copied to DIR/proctape, where a later step looks (GitLab's
# after_script: the project directory), checked to run there.
install_deb_with_dir_also_puts_proctape_in_dir() {
  make_apt_stubs
  run 0 "${ci_env[@]}" "PATH=$tmp/stub:$base_path" bash "$script" install --dir "$tmp/bin" "$tmp/dl/proctape_0.1.0_amd64.deb"
  grep -qE "^proctape-ci: installed proctape .* \(Debian package\) as $tmp/stub/proctape$" "$tmp/out" ||
    fail "the package's binary is not said: $(cat "$tmp/out")"
  grep -qE "^proctape-ci: installed proctape .* \(Debian package's binary, a copy\) as $tmp/bin/proctape$" "$tmp/out" ||
    fail "the copy in --dir is not said: $(cat "$tmp/out")"
  cmp -s "$proctape" "$tmp/bin/proctape" || fail "$tmp/bin/proctape is not the package's binary"
  "$tmp/bin/proctape" --version >/dev/null || fail "$tmp/bin/proctape does not run"
  grep -q "proctape-ci: $tmp/bin is not on PATH" "$tmp/err" || fail "DIR off PATH is not said: $(cat "$tmp/err")"
}

# A capture that cannot be made is said loudly: a banner on standard error,
# an error annotation on GitHub Actions, a line in the MANIFEST; exit 0 all
# the same (6 with --strict). No proctape, and a proctape that does not run.
capture_says_loudly_when_it_cannot_capture() {
  printf '#!/bin/sh\necho "error while loading shared libraries: libprotobuf.so.32" >&2\nexit 127\n' >"$tmp/broken"
  chmod +x "$tmp/broken"
  local given
  for given in "$tmp/no-proctape" "$tmp/broken"; do
    rm -rf "$tmp/out-dir"
    : >"$tmp/summary"
    run 0 "${ci_env[@]}" "PATH=$base_path" GITHUB_ACTIONS=true "GITHUB_STEP_SUMMARY=$tmp/summary" \
      bash "$script" capture --out "$tmp/out-dir" --proctape "$given"
    grep -qx 'proctape-ci: =*' "$tmp/err" || fail "no banner: $(cat "$tmp/err")"
    grep -q "^proctape-ci: NOT CAPTURED: .*$given" "$tmp/err" || fail "the banner does not say why: $(cat "$tmp/err")"
    grep -q "^::error title=proctape-ci: NOT CAPTURED::.*$given" "$tmp/out" || fail "no GitHub error annotation: $(cat "$tmp/out")"
    grep -q "^# NOT CAPTURED: " "$tmp/out-dir/MANIFEST" || fail "the MANIFEST does not say it: $(cat "$tmp/out-dir/MANIFEST")"
    grep -q "NOT CAPTURED" "$tmp/summary" || fail "the step summary does not say it"
  done
  grep -q "does not run here (error while loading shared libraries" "$tmp/err" || fail "why it does not run: $(cat "$tmp/err")"
  run 6 "${ci_env[@]}" "PATH=$base_path" bash "$script" capture --out "$tmp/out-dir" --proctape "$tmp/broken" --strict
}

# A capture a bound cut (proctape exits 8) is a problem: its file is kept,
# the MANIFEST and standard error say so, --strict fails on it.
capture_cut_by_a_bound_is_a_problem() {
  printf '#!/bin/sh\nif [ "$1" = capture ]; then exec "%s" "$@" --max-processes 1; fi\nexec "%s" "$@"\n' \
    "$proctape" "$proctape" >"$tmp/bounded"
  chmod +x "$tmp/bounded"
  run 0 "${ci_env[@]}" "PATH=$base_path" bash "$script" capture --out "$tmp/out-dir" --frames 1 \
    --runner-comm no-such-runner --proctape "$tmp/bounded"
  grep -q "^proctape-ci: capture: job.ptape: cut by a bound, not every process: .*cut by a bound (max-processes)" "$tmp/err" ||
    fail "the cut is not said: $(cat "$tmp/err")"
  grep -q "^# problem: job.ptape: cut by a bound" "$tmp/out-dir/MANIFEST" || fail "$(cat "$tmp/out-dir/MANIFEST")"
  [[ $(manifest_status job.ptape) == 0 ]] || fail "the cut file is not kept intact: $(cat "$tmp/out-dir/MANIFEST")"
  ! grep -q 'NOT CAPTURED' "$tmp/err" || fail "a cut capture is a capture: $(cat "$tmp/err")"
  rm -rf "$tmp/out-dir"
  run 6 "${ci_env[@]}" "PATH=$base_path" bash "$script" capture --out "$tmp/out-dir" --frames 1 \
    --runner-comm no-such-runner --proctape "$tmp/bounded" --strict
}

# A recordings directory as a launcher leaves it: an intact recording (the
# corpus's), a capture killed mid-write, a file that only has the suffix, a
# file of another kind (not gathered), in a subdirectory too.
make_recordings() {
  mkdir -p "$tmp/rec/nested"
  cp "$source_dir/corpus/021e7cdf322033a4.ptape" "$tmp/rec/failure run.ptape"
  head -c 3000 "$source_dir/corpus/03c2b776b0e839d3.ptape" >"$tmp/rec/nested/cut.ptape.Ab12Cd.partial"
  printf 'not a recording\n' >"$tmp/rec/nested/junk.ptape"
  printf 'launcher log\n' >"$tmp/rec/launcher.log"
}

# MANIFEST's lines of files: STATUS BYTES SHA256 NAME VERDICT, tab-separated.
manifest_status() {  # NAME
  awk -F'\t' -v n="$1" '!/^#/ && $4 == n { print $1 }' "$tmp/out-dir/MANIFEST"
}
# Every file in the artifact directory has a line, whose status is verify's
# and whose size and SHA-256 are the file's; every report is JSON.
check_manifest() {
  local status bytes sum name verdict listed=0 real
  while IFS=$'\t' read -r status bytes sum name verdict; do
    [[ $status == \#* ]] && continue
    listed=$((listed + 1))
    [[ -f $tmp/out-dir/$name ]] || fail "MANIFEST lists $name, which is not there"
    real=0
    "$proctape" verify "$tmp/out-dir/$name" >/dev/null 2>&1 || real=$?
    [[ $status == "$real" ]] || fail "MANIFEST says $name is $status, verify says $real"
    [[ $bytes == $(stat -c %s "$tmp/out-dir/$name") ]] || fail "MANIFEST's size of $name"
    [[ $sum == $(sha256sum <"$tmp/out-dir/$name" | cut -d' ' -f1) ]] || fail "MANIFEST's SHA-256 of $name"
    [[ -n $verdict ]] || fail "MANIFEST has no verdict for $name"
    local report=$tmp/out-dir/reports/${name//\//_}
    [[ $(head -c1 "$report.verify.json") == '{' && $(head -c1 "$report.show.json") == '{' ]] ||
      fail "reports of $name are not JSON"
  done <"$tmp/out-dir/MANIFEST"
  real=$(find "$tmp/out-dir" -type f \( -name '*.ptape' -o -name '*.partial' \) | wc -l)
  ((listed == real)) || fail "MANIFEST lists $listed files, the directory holds $real"
}

# A process tree as a CI job has it: a runner process (a copy of bash named
# fake-runner), beneath it a shell that started a sleep and a PID-namespace
# sandbox, and that runs the capture step.
capture_job_tree_beneath_the_runner_with_its_recordings() {
  make_recordings
  cp /bin/bash "$tmp/fake-runner"
  local sandbox=0
  unshare --pid --fork true 2>/dev/null && sandbox=1
  "${ci_env[@]}" "PATH=$(dirname "$proctape"):$base_path" "$tmp/fake-runner" -c '
    sh -c "sleep 300 & echo \$! >\"$1/sleep.pid\"
           unshare --pid --fork --kill-child sleep 300 & echo \$! >\"$1/unshare.pid\"
           bash \"$2\" capture --out \"$1/out-dir\" --recordings \"$1/rec\" --recordings \"$1/absent\" \
             --frames 2 --interval 100 --runner-comm fake-runner >\"$1/out\" 2>\"$1/err\"
           echo \$? >\"$1/status\"
           kill -KILL \$(cat \"$1/sleep.pid\") \$(cat \"$1/unshare.pid\")  # unshare ignores SIGTERM
           wait"
    true  # not a lone command: bash would exec it, and the runner be gone
  ' _ "$tmp" "$script" &
  started+=($!)
  local runner=$!
  wait "$runner" || true
  [[ $(cat "$tmp/status") == 0 ]] || fail "capture exited $(cat "$tmp/status"): $(cat "$tmp/err")"
  grep -q "^# job.ptape: the processes beneath pid $runner (the runner process \"fake-runner\")$" "$tmp/out-dir/MANIFEST" ||
    fail "job.ptape is not of the runner's tree: $(cat "$tmp/out-dir/MANIFEST")"
  [[ $(manifest_status job.ptape) == 0 && $(manifest_status host.ptape) == 0 ]] ||
    fail "job.ptape and host.ptape are not intact: $(cat "$tmp/out-dir/MANIFEST")"
  "$proctape" show --pid "$(cat "$tmp/sleep.pid")" "$tmp/out-dir/job.ptape" >/dev/null ||
    fail "the job's sleep is not in job.ptape"
  if ((sandbox)); then
    "$proctape" show --pid "$(cat "$tmp/unshare.pid")" "$tmp/out-dir/job.ptape" >/dev/null ||
      fail "the job's sandbox is not in job.ptape"
  fi
  local frames
  frames=$("$proctape" verify --json "$tmp/out-dir/job.ptape" | grep -o '"frames":[0-9]*')
  [[ $frames == '"frames":2' ]] || fail "job.ptape has $frames, not the 2 frames asked"
  # Not the whole host: the test runner (an ancestor of fake-runner) is not in it.
  if "$proctape" show --pid "$$" "$tmp/out-dir/job.ptape" >/dev/null 2>&1; then
    fail "job.ptape holds processes outside the runner's tree"
  fi
  "$proctape" show --pid "$$" "$tmp/out-dir/host.ptape" >/dev/null || fail "host.ptape is not of the whole host"
  cmp -s "$tmp/rec/failure run.ptape" "$tmp/out-dir/recordings/001-failure_run.ptape" ||
    fail "the intact recording was not copied as is: $(ls "$tmp/out-dir/recordings")"
  [[ $(manifest_status recordings/001-failure_run.ptape) == 0 ]] || fail "the intact recording is not 0"
  [[ $(manifest_status recordings/002-cut.ptape.Ab12Cd.partial) == 13 ]] || fail "the cut capture is not 13 (truncated)"
  [[ $(manifest_status recordings/003-junk.ptape) == 11 ]] || fail "the foreign file is not 11 (not a proctape file)"
  if compgen -G "$tmp/out-dir/recordings/*launcher*" >/dev/null; then
    fail "a file that is no recording was gathered"
  fi
  grep -q "^# recordings: .*absent is not a directory" "$tmp/out-dir/MANIFEST" || fail "the absent directory is not said"
  grep -q "^# recordings/001-failure_run.ptape: $tmp/rec/failure\\\\ run.ptape$" "$tmp/out-dir/MANIFEST" ||
    fail "where a recording came from is not said"
  check_manifest
  grep -qx "proctape-ci: wrote $tmp/out-dir: 5 files, 2 not intact, MANIFEST" "$tmp/out" || fail "summary: $(cat "$tmp/out")"
}

capture_of_a_root_given_and_the_whole_host_without_a_runner() {
  sleep 300 &
  started+=($!)
  local sleep_pid=$!
  run 0 "${ci_env[@]}" "PATH=$(dirname "$proctape"):$base_path" bash "$script" capture --out "$tmp/out-dir" \
    --root "$sleep_pid" --frames 1 --interval 100
  grep -q "^# job.ptape: the processes beneath pid $sleep_pid (--root)$" "$tmp/out-dir/MANIFEST" || fail "$(cat "$tmp/out-dir/MANIFEST")"
  "$proctape" show --pid "$sleep_pid" "$tmp/out-dir/job.ptape" >/dev/null || fail "the root is not in job.ptape"
  check_manifest
  # No runner among the ancestors: every process visible, in job.ptape alone.
  rm -rf "$tmp/out-dir"
  run 0 "${ci_env[@]}" "PATH=$(dirname "$proctape"):$base_path" bash "$script" capture --out "$tmp/out-dir" \
    --frames 1 --runner-comm no-such-runner
  grep -q "^# job.ptape: every process visible here (no ancestor named no-such-runner)$" "$tmp/out-dir/MANIFEST" ||
    fail "$(cat "$tmp/out-dir/MANIFEST")"
  "$proctape" show --pid "$$" "$tmp/out-dir/job.ptape" >/dev/null || fail "job.ptape is not of the whole host"
  [[ ! -e $tmp/out-dir/host.ptape ]] || fail "host.ptape beside a whole-host job.ptape"
  check_manifest
}

# A pid no process has, below this host's pid_max (one above is a usage error).
absent_pid() {
  local p=$(($(cat /proc/sys/kernel/pid_max) - 1))
  while [[ -e /proc/$p ]]; do p=$((p - 1)); done
  echo "$p"
}

capture_never_fails_the_job_unless_strict() {
  make_recordings
  local gone
  gone=$(absent_pid)
  # No proctape to run: the recordings are gathered all the same, unverified.
  run 0 "${ci_env[@]}" "PATH=$base_path" bash "$script" capture --out "$tmp/out-dir" --recordings "$tmp/rec" \
    --proctape "$tmp/no-proctape"
  grep -q "no proctape to run" "$tmp/err" || fail "the missing proctape not said: $(cat "$tmp/err")"
  [[ $(manifest_status recordings/001-failure_run.ptape) == - ]] || fail "$(cat "$tmp/out-dir/MANIFEST")"
  cmp -s "$tmp/rec/failure run.ptape" "$tmp/out-dir/recordings/001-failure_run.ptape" || fail "not gathered"
  run 6 "${ci_env[@]}" "PATH=$base_path" bash "$script" capture --out "$tmp/out-dir" --recordings "$tmp/rec" \
    --proctape "$tmp/no-proctape" --strict
  # Damaged recordings: 0, and 6 only with --strict; a root that is gone is
  # no failure (its capture is written, and says so).
  run 0 "${ci_env[@]}" "PATH=$(dirname "$proctape"):$base_path" bash "$script" capture --out "$tmp/out2" \
    --recordings "$tmp/rec" --root "$gone" --frames 1
  grep -q "^# job.ptape: its root is in no frame" "$tmp/out2/MANIFEST" || fail "$(cat "$tmp/out2/MANIFEST")"
  run 6 "${ci_env[@]}" "PATH=$(dirname "$proctape"):$base_path" bash "$script" capture --out "$tmp/out3" \
    --recordings "$tmp/rec" --root "$gone" --frames 1 --strict
  # An artifact directory that cannot be made: said loudly, and 0.
  : >"$tmp/a-file"
  run 0 "${ci_env[@]}" "PATH=$(dirname "$proctape"):$base_path" bash "$script" capture --out "$tmp/a-file/out"
  grep -q "^proctape-ci: NOT CAPTURED: cannot make the artifact directory $tmp/a-file/out" "$tmp/err" ||
    fail "not said loudly: $(cat "$tmp/err")"
  # A usage error is one: 2.
  run 2 "${ci_env[@]}" "PATH=$base_path" bash "$script" capture --frames 0
  one_error_line "--frames must be a positive integer"
}

# The YAML files parse (PyYAML when python3-yaml is installed; else a
# structural check), name the script by the path it has, pass it only options
# its --help lists, and capture on failure only; README's snippets too.
yaml_files_parse_and_call_the_script_by_its_path() {
  local dir=$source_dir/contrib/ci file
  [[ -f $dir/action.yml && -f $dir/github-steps.yml && -f $dir/gitlab-ci.yml ]] || fail "a YAML file is missing"
  if python3 -c 'import yaml' 2>/dev/null; then
    python3 - "$dir" <<'PY' || fail "the YAML files do not have the shape CI reads"
import sys, yaml
d = sys.argv[1]
def load(name):
    with open(f"{d}/{name}") as f:
        return yaml.safe_load(f)
action = load("action.yml")
assert action["runs"]["using"] == "composite", "action.yml: not a composite action"
assert action["inputs"]["command"]["required"] is True
runs = [s["run"] for s in action["runs"]["steps"] if "run" in s]
assert all("shell" in s for s in action["runs"]["steps"] if "run" in s), "a run step without shell"
assert any('"$GITHUB_ACTION_PATH/proctape-ci.sh" install' in r for r in runs)
assert any('"$GITHUB_ACTION_PATH/proctape-ci.sh" capture' in r for r in runs)
assert not any("${{" in r for r in runs), "action.yml splices an input into a shell script"
gh = load("github-steps.yml")
assert "on" in gh or True in gh, "github-steps.yml: no 'on'"
for name, job in gh["jobs"].items():
    for step in job["steps"]:
        text = step.get("run", "") + str(step.get("with", {}))
        if "capture" in text:
            assert step.get("if") == "failure()", f"{name}: a capture not on failure(): {step}"
gl = load("gitlab-ci.yml")
job = gl["test"]
assert job["artifacts"]["when"] == "on_failure"
assert any("proctape-ci.sh install" in line for line in job["script"])
assert all('test "$CI_JOB_STATUS" != failed ||' in line for line in job["after_script"] if "capture" in line)
PY
  else
    for file in "$dir"/*.yml; do
      ! grep -q $'\t' "$file" || fail "$file: a tab (YAML indents with spaces)"
    done
    grep -q '^  using: composite$' "$dir/action.yml" || fail "action.yml: not a composite action"
    grep -q '^    when: on_failure$' "$dir/gitlab-ci.yml" || fail "gitlab-ci.yml: artifacts not on failure"
    [[ $(grep -c 'if: failure()' "$dir/github-steps.yml") -ge 3 ]] || fail "github-steps.yml: capture not on failure()"
  fi
  # Every call of the script (on one line, so that this sees it whole): by
  # the path it has, and only options it knows (action.yml's gathered in
  # 'args').
  local refs=0 line path options option
  options=$(bash "$script" --help | grep -o -- '--[a-z0-9-]*' | sort -u)
  while IFS= read -r line; do
    if [[ $line == *proctape-ci.sh* ]]; then
      refs=$((refs + 1))
      path=$(grep -o '[^ "]*proctape-ci\.sh' <<<"$line" | head -n1)
      case ${line%%:*} in
        */action.yml) [[ $path == '$GITHUB_ACTION_PATH/proctape-ci.sh' ]] || fail "action.yml calls $path" ;;
        *) [[ $path == contrib/ci/proctape-ci.sh && -f $source_dir/$path ]] || fail "${line%%:*} calls $path" ;;
      esac
    fi
    # shellcheck disable=SC2013  # words: options
    for option in $(grep -o -- '[ (]--[a-z0-9-]*' <<<"$line" | cut -c2-); do
      grep -qx -- "$option" <<<"$options" || fail "${line%%:*} passes $option, which the script does not take"
    done
  done < <(grep -H 'proctape-ci\.sh"* \(install\|capture\)\|args+*=(' "$dir"/*.yml "$source_dir/README.md")
  ((refs >= 8)) || fail "only $refs calls of the script in the YAML files"
  if grep -n 'proctape-ci\.sh *\\*$' "$dir"/*.yml; then fail "a call of the script continues on the next line"; fi
  grep -q 'uses: OWNER/proctape/contrib/ci@' "$dir/github-steps.yml" || fail "github-steps.yml does not use the action"
}

# The help: every status the script exits with is listed.
help_lists_every_exit_status() {
  run 0 bash "$script" --help
  local status
  for status in $(grep -o 'die [0-9]' "$script" | cut -d' ' -f2 | sort -u) 6; do
    grep -q "^  $status  " "$tmp/out" || fail "--help does not list exit status $status"
  done
  [[ $(head -n1 "$script") == '#!/usr/bin/env bash' ]] || fail "not a bash script"
  grep -qx 'set -euo pipefail' "$script" || fail "not strict bash"
}

declare -F "$case_name" >/dev/null || fail "no such case"
"$case_name"
