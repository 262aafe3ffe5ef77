#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CI recipes end to end (README "Capturing on CI"; contrib/ci's
# github-steps.yml, action.yml and gitlab-ci.yml), each run by a stub runner
# (ci_runner.py) as GitHub Actions or GitLab CI runs a job, with each release
# artifact: the Debian package and the portable binary. The job's tests fail,
# leaving a process behind and a recording made by the proctape the install
# step put on PATH; the job must end with its evidence captured: job.ptape of
# the runner process's tree and host.ptape, intact, the recording gathered,
# the directory uploaded, and no "NOT CAPTURED" in the job log.
# Installing changes the machine: each job runs in a private mount namespace
# whose /usr, /var and /etc are overlays, thrown away when it ends.
#   ci_recipes_test.sh CASE PROCTAPE SOURCE_DIR BUILD_DIR
# CASE is RECIPE-ARTIFACT: RECIPE readme_github, readme_gitlab, github_steps,
# github_action or gitlab_ci; ARTIFACT deb (BUILD_DIR/proctape_<version>_amd64.deb,
# made by '(cd build && cpack -G DEB)') or portable
# (SOURCE_DIR/build-portable/proctape-<version>-linux-x86_64); both are made
# by scripts/ship_check.sh. An artifact not made, or no root or overlay
# here, skips the case (exit 77).
# Every process a case starts is ended by its pid when the case ends.
set -euo pipefail

case_name=${1:?case} proctape=${2:?proctape binary} source_dir=${3:?source dir} build_dir=${4:?build dir}
recipe=${case_name%-*} artifact_kind=${case_name##*-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-ci-recipe.XXXXXX")
chmod 0755 "$tmp"  # apt's _apt user reads the .deb from beneath it
project=$tmp/project
cleanup() {
  local pid
  while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done < <(cat "$project"/*.pid 2>/dev/null)
  rm -rf -- "$tmp"
}
trap cleanup EXIT

fail() {
  printf 'FAIL %s: %s\n' "$case_name" "$*" >&2
  [[ -f $tmp/job.log ]] && sed 's/^/  log: /' "$tmp/job.log" >&2
  exit 1
}
skip() {
  printf 'SKIP %s: %s\n' "$case_name" "$*"
  exit 77
}

version=$("$proctape" --version | awk '{print $2}')
case $artifact_kind in
  deb) artifact=$build_dir/proctape_${version}_amd64.deb ;;
  portable) artifact=$source_dir/build-portable/proctape-${version}-linux-x86_64 ;;
  *) fail "no artifact '$artifact_kind'" ;;
esac
[[ -f $artifact ]] || skip "no $artifact (scripts/ship_check.sh makes it)"
((EUID == 0)) || skip "installs as root"
mkdir -p "$tmp/probe/u" "$tmp/probe/w" "$tmp/probe/l"
unshare --mount --propagation private mount -t overlay overlay \
  -o "lowerdir=$tmp/probe/l,upperdir=$tmp/probe/u,workdir=$tmp/probe/w" "$tmp/probe/l" 2>/dev/null ||
  skip "no private mount namespace with overlayfs here"
cp -- "$artifact" "$tmp/"
artifact=$tmp/${artifact##*/}
url=https://github.com/OWNER/proctape/releases/download/v0.1.0/proctape-0.1.0-linux-{arch}

# The project: the script at the path the recipes call it by, and tests that
# fail, leaving a process behind and a recording in proctape-recordings/.
mkdir -p "$project/contrib" "$tmp/home"
cp -r -- "$source_dir/contrib/ci" "$project/contrib/ci"
cat >"$project/run-tests" <<'TESTS'
#!/bin/bash
mkdir -p proctape-recordings
sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >left.pid
proctape capture --root $$ -o proctape-recordings/run.ptape >/dev/null
echo "tests: 1 failed"
exit 1
TESTS
chmod +x "$project/run-tests"

# The recipe (a copy naming the artifact where a file names a URL) and its job.
case $recipe in
  readme_github) kind=github file=$source_dir/README.md job=- ;;
  readme_gitlab) kind=gitlab file=$source_dir/README.md job=test ;;
  github_steps) kind=github file=$tmp/recipe.yml job=test ;;
  github_action) kind=github file=$tmp/recipe.yml job=test-with-action ;;
  gitlab_ci) kind=gitlab file=$tmp/recipe.yml job=test ;;
  *) fail "no recipe '$recipe'" ;;
esac
case $recipe in
  github_*) sed "s|$url|$artifact|" "$source_dir/contrib/ci/github-steps.yml" >"$tmp/recipe.yml" ;;
  gitlab_ci) sed "s|$url|$artifact|" "$source_dir/contrib/ci/gitlab-ci.yml" >"$tmp/recipe.yml" ;;
esac
if [[ $file == "$tmp/recipe.yml" ]] && ! grep -qF "$artifact" "$file"; then
  fail "the recipe names no artifact where this test looks ($url)"
fi

# The job, in its own mount namespace: nothing it installs outlives it.
status=0
# shellcheck disable=SC2016  # $1 and $@ are the inner shell's
unshare --mount --propagation private bash -c '
  for d in usr var etc; do
    mkdir -p "$1/ovl/u/$d" "$1/ovl/w/$d"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$1/ovl/u/$d,workdir=$1/ovl/w/$d" "/$d" || exit 90
  done
  shift
  exec "$@"' _ "$tmp" \
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$tmp/home" \
  TMPDIR="$tmp" PROCTAPE_ARTIFACT="$artifact" \
  python3 "$source_dir/tests/ship/ci_runner.py" "$kind" "$file" "$job" "$project" "$tmp/job.log" ||
  status=$?
((status != 90)) || skip "the overlays could not be mounted"
((status == 1)) || fail "the job exited $status, not 1 (its tests fail)"

# Its evidence.
out=$project/proctape-artifacts
! grep -q 'NOT CAPTURED' "$tmp/job.log" || fail "the job log says NOT CAPTURED"
grep -qx "UPLOADED proctape-artifacts/\?" "$tmp/job.log" || fail "proctape-artifacts was not uploaded"
[[ -f $out/MANIFEST ]] || fail "no MANIFEST in $out"
manifest_status() { awk -F'\t' -v n="$1" '!/^#/ && $4 == n { print $1 }' "$out/MANIFEST"; }
for name in job.ptape host.ptape recordings/001-run.ptape; do
  [[ $(manifest_status "$name") == 0 ]] || fail "$name is not intact in the MANIFEST: $(cat "$out/MANIFEST")"
  "$proctape" verify "$out/$name" >/dev/null || fail "$name does not verify"
done
runner=$([[ $kind == github ]] && echo Runner.Worker || echo gitlab-runner)
grep -q "^# job.ptape: the processes beneath pid [0-9]* (the runner process \"$runner\")$" "$out/MANIFEST" ||
  fail "job.ptape is not of the runner process's tree: $(cat "$out/MANIFEST")"
"$proctape" show --pid "$(cat "$project/left.pid")" "$out/host.ptape" >/dev/null ||
  fail "the process the tests left is not in host.ptape"
# The proctape that captured is the artifact's.
used=$(sed -n 's/^# proctape: \(.*\)$/\1/p' "$out/MANIFEST")
case $artifact_kind in
  portable) [[ $used == *", portable) "* ]] || fail "the capture's proctape is not the portable binary: $used" ;;
  deb) [[ $used != *portable* ]] || fail "the capture's proctape is not the package's: $used" ;;
esac
echo "ok: $case_name ($used)"
