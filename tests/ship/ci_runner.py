#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stub CI runner: runs a job as GitHub Actions or GitLab CI would, enough
for contrib/ci's recipes (tests/ship/ci_recipes_test.sh).

    ci_runner.py github FILE JOB WORKDIR LOG   FILE: a workflow (.yml), or
    ci_runner.py gitlab FILE JOB WORKDIR LOG   README.md, whose "Capturing on
                                               CI" holds the recipes

The process renames itself Runner.Worker or gitlab-runner (its comm, as the
real runners' processes are named) and runs each step beneath it, in
WORKDIR, its output appended to LOG (the job log).

GitHub: each step's `run` by `bash --noprofile --norc -eo pipefail`; a step
with `if: failure()` runs only after one failed, any other only while none
has; GITHUB_PATH's lines go on PATH from the next step on; GITHUB_ACTIONS,
GITHUB_STEP_SUMMARY, RUNNER_TEMP are set; `uses: actions/upload-artifact`
records its `path` (UPLOADED lines in LOG); `uses: .../contrib/ci@...` runs
contrib/ci/action.yml's composite steps with their inputs.
GitLab: `variables` (the file's, then the job's) expanded; `script` in one
shell that stops at the first failure; `after_script` in a new shell with
CI_JOB_STATUS; `artifacts` with `when: on_failure` recorded as UPLOADED.

    ci_runner.py github-pipeline FILE - WORKDIR LOG   every job of a workflow
    ci_runner.py gitlab-pipeline FILE - WORKDIR LOG   or of a pipeline

A pipeline (contrib/ci's corpus-shards-*.yml) runs its jobs in file order,
each in a fresh copy of WORKDIR (WORKDIR/../jobs/NAME-I): GitHub's
`strategy.matrix` as one job per combination (`${{ matrix.X }}`,
`${{ strategy.job-index }}`, `${{ strategy.job-total }}`), GitLab's
`parallel: N` as N jobs (CI_NODE_INDEX, CI_NODE_TOTAL); a job whose
`needs` failed is skipped unless its `if: always()` (`when: always`).
Artifacts pass between jobs through WORKDIR/../artifacts:
`actions/upload-artifact` copies its `path` (globs) under its `name`,
`actions/download-artifact` copies those its `pattern` names into its
`path`; GitLab's `artifacts.paths` go to the jobs that `needs` the job, at
the same paths. CI_RUNNER_SKIP=NAME-I skips that one job (a runner lost):
it fails and leaves no artifact.

Exits with the job's status: 0 when it succeeded, 1 when it failed; 3 when
the recipe holds what this runner cannot run.
"""
import ctypes
import fnmatch
import glob
import itertools
import os
import re
import shutil
import subprocess
import sys

import yaml


def stop(why):
    """A recipe this runner cannot run: exit 3, never a job's status."""
    print(f"ci_runner: {why}", file=sys.stderr)
    sys.exit(3)


def set_comm(name):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME


def recipes_of_readme(path):
    """The yaml blocks of README's "Capturing on CI": GitHub's steps, then
    GitLab's job."""
    text = open(path, encoding="utf-8").read()
    section = text.split("### Capturing on CI", 1)[1].split("\n### ", 1)[0]
    return [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", section, re.S)]


def load(kind, path, job):
    if path.endswith("README.md"):
        blocks = recipes_of_readme(path)
        if kind == "github":
            return {"steps": blocks[0]}, {}
        return blocks[1][job], {}
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    if kind == "github":
        return doc["jobs"][job], {}
    return doc[job], doc.get("variables", {})


class Log:
    def __init__(self, path):
        self.path = path

    def say(self, line):
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    def run(self, argv, env, cwd):
        with open(self.path, "a", encoding="utf-8") as f:
            f.flush()
            return subprocess.run(argv, env=env, cwd=cwd, stdout=f, stderr=subprocess.STDOUT).returncode


# ---- GitHub Actions -----------------------------------------------------------

def substitute(text, inputs, context=None):
    """`${{ inputs.X }}`, and in a pipeline `${{ matrix.X }}` and
    `${{ strategy.X }}` (context: "matrix.X" -> value)."""
    text = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: str(inputs.get(m.group(1), "")), str(text))
    for name, value in (context or {}).items():
        text = re.sub(r"\$\{\{\s*" + re.escape(name) + r"\s*\}\}", str(value), text)
    if "${{" in text:
        stop(f"cannot substitute: {text}")
    return text


def condition(expr, inputs, failed):
    """The few `if:` forms the recipes use: failure(), and comparisons of
    inputs joined by &&."""
    if expr is None:
        return not failed
    expr = str(expr).strip()
    if expr == "failure()":
        return failed
    if expr in ("always()", "${{ !cancelled() }}", "!cancelled()"):  # nothing is cancelled here
        return True
    if expr == "success()":
        return not failed
    ok = True
    for part in expr.split("&&"):
        m = re.fullmatch(r"\s*inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'\s*", part)
        if not m:
            stop(f"cannot evaluate if: {expr}")
        same = str(inputs.get(m.group(1), "")) == m.group(3)
        ok = ok and (same if m.group(2) == "==" else not same)
    return ok and not failed


class GitHub:
    def __init__(self, workdir, log, source, store=None, context=None):
        self.workdir, self.log, self.source = workdir, log, source
        self.store, self.context = store, context or {}
        temp = os.path.join(workdir, ".runner")
        os.makedirs(temp, exist_ok=True)
        self.files = {k: os.path.join(temp, k) for k in ("path", "summary", "env")}
        for f in self.files.values():
            open(f, "a").close()
        self.base = dict(os.environ, GITHUB_ACTIONS="true", CI="true", GITHUB_RUN_ID="1",
                         GITHUB_JOB="test", GITHUB_WORKSPACE=workdir, RUNNER_TEMP=temp,
                         GITHUB_PATH=self.files["path"], GITHUB_STEP_SUMMARY=self.files["summary"],
                         GITHUB_ENV=self.files["env"])

    def env(self, extra):
        env = dict(self.base)
        added = [l for l in open(self.files["path"]).read().splitlines() if l]
        env["PATH"] = ":".join(list(reversed(added)) + [self.base["PATH"]])
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def step(self, step, inputs, failed, action_path=None):
        if not condition(step.get("if"), inputs, failed):
            return failed
        self.log.say(f"## step: {substitute(step.get('name', step.get('uses', 'run')), inputs, self.context)}")
        env = {k: substitute(v, inputs, self.context) for k, v in step.get("env", {}).items()}
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        if "run" in step:
            script = substitute(step["run"], inputs, self.context)
            status = self.log.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                                  self.env(env), self.workdir)
            self.log.say(f"## exit {status}")
            return failed or status != 0
        uses = step["uses"]
        with_ = {k: substitute(v, inputs, self.context) for k, v in step.get("with", {}).items()}
        if uses.startswith("actions/checkout@"):
            return failed  # the project is WORKDIR already
        if uses.startswith("actions/upload-artifact@"):
            self.log.say(f"UPLOADED {with_['path']}")
            if self.store is not None:
                uploaded = self.upload(with_)  # even after a failure (if: always())
                return failed or not uploaded
            return failed
        if uses.startswith("actions/download-artifact@") and self.store is not None:
            downloaded = self.download(with_)
            return failed or not downloaded
        if re.fullmatch(r"[\w-]+/proctape/contrib/ci@.*", uses):
            return self.composite(with_, failed)
        stop(f"no stub for uses: {uses}")

    def upload(self, with_):
        """Copies the files `path` names (globs, a line each) under the
        artifact `name`; none found is an error when `if-no-files-found` says so."""
        files = [f for pattern in with_["path"].split() for f in glob.glob(os.path.join(self.workdir, pattern))]
        dest = os.path.join(self.store, with_["name"])
        os.makedirs(dest, exist_ok=True)
        for f in files:
            shutil.copy(f, os.path.join(dest, os.path.relpath(f, self.workdir).replace("/", "_")))
        if not files:
            self.log.say(f"no files for the artifact {with_['name']}")
        return bool(files) or with_.get("if-no-files-found", "warn") != "error"

    def download(self, with_):
        """Every artifact `pattern` names, merged into `path`."""
        dest = os.path.join(self.workdir, with_.get("path", "."))
        os.makedirs(dest, exist_ok=True)
        names = [n for n in sorted(os.listdir(self.store)) if fnmatch.fnmatch(n, with_.get("pattern", "*"))]
        for name in names:
            target = dest if str(with_.get("merge-multiple", "false")).lower() == "true" else os.path.join(dest, name)
            shutil.copytree(os.path.join(self.store, name), target, dirs_exist_ok=True)
        self.log.say(f"DOWNLOADED {' '.join(names)}")
        return bool(names)

    def composite(self, given, failed):
        path = os.path.join(self.source, "contrib", "ci")
        action = yaml.safe_load(open(os.path.join(path, "action.yml"), encoding="utf-8"))
        inputs = {k: v.get("default", "") for k, v in action["inputs"].items()}
        inputs.update(given)
        # Its steps run from a clean slate: the caller's if: let it run.
        inner = False
        for step in action["runs"]["steps"]:
            inner = self.step(step, inputs, inner, path)
        return failed or inner

    def job(self, job, env):
        failed = False
        for step in job["steps"]:
            step = dict(step, env={**env, **step.get("env", {})})
            failed = self.step(step, {}, failed)
        return failed


# ---- GitLab CI ------------------------------------------------------------------

def gitlab(job, global_vars, workdir, log, extra=None):
    saved = dict(os.environ)
    os.environ.update(GITLAB_CI="true", CI="true", CI_PROJECT_DIR=workdir, CI_JOB_ID="1",
                      CI_JOB_NAME="test", **(extra or {}))
    # Each variable expanded by those before it and the job's environment.
    for name, value in list(global_vars.items()) + list(job.get("variables", {}).items()):
        os.environ[name] = os.path.expandvars(str(value))
    env = dict(os.environ)
    os.environ.clear()
    os.environ.update(saved)
    log.say("## script")
    script = "set -eo pipefail\n" + "\n".join(job["script"]) + "\n"
    status = log.run(["bash", "--noprofile", "--norc", "-c", script], env, workdir)
    log.say(f"## exit {status}")
    failed = status != 0
    log.say("## after_script")
    after = "\n".join(job.get("after_script", [])) + "\n"
    env["CI_JOB_STATUS"] = "failed" if failed else "success"
    log.say(f"## exit {log.run(['bash', '--noprofile', '--norc', '-c', after], env, workdir)}")
    artifacts = job.get("artifacts", {})
    if artifacts.get("when", "on_success") in ("always", "on_failure" if failed else "on_success"):
        for path in artifacts.get("paths", []):
            log.say(f"UPLOADED {path}")
    return failed


# ---- Pipelines -----------------------------------------------------------------

def fresh(workdir, name):
    """A fresh checkout for one job: a copy of WORKDIR."""
    jobdir = os.path.join(os.path.dirname(workdir), "jobs", name)
    shutil.rmtree(jobdir, ignore_errors=True)
    shutil.copytree(workdir, jobdir, symlinks=True)
    return jobdir


def runs(name, needs, status, always, log):
    """Whether a job runs: its `needs` all ran and succeeded, or it runs always."""
    missing = [n for n in needs if n not in status]
    if missing:
        stop(f"{name} needs {missing}, which are not jobs before it")
    if any(status[n] for n in needs) and not always:
        log.say(f"## job {name}: skipped (a job it needs failed)")
        return False
    return True


def github_pipeline(path, workdir, log, source):
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    store = os.path.join(os.path.dirname(workdir), "artifacts")
    os.makedirs(store, exist_ok=True)
    status = {}
    for name, job in doc["jobs"].items():
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        always = str(job.get("if", "")).strip() in ("always()", "${{ !cancelled() }}", "!cancelled()")
        if not runs(name, needs, status, always, log):
            status[name] = True
            continue
        matrix = job.get("strategy", {}).get("matrix", {})
        keys = list(matrix)
        combos = [dict(zip(keys, values)) for values in itertools.product(*(matrix[k] for k in keys))]
        failed = False
        for index, combo in enumerate(combos):
            label = f"{name}-{index + 1}"
            log.say(f"## job {label}")
            if os.environ.get("CI_RUNNER_SKIP") == label:
                log.say(f"## job {label}: lost (CI_RUNNER_SKIP)")
                failed = True
                continue
            context = {f"matrix.{k}": v for k, v in combo.items()}
            context.update({"strategy.job-index": index, "strategy.job-total": len(combos)})
            runner = GitHub(fresh(workdir, label), log, source, store, context)
            failed = runner.job(job, {**doc.get("env", {}), **job.get("env", {})}) or failed
        status[name] = failed
    return any(status.values())


def gitlab_pipeline(path, workdir, log):
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    global_vars = doc.get("variables", {})
    store = os.path.join(os.path.dirname(workdir), "artifacts")
    status = {}
    for name, job in doc.items():
        if not isinstance(job, dict) or "script" not in job:
            continue
        needs = job.get("needs", [])
        if not runs(name, needs, status, job.get("when") == "always", log):
            status[name] = True
            continue
        total = int(job.get("parallel", 1))
        failed = False
        for index in range(1, total + 1):
            label = f"{name}-{index}"
            log.say(f"## job {label}")
            if os.environ.get("CI_RUNNER_SKIP") == label:
                log.say(f"## job {label}: lost (CI_RUNNER_SKIP)")
                failed = True
                continue
            jobdir = fresh(workdir, label)
            for need in needs:  # the artifacts of every job it needs, at their paths
                for done in glob.glob(os.path.join(store, f"{need}-*")):
                    shutil.copytree(done, jobdir, dirs_exist_ok=True)
            extra = {"CI_NODE_INDEX": str(index), "CI_NODE_TOTAL": str(total)} if "parallel" in job else {}
            job_failed = gitlab(job, global_vars, jobdir, log, extra)
            artifacts = job.get("artifacts", {})
            if artifacts.get("when", "on_success") in ("always", "on_failure" if job_failed else "on_success"):
                dest = os.path.join(store, label)
                for pattern in artifacts.get("paths", []):
                    for f in glob.glob(os.path.join(jobdir, pattern)):
                        rel = os.path.relpath(f, jobdir)
                        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                        shutil.copy(f, os.path.join(dest, rel))
            failed = job_failed or failed
        status[name] = failed
    return any(status.values())


def main():
    kind, path, job_name, workdir, log_path = sys.argv[1:6]
    if kind.endswith("-pipeline"):
        source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        log = Log(log_path)
        if kind == "github-pipeline":
            set_comm("Runner.Worker")
            sys.exit(1 if github_pipeline(path, workdir, log, source) else 0)
        set_comm("gitlab-runner")
        sys.exit(1 if gitlab_pipeline(path, workdir, log) else 0)
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    job, global_vars = load(kind, path, job_name)
    log = Log(log_path)
    if kind == "github":
        set_comm("Runner.Worker")
        failed = GitHub(workdir, log, source).job(job, job.get("env", {}))
    else:
        set_comm("gitlab-runner")
        failed = gitlab(job, global_vars, workdir, log)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
