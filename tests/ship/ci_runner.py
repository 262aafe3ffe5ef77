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

Exits with the job's status: 0 when it succeeded, 1 when it failed; 3 when
the recipe holds what this runner cannot run.
"""
import ctypes
import os
import re
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

def substitute(text, inputs):
    return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: str(inputs.get(m.group(1), "")), str(text))


def condition(expr, inputs, failed):
    """The few `if:` forms the recipes use: failure(), and comparisons of
    inputs joined by &&."""
    if expr is None:
        return not failed
    expr = str(expr).strip()
    if expr == "failure()":
        return failed
    ok = True
    for part in expr.split("&&"):
        m = re.fullmatch(r"\s*inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'\s*", part)
        if not m:
            stop(f"cannot evaluate if: {expr}")
        same = str(inputs.get(m.group(1), "")) == m.group(3)
        ok = ok and (same if m.group(2) == "==" else not same)
    return ok and not failed


class GitHub:
    def __init__(self, workdir, log, source):
        self.workdir, self.log, self.source = workdir, log, source
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
        self.log.say(f"## step: {step.get('name', step.get('uses', 'run'))}")
        env = {k: substitute(v, inputs) for k, v in step.get("env", {}).items()}
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        if "run" in step:
            script = substitute(step["run"], inputs)
            status = self.log.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                                  self.env(env), self.workdir)
            self.log.say(f"## exit {status}")
            return failed or status != 0
        uses = step["uses"]
        with_ = {k: substitute(v, inputs) for k, v in step.get("with", {}).items()}
        if uses.startswith("actions/checkout@"):
            return failed  # the project is WORKDIR already
        if uses.startswith("actions/upload-artifact@"):
            self.log.say(f"UPLOADED {with_['path']}")
            return failed
        if re.fullmatch(r"[\w-]+/proctape/contrib/ci@.*", uses):
            return self.composite(with_, failed)
        stop(f"no stub for uses: {uses}")

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

def gitlab(job, global_vars, workdir, log):
    os.environ.update(GITLAB_CI="true", CI="true", CI_PROJECT_DIR=workdir, CI_JOB_ID="1",
                      CI_JOB_NAME="test")
    # Each variable expanded by those before it and the job's environment.
    for name, value in list(global_vars.items()) + list(job.get("variables", {}).items()):
        os.environ[name] = os.path.expandvars(str(value))
    env = dict(os.environ)
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


def main():
    kind, path, job_name, workdir, log_path = sys.argv[1:6]
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
