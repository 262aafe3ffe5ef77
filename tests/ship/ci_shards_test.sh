#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# contrib/ci's corpus shards (docs/corpus.md, "Shards"): corpus-shards-github.yml
# (a matrix) and corpus-shards-gitlab.yml (`parallel:`), each parsed and
# its whole pipeline run by the stub runner (ci_runner.py github-pipeline,
# gitlab-pipeline), every job in a fresh copy of a project holding the
# repository's corpus, with the built proctape as the portable artifact
# (installed into the job's own directory, never /usr). The merged
# corpus.xml must be what one unsharded `corpus check --junit` writes; a
# drift fails its shard and the merge; a lost shard is named by the merge.
#   ci_shards_test.sh CASE PROCTAPE SOURCE_DIR
set -euo pipefail

case_name=${1:?case} proctape=${2:?proctape binary} source_dir=${3:?source dir}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proctape-ci-shards.XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf -- "$tmp"' EXIT
# shellcheck source=tests/ship/ci_test_lib.sh
source "$(dirname "$0")/ci_test_lib.sh"
url=https://github.com/OWNER/proctape/releases/download/v0.1.0/proctape-0.1.0-linux-{arch}

fail_with_log() {
  [[ -f $tmp/job.log ]] && sed 's/^/  log: /' "$tmp/job.log" >&2
  fail "$@"
}

