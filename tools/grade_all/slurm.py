"""Grading a class on a Slurm cluster: one job-array task per student.

`--slurm` writes a batch folder (OUT/slurm/<time>/: the student list, the array script, the
tasks' logs) and submits the script with sbatch. Each task grades its student exactly as a
local run does, in a scratch folder on its node, and writes the student's report in one
step, so a task that is cancelled or fails leaves no report rather than half of one.
`--collect` merges whatever reports exist into the roster, says which students have none and
why, and gives the one command that submits only those.
"""

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import GradeAllError, students

SCRIPT = """#!/bin/bash
# One task per student of {manifest}: the task grades its student with the kit at {kit}
# and writes {out}/students/<student>/report.json. Written and submitted by ./lab grade-all --slurm.
#SBATCH --job-name=grade-all
#SBATCH --array=0-{last}
#SBATCH --output={logs}/%A_%a.out
#SBATCH --cpus-per-task={cpus}
#SBATCH --time={time}
{extra}set -eo pipefail
exec python3 {grade_all} --task "$SLURM_ARRAY_TASK_ID" {manifest}
"""


def slurm_time(seconds: int) -> str:
    minutes = max(1, (seconds + 59) // 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def task_seconds(labs: list, timeout: int) -> int:
    """A limit that even a student whose every kernel hangs stays under (every test that can
    hang at its limit: on the emulator two a lab, one after the other; on a GPU four a lab,
    over four CPUs), yet short enough for most clusters' partitions (--sbatch "--time=...")."""
    return 900 + len(labs) * 2 * (timeout + 30)


def write_batch(out: Path, kit_root: Path, manifest: dict, gpu: bool, partition: str) -> tuple:
    batch = out / "slurm" / time.strftime("%Y%m%d-%H%M%S")
    while batch.exists():
        batch = batch.with_name(batch.name + "-")
    (batch / "logs").mkdir(parents=True)
    manifest_path = batch / "manifest.json"
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    extra = ""
    if partition:
        extra += f"#SBATCH --partition={partition}\n"
    if gpu:
        extra += "#SBATCH --gres=gpu:1\n"
    script = batch / "grade.sbatch"
    script.write_text(SCRIPT.format(
        manifest=shlex.quote(str(manifest_path)), kit=kit_root, out=out, last=len(manifest["students"]) - 1,
        logs=batch / "logs", cpus=4 if gpu else 2, time=slurm_time(task_seconds(manifest["labs"], manifest["timeout"])),
        extra=extra, grade_all=shlex.quote(str(kit_root / "tools" / "grade-all"))))
    script.chmod(0o755)
    return batch, script


def submit(script: Path, sbatch_options: list) -> str:
    """Submits the array; options from --sbatch override the script's own #SBATCH lines."""
    sbatch = shutil.which("sbatch")
    if sbatch is None:
        raise GradeAllError("sbatch was not found: --slurm needs Slurm's commands on this machine "
                            "(run it on the cluster's login node)")
    command = [sbatch, "--parsable", *sbatch_options, str(script)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise GradeAllError("sbatch refused the job array:\n  " + " ".join(shlex.quote(c) for c in command) +
                            "\n  " + (done.stderr.strip() or done.stdout.strip()))
    job = done.stdout.strip().split(";")[0]
    if not job.isdigit():
        raise GradeAllError(f"sbatch did not print a job id (it printed: {done.stdout.strip()!r})")
    (script.parent / "job").write_text(job + "\n")
    return job


def batches(out: Path) -> list:
    """Every submitted batch folder, oldest first."""
    folder = out / "slurm"
    if not folder.is_dir():
        return []
    return sorted((b for b in folder.iterdir() if (b / "manifest.json").is_file() and (b / "job").is_file()),
                  key=lambda b: b.name)


def queued_tasks(job: str) -> dict:
    """{array index: state} of the job's tasks still pending or running; {} when squeue cannot tell."""
    if shutil.which("squeue") is None:
        return {}
    done = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%K %T"], capture_output=True, text=True,
                          timeout=120)
    tasks = {}
    for line in done.stdout.splitlines() if done.returncode == 0 else []:
        index, _, state = line.strip().partition(" ")
        if index.isdigit():
            tasks[int(index)] = state
    return tasks


def ended_state(task: str) -> str:
    """How a finished task ended ("CANCELLED", "TIMEOUT" ...), while Slurm still remembers it
    (MinJobAge, 5 minutes by default); "" when it does not."""
    if shutil.which("scontrol") is None:
        return ""
    done = subprocess.run(["scontrol", "-o", "show", "job", task], capture_output=True, text=True, timeout=120)
    for word in done.stdout.split() if done.returncode == 0 else []:
        if word.startswith("JobState="):
            return word.partition("=")[2]
    return ""


def why_not_graded(out: Path) -> dict:
    """{student: why there is no report yet}, from the latest batch that had the student."""
    reasons = {}
    for batch in batches(out):
        manifest = json.loads((batch / "manifest.json").read_text())
        job = (batch / "job").read_text().strip()
        queued = queued_tasks(job)
        for index, entry in enumerate(manifest["students"]):
            task = f"{job}_{index}"
            if index in queued:
                reasons[entry["student"]] = f"Slurm task {task} is {queued[index].lower()}"
                continue
            state = ended_state(task)
            how = f"ended {state.lower()}" if state else "ended (cancelled, out of time or failed)"
            log = batch / "logs" / f"{task}.out"
            if log.is_file():
                lines = log.read_text(errors="replace").strip().splitlines()
                where = f"log: {log}" + (f", which ends: {lines[-1][:200]}" if lines else "")
            else:
                where = "it left no log, so it never started"
            reasons[entry["student"]] = f"Slurm task {task} {how} without a report; {where}"
    return reasons


def latest_command(out: Path) -> str:
    for batch in reversed(batches(out)):
        return json.loads((batch / "manifest.json").read_text()).get("command", "")
    return ""


def latest_harness(out: Path, kit):
    """The harness the latest batch graded with, to score the roster again; None when there is
    none any more (the roster then keeps each report's own scores)."""
    from .kit import Harness
    for batch in reversed(batches(out)):
        try:
            return Harness.load(Path(json.loads((batch / "manifest.json").read_text())["harness"]), kit)
        except (OSError, ValueError, KeyError, GradeAllError):
            return None
    return None


def run_task(manifest_path: Path, index: int) -> int:
    """One array task: grades student `index` of the manifest."""
    from .grading import Children, Setup, Stopped, grade_student
    from .kit import Harness, Kit
    from .submissions import read_submission

    manifest = json.loads(manifest_path.read_text())
    students = manifest["students"]
    if not 0 <= index < len(students):
        raise GradeAllError(f"task {index}: {manifest_path} lists {len(students)} students")
    entry = students[index]
    kit = Kit(Path(manifest["kit"]))
    harness = Harness.load(Path(manifest["harness"]), kit)
    stems = kit.lab_stems()
    cpus = int(os.environ.get("SLURM_CPUS_PER_TASK") or os.cpu_count() or 1)
    scratch = Path(os.environ.get("SLURM_TMPDIR") or os.environ.get("TMPDIR") or "/tmp")
    setup = Setup(kit=kit, harness=harness, stems=stems, labs=manifest["labs"],
                  timeout=manifest["timeout"], build_jobs=cpus,
                  test_jobs=cpus, scratch_root=scratch, kit_version=manifest["kit_version"])

    def stop(signum, frame):
        # scancel and the time limit send SIGTERM first: stop the student's processes and
        # leave without a report, which --collect then names as missing.
        Children.stop_all()
        raise Stopped()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    submission = read_submission(Path(entry["source"]), stems)
    submission.student = entry["student"]
    print(f"grading {submission.student} ({submission.source}) on {os.uname().nodename}, {cpus} CPUs, "
          f"backend {harness.backend}", flush=True)
    try:
        report = grade_student(submission, setup, Path(manifest["out"]) / "students" / submission.student)
    except Stopped:
        print("stopped before the end: no report written", flush=True)
        return 143
    summary = report["error"] or f"{report['score']:g}/{report['max_score']:g} points"
    print(f"{submission.student}: {summary} (build {report['seconds']['build']:.0f} s, "
          f"tests {report['seconds']['tests']:.0f} s)", flush=True)
    return 0


def sbatch_options(text: str) -> list:
    try:
        return shlex.split(text or "")
    except ValueError as error:
        raise GradeAllError(f"--sbatch {text!r}: {error}") from None


def print_submitted(job: str, count: int, batch: Path, submissions: Path, out: Path) -> None:
    print(f"Submitted Slurm job array {job}: {students(count)}, one task each.\n"
          f"  script and logs: {batch}\n"
          f"  progress:        squeue -j {job}\n"
          f"  when it is done: ./lab grade-all {shlex.quote(str(submissions))} --collect"
          + (f" --out {shlex.quote(str(out))}" if out else ""), file=sys.stderr)
