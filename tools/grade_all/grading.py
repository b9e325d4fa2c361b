"""Grading one student: their lab files, in a build folder of their own, judged by the harness.

The student's build compiles only their lab modules (cmake -DREDUCE_LAB_HARNESS=...); the
grader, the emulator, the tests and the thresholds all come from the instructor's harness
build. Every process runs in a process group of its own and is stopped with it, so nothing a
student's code starts outlives their grading.
"""

import contextlib
import datetime
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from .kit import Harness, Kit, baseline
from .results import write_atomically, write_report
from .submissions import Submission

MAX_LOG_BYTES = 4 << 20
CONFIGURE_SECONDS = 300
BUILD_SECONDS_PER_MODULE = 120


@dataclass
class Setup:
    kit: Kit
    harness: Harness
    stems: dict          # {lab: "01_simple"}
    labs: list           # the labs to grade
    timeout: int         # CTest's limit for one test, seconds
    build_jobs: int      # compilers one student's build may run at once
    test_jobs: int       # tests one student may run at once
    scratch_root: Path   # where student build folders live while they are graded
    kit_version: str
    schema: int = 0             # the layout of report.json the harness's grader writes
    device_lane: object = None  # a lock on a GPU machine: one student's tests on the device at a time
    in_flight: object = None    # a local run's Occupancy: the cores are shared by the students graded now

    @property
    def backend(self) -> str:
        return self.harness.backend

    def tests_at_once(self) -> int:
        """On the emulator the students being graded share the cores: at the end of a run, when
        fewer are left than run at once, each of them gets more of them."""
        if self.backend == "gpu" or self.in_flight is None:
            return self.test_jobs
        return max(self.test_jobs, (os.cpu_count() or 1) // max(1, self.in_flight.count))


class Occupancy:
    """How many students are being graded at this moment."""

    def __init__(self):
        self.count = 0
        self._lock = threading.Lock()

    def __enter__(self):
        with self._lock:
            self.count += 1

    def __exit__(self, *exception):
        with self._lock:
            self.count -= 1


def labs_needed(backend: str, labs: list, stems: dict) -> set:
    wanted = set(labs)
    if backend == "gpu":
        # A lab is timed against the student's own baseline lab (grader/labs.json), so that one
        # is built too.
        wanted |= {baseline(lab) for lab in labs if baseline(lab) in stems}
    return wanted


def labs_to_build(setup: Setup, submission: Submission) -> list:
    return sorted(lab for lab in labs_needed(setup.backend, setup.labs, setup.stems) if lab in submission.files)


def test_selection(backend: str, graded: list, built: list) -> tuple:
    """CTest's selection of the tests of the labs `graded`, and how many it runs. On a GPU a
    lab's speed test also reads its baseline lab's correctness and races verdicts (docs/grading.md,
    "Only a correct lab is timed"), so those run too where the baseline was built, and its own
    traffic test (labN.traffic: the timed build's traffic against the counted build's); the
    report still holds only the labs graded."""
    labs = "|".join(str(lab) for lab in graded)
    if backend != "gpu":
        return ["-L", f"^lab({labs})$"], len(graded) * 4
    baselines = sorted({baseline(lab) for lab in graded} & set(built) - set(graded))
    pattern = f"lab({labs})\\..*"
    if baselines:
        pattern += "|lab(" + "|".join(str(lab) for lab in baselines) + ")\\.(correctness|races)"
    return ["-R", f"^({pattern})$"], len(graded) * 5 + len(baselines) * 2


def fingerprint(submission: Submission, backend: str, labs: list, stems: dict) -> str:
    """What a grade depends on besides the kit: the backend, the labs asked for and the files.
    A student whose report has the same fingerprint is not graded again (unless --force)."""
    digest = hashlib.sha256(f"{backend} {sorted(labs)}".encode())
    for lab in sorted(labs_needed(backend, labs, stems)):
        if lab in submission.files:
            digest.update(f" {lab}:{submission.digest(lab)}".encode())
    return digest.hexdigest()[:20]


# --- child processes ------------------------------------------------------------------------

class Children:
    """Every process group this run started, so that an interrupt (Ctrl-C, a cancelled Slurm
    task) stops them all and no half-graded student is written."""
    stopping = threading.Event()
    _lock = threading.Lock()
    _groups = set()

    @classmethod
    def add(cls, pid: int) -> None:
        with cls._lock:
            cls._groups.add(pid)

    @classmethod
    def remove(cls, pid: int) -> None:
        with cls._lock:
            cls._groups.discard(pid)
        kill_group(pid)

    @classmethod
    def stop_all(cls) -> None:
        cls.stopping.set()
        with cls._lock:
            groups = list(cls._groups)
        for pid in groups:
            kill_group(pid)


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Stopped(Exception):
    """The run is being interrupted; the student is left ungraded, not graded wrongly."""


def run_logged(command: list, log: Path, timeout: float, env=None) -> tuple:
    """Runs `command` with its output appended to `log`; returns (exit status, timed out).
    Whatever the command leaves running in its process group is stopped when it returns."""
    if Children.stopping.is_set():
        raise Stopped()
    with open(log, "ab") as out:
        out.write(("$ " + " ".join(str(part) for part in command) + "\n").encode())
        out.flush()
        process = subprocess.Popen([str(part) for part in command], stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        Children.add(process.pid)
        try:
            status, timed_out = process.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            kill_group(process.pid)
            status, timed_out = process.wait(), True
            out.write(f"\n(stopped after {timeout:.0f} s)\n".encode())
        finally:
            Children.remove(process.pid)
    if Children.stopping.is_set():
        raise Stopped()
    return status, timed_out


# --- one student ------------------------------------------------------------------------------

def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def student_fields(submission: Submission, setup: Setup) -> dict:
    """What grade-all adds to the grader's report.json: who, which files, where and how long."""
    job = os.environ.get("SLURM_ARRAY_JOB_ID")
    task = os.environ.get("SLURM_ARRAY_TASK_ID")
    return {
        "student": submission.student,
        "submission": str(submission.source),
        "host": socket.gethostname(),
        "slurm_job": f"{job}_{task}" if job and task else None,
        "labs_graded": list(setup.labs),
        "files": {str(lab): {"path": submission.paths[lab], "sha256": submission.digest(lab)}
                  for lab in sorted(submission.files)},
        "fingerprint": fingerprint(submission, setup.backend, setup.labs, setup.stems),
        "error": None,
        # "submission": nothing to grade in it, until it changes; "grading": the kit's own
        # failure (a node without CMake, say), which the next run retries.
        "error_kind": None,
        "notes": list(submission.notes),
        "seconds": {"build": 0.0, "tests": 0.0, "waiting_for_device": 0.0},
    }


def with_student(grade: dict, student: dict, setup: Setup) -> dict:
    """The grader's report with the student's fields merged in at its top level, so that it is
    ./lab grade's report.json plus who and what was graded. Without a grade (the grader itself
    failed: the student's error says why), the student's fields alone, with no labs."""
    report = dict(grade) if grade else {"schema": setup.schema, "kit_version": setup.kit_version,
                                        "backend": setup.backend, "created": now_utc(), "labs": {},
                                        "score": 0, "max_score": 0}
    report.update(student)
    return report


def test_outcomes(ctest_output: str, junits: list) -> dict:
    """{test name: (CTest's verdict, the end of the test's output)}: the verdict from CTest's
    own lines ("Passed", "***Timeout", "***Exception: SegFault"), which name a timeout where
    the JUnit files do not; the output from the JUnit files (one per CTest run)."""
    outcomes = {}
    for match in re.finditer(r"Test +#\d+: (\S+) \.*\s*(\*\*\*)?([A-Za-z][^\n]*?)\s+[0-9.]+ sec", ctest_output):
        outcomes[match.group(1)] = (match.group(3).strip(), "")
    cases = []
    for junit in junits:
        try:
            cases += list(ElementTree.parse(junit).iter("testcase"))
        except (OSError, ElementTree.ParseError):
            pass
    for case in cases:
        name = case.get("name", "")
        output = (case.findtext("system-out") or "").strip()
        verdict = outcomes.get(name, (case.get("status", ""), ""))[0]
        outcomes[name] = (verdict, "\n".join(output.splitlines()[-12:]))
    return outcomes


def explain_unfinished(report: dict, outcomes: dict, timeout: int) -> None:
    """A test that was stopped, or crashed, before it could record a verdict leaves only the
    grader's placeholder (or nothing); CTest's verdict and the end of the test's output say
    what happened, so they go in the message."""
    for lab, entry in report["labs"].items():
        for check, result in entry["checks"].items():
            verdict, tail = outcomes.get(f"lab{lab}.{check}", ("", ""))
            if result["status"] not in ("FAIL", "ERROR") or result["summary"] not in ("stopped without a result", "no result"):
                continue
            if verdict == "Timeout":
                result["summary"] = "stopped at the time limit"
                result["message"] = (f"The test ran past the limit of {timeout} s per test and was stopped before "
                                     "it reported a result: a kernel that never ends, or one far too slow.")
            elif "time limit" in tail or "did not finish within" in tail:
                result["summary"] = "stopped at the time limit"
            elif verdict.startswith("Exception"):
                result["summary"] = "crashed (" + verdict.partition(":")[2].strip().lower() + ")"
            if tail:
                result["message"] = (result["message"] + "\nThe test's last output:\n" + tail).strip()


def capped_log(log: Path) -> str:
    try:
        data = log.read_bytes()
    except OSError:
        return ""
    if len(data) > MAX_LOG_BYTES:
        head, tail = data[: MAX_LOG_BYTES // 4], data[-(MAX_LOG_BYTES * 3 // 4):]
        data = head + f"\n... ({len(data) - len(head) - len(tail)} bytes left out) ...\n".encode() + tail
    return data.decode(errors="replace")


def grade_student(submission: Submission, setup: Setup, student_dir: Path) -> dict:
    """Grades one student and writes student_dir/log.txt and then report.json, each in one
    step. Whatever goes wrong, the student gets a report that says what; only an interrupt of
    the whole run (Stopped) leaves them without one."""
    student = student_fields(submission, setup)
    setup.scratch_root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="grade-all-", dir=setup.scratch_root))
    log = scratch / "log.txt"
    outcomes, graded = {}, []
    try:
        with open(log, "w") as out:
            out.write(f"student {submission.student}: {submission.source}\n")
            for lab in sorted(submission.files):
                out.write(f"  lab {lab}: {submission.paths[lab]}\n")
            for note in submission.notes:
                out.write(f"  note: {note}\n")
        if submission.problem:
            student["error"], student["error_kind"] = submission.problem, "submission"
        else:
            graded = [lab for lab in setup.labs if lab in submission.files]
            outcomes = grade_in(scratch, log, submission, setup, student, graded)
    except Stopped:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    except Exception as error:  # the pipeline's own failure is still this student's row
        student["error"], student["error_kind"] = f"grading failed: {type(error).__name__}: {error}", "grading"
        with open(log, "a") as out:
            out.write(f"\n{student['error']}\n")
    try:
        # Out of the same maximum as everyone: every lab graded is there, those not handed in
        # (all of them, for a submission with nothing to grade) MISSING.
        grade = setup.harness.grade_report(scratch / "build" / "results", scratch / "report.json", setup.labs, graded,
                                           setup.kit.points_file, setup.kit_version)
    except Exception as error:
        grade = None
        if not student["error"]:
            student["error"], student["error_kind"] = f"grading failed: {error}", "grading"
    report = with_student(grade, student, setup)
    if grade:
        explain_unfinished(report, outcomes, setup.timeout)
        name_files_as_the_student_does(report, scratch)
        if not student["error"]:
            refuse_an_empty_grade(report, graded)
    try:
        write_atomically(student_dir / "log.txt", capped_log(log))
        write_report(student_dir / "report.json", report)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return report


def grade_in(scratch: Path, log: Path, submission: Submission, setup: Setup, student: dict, graded: list) -> dict:
    """Builds the student's labs and runs the tests of `graded` (the labs asked for that were
    handed in); returns CTest's outcome of each test (test_outcomes). What the tests recorded
    stays in scratch/build/results for the grader."""
    sources = scratch / "labs"
    build = scratch / "build"
    sources.mkdir()
    # The compilers' and tests' temporary files go into the scratch folder too (nvcc leaves its
    # tmpxft files behind when a cancelled task stops it mid-compile), so removing the folder
    # leaves nothing of the student on the node.
    temporary = scratch / "tmp"
    temporary.mkdir()
    env = dict(os.environ, TMPDIR=str(temporary))
    built = labs_to_build(setup, submission)
    for lab in built:
        (sources / f"{setup.stems[lab]}.cu").write_bytes(submission.files[lab])

    started = time.monotonic()
    if built:
        status, timed_out = run_logged(
            ["cmake", "-S", setup.kit.root, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             f"-DREDUCE_LAB_HARNESS={setup.harness.folder}", f"-DREDUCE_LAB_SOURCES={sources}",
             f"-DREDUCE_LAB_BACKEND={setup.backend}", f"-DREDUCE_LAB_TEST_TIMEOUT={setup.timeout}"],
            log, CONFIGURE_SECONDS, env)
        if status != 0:
            raise RuntimeError("the student's build folder could not be configured" +
                               (" in time" if timed_out else "") + " (the log has CMake's output)")
        modules = len(built) * (2 if setup.backend == "gpu" else 1)
        # A lab that does not compile fails its own tests (with the compiler's first error);
        # -k 0 keeps building the others.
        status, timed_out = run_logged(["cmake", "--build", build, "--parallel", str(setup.build_jobs), "--", "-k", "0"],
                                       log, BUILD_SECONDS_PER_MODULE * modules, env)
        if timed_out:
            student["notes"].append(f"the build was stopped after {BUILD_SECONDS_PER_MODULE * modules} s; "
                                   "labs it had not finished count as not compiling")
    student["seconds"]["build"] = round(time.monotonic() - started, 2)

    junits = []
    ctest_log = scratch / "ctest.txt"
    lane = setup.device_lane
    # The grader's own limits inside each test (a launch, a call, the supervisor's) come from
    # the test's budget, CMake's REDUCE_LAB_TEST_TIMEOUT set from --timeout (grader/src/run/limits.hpp).

    def run_tests(selection: list, tests: int) -> None:
        junit = build / f"junit-{len(junits)}.xml"
        junits.append(junit)
        command = (["ctest", "--test-dir", build] + selection +
                   ["-j", str(setup.tests_at_once()), "--output-on-failure", "--output-junit", junit])
        waiting = time.monotonic()
        # On a GPU one student's tests at a time: CTest runs their speed tests alone (RUN_SERIAL).
        with lane if lane is not None else contextlib.nullcontext():
            started = time.monotonic()
            student["seconds"]["waiting_for_device"] += started - waiting
            run_logged(command, ctest_log, tests * (setup.timeout + 30), env)
            student["seconds"]["tests"] += time.monotonic() - started

    if graded:
        selection, tests = test_selection(setup.backend, graded, built)
        run_tests(selection, tests)
        # "grader error" is the grader's own failure (out of memory, say), never a verdict on
        # the student's code: those tests run once more.
        first = setup.harness.grade_report(build / "results", scratch / "report.json", graded, graded,
                                           setup.kit.points_file, setup.kit_version)
        again = [f"lab{lab}.{check}" for lab, entry in first["labs"].items()
                 for check, result in entry["checks"].items() if result["summary"] == "grader error"]
        if again:
            student["notes"].append("ran again after the grader's own error: " + ", ".join(again))
            run_tests(["-R", "^(" + "|".join(re.escape(test) for test in again) + ")$"], len(again))
        for part in ("waiting_for_device", "tests"):
            student["seconds"][part] = round(student["seconds"][part], 2)
    ctest_output = ctest_log.read_text(errors="replace") if ctest_log.exists() else ""
    with open(log, "a") as out:
        out.write(ctest_output)

    return test_outcomes(ctest_output, junits)


def refuse_an_empty_grade(report: dict, graded: list) -> None:
    """Lab files were handed in but no test could judge them (a GPU grade on a machine whose
    GPU cannot run them: every test skipped): that is no grade. It is marked as the kit's own
    failure, so the roster says why and the next run grades the student again, instead of
    keeping 0 points "already graded with the same files"."""
    results = [report["labs"][str(lab)]["checks"][check] for lab in graded for check in report["labs"][str(lab)]["checks"]]
    if not results or any(result["status"] in ("PASS", "FAIL") for result in results):
        return
    reason = next((result["message"] for result in results if result["status"] == "SKIP" and result["message"]),
                  "every test was skipped or left no result")
    report["error"] = "no test could grade the lab files here: " + reason.splitlines()[0]
    report["error_kind"] = "grading"


def name_files_as_the_student_does(report: dict, scratch: Path) -> None:
    """Messages name the scratch folder, which is gone once the report is written: the lab file
    is labs/<lab>.cu to the student, and the compiler's output is in log.txt beside the report."""
    if isinstance(report.get("sources"), str):
        report["sources"] = report["sources"].replace(f"{scratch}/", "")
    for entry in report["labs"].values():
        for result in entry["checks"].values():
            for field in ("summary", "message"):
                text = result[field].replace(f"{scratch}/labs/", "labs/")
                text = re.sub(r"Full compiler output: \S+", "Full compiler output: log.txt, beside this report", text)
                result[field] = text.replace(f"{scratch}/", "")