# The project every job checks out: the script, the corpus.
make_project() {
  project=$tmp/project
  mkdir -p "$project/contrib" "$project/corpus" "$tmp/home"
  cp -r -- "$source_dir/contrib/ci" "$project/contrib/ci"
  cp -- "$source_dir/corpus/MANIFEST" "$source_dir"/corpus/*.ptape "$project/corpus/"
}

# run_pipeline KIND FILE: the recipe, naming the artifact where it names the
# release's URL, run whole; its status in $status.
run_pipeline() {
  local kind=$1 file=$2 artifact
  artifact=$(portable_artifact)
  sed "s|$url|$artifact|" "$source_dir/contrib/ci/$file" >"$tmp/recipe.yml"
  grep -qF "$artifact" "$tmp/recipe.yml" || fail "$file names no artifact where this test looks ($url)"
  status=0
  env -i PATH="$base_path" HOME="$tmp/home" TMPDIR="$tmp" ${CI_RUNNER_SKIP:+CI_RUNNER_SKIP="$CI_RUNNER_SKIP"} \
    python3 "$source_dir/tests/ship/ci_runner.py" "$kind-pipeline" "$tmp/recipe.yml" - "$project" "$tmp/job.log" ||
    status=$?
  ((status != 3)) || fail_with_log "the stub runner cannot run $file"
}

# The JUnit XML without its times.
timeless() { sed 's/time="[0-9.]*"/time="T"/g' "$1"; }

# The merged report is the unsharded one.
merged_is_unsharded() {
  local merged=$1
  [[ -f $merged ]] || fail_with_log "no merged corpus.xml ($merged)"
  (cd "$project" && "$proctape" corpus check corpus --junit "$tmp/whole.xml" >/dev/null) || true
  diff <(timeless "$tmp/whole.xml") <(timeless "$merged") >&2 ||
    fail_with_log "the merged corpus.xml is not the unsharded report"
}

# Every shard ran once, with its own K of N, and kept its reports: the JSON
# (under ARTIFACTS/NAME-PREFIX K/) and the JUnit XML.
shards_ran() {
  local n=$1 dir=$2 k
  for ((k = 1; k <= n; k++)); do
    grep -q "\"shard\":$k,\"shards\":$n," "$dir$k/corpus-shard-$k.json" 2>/dev/null ||
      fail_with_log "no report of shard $k/$n in $dir$k"
    grep -q '<testsuite name="proctape-corpus"' "$dir$k/corpus-shard-$k.xml" ||
      fail_with_log "no JUnit XML of shard $k/$n in $dir$k"
  done
}

yaml_shapes() {
  python3 - "$source_dir/contrib/ci" <<'PY' || fail "the shard recipes do not have the shape CI reads"
import sys, yaml
d = sys.argv[1]
gh = yaml.safe_load(open(f"{d}/corpus-shards-github.yml"))
shard, report = gh["jobs"]["corpus-shard"], gh["jobs"]["corpus-report"]
assert shard["strategy"]["matrix"]["shard"] == list(range(1, len(shard["strategy"]["matrix"]["shard"]) + 1))
assert shard["strategy"]["fail-fast"] is False, "a drift in one shard must not cancel the others"
# N stated (matrix.shards), never strategy.job-total, which another axis multiplies
assert shard["strategy"]["matrix"]["shards"] == [len(shard["strategy"]["matrix"]["shard"])]
assert any(s.get("env", {}).get("SHARD") == "${{ matrix.shard }}/${{ matrix.shards }}"
           for s in shard["steps"])
# the merge runs whatever the shards found, but not after a cancel
assert report["needs"] == "corpus-shard" and report["if"] == "${{ !cancelled() }}"
# a re-run job replaces its artifact (upload-artifact@v4 refuses a name twice)
assert all(s["with"].get("overwrite") is True
           for job in (shard, report) for s in job["steps"]
           if s.get("uses", "").startswith("actions/upload-artifact@"))
uploads = [s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
assert uploads and uploads[0]["if"] == "always()", "a shard's report not uploaded when it drifted"
assert any("--shard" in s.get("run", "") for s in shard["steps"])
assert any("corpus report" in s.get("run", "") for s in report["steps"])
gl = yaml.safe_load(open(f"{d}/corpus-shards-gitlab.yml"))
assert isinstance(gl["corpus-shard"]["parallel"], int)
assert gl["corpus-shard"]["artifacts"]["when"] == "always"
assert any('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"' in l for l in gl["corpus-shard"]["script"])
assert gl["corpus-report"]["needs"] == ["corpus-shard"] and gl["corpus-report"]["when"] == "always"
assert gl["corpus-report"]["artifacts"]["reports"]["junit"] == "corpus.xml"
assert "reports" not in gl["corpus-shard"]["artifacts"], "each entry would be counted twice"
PY
}

github_shards_merge_to_the_unsharded_report() {
  make_project
  run_pipeline github corpus-shards-github.yml
  ((status == 0)) || fail_with_log "the pipeline exited $status, not 0"
  shards_ran 4 "$tmp/artifacts/corpus-shard-"
  grep -q "^corpus corpus: [0-9]* entries, [0-9]* reproduced, 0 drifted, 0 unreadable" "$tmp/job.log" ||
    fail_with_log "no merged summary line"
  merged_is_unsharded "$tmp/artifacts/corpus-report/corpus.xml"
}

github_a_drift_fails_its_shard_and_the_merge() {
  make_project
  local manifest=$project/corpus/MANIFEST
  sed -i '0,/^expect   MULTIPLE_MATCHES$/s//expect   NO_MATCH/' "$manifest"
  run_pipeline github corpus-shards-github.yml
  ((status == 1)) || fail_with_log "the pipeline exited $status, not 1"
  shards_ran 4 "$tmp/artifacts/corpus-shard-"
  grep -qx '## step: proctape: merge the shards'"'"' reports' "$tmp/job.log" || fail_with_log "the merge did not run"
  [[ $(grep -c '^DRIFT ambiguous-bwrap: expected NO_MATCH; got MULTIPLE_MATCHES$' "$tmp/job.log") == 1 ]] ||
    fail_with_log "the drift is not said by the merge"
  [[ $(grep -c '^## exit 22$' "$tmp/job.log") == 2 ]] || fail_with_log "not one shard and the merge exiting 22"
  merged_is_unsharded "$tmp/artifacts/corpus-report/corpus.xml"
  grep -q '<failure type="drift"' "$tmp/artifacts/corpus-report/corpus.xml" || fail "no <failure> in corpus.xml"
}

github_a_lost_shard_is_named_by_the_merge() {
  make_project
  CI_RUNNER_SKIP=corpus-shard-3 run_pipeline github corpus-shards-github.yml
  ((status == 1)) || fail_with_log "the pipeline exited $status, not 1"
  grep -qx "proctape: shard 3/4 is missing: give the report of each 'corpus check --shard K/N --json'" "$tmp/job.log" ||
    fail_with_log "the merge does not name the lost shard"
  grep -qx '## exit 27' "$tmp/job.log" || fail_with_log "the merge did not exit 27"
}

gitlab_shards_merge_to_the_unsharded_report() {
  make_project
  run_pipeline gitlab corpus-shards-gitlab.yml
  ((status == 0)) || fail_with_log "the pipeline exited $status, not 0"
  shards_ran 4 "$tmp/artifacts/corpus-shard-"
  merged_is_unsharded "$tmp/artifacts/corpus-report-1/corpus.xml"
}

gitlab_a_lost_shard_is_named_by_the_merge() {
  make_project
  CI_RUNNER_SKIP=corpus-shard-2 run_pipeline gitlab corpus-shards-gitlab.yml
  ((status == 1)) || fail_with_log "the pipeline exited $status, not 1"
  grep -qx "proctape: shard 2/4 is missing: give the report of each 'corpus check --shard K/N --json'" "$tmp/job.log" ||
    fail_with_log "the merge does not name the lost shard"
}

python3 -c 'import yaml' 2>/dev/null || { echo "SKIP $case_name: no python3 yaml"; exit 77; }
"$case_name"
echo "ok: $case_name"
