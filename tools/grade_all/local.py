"""Grading a class on this machine: students in parallel, with a progress line.

Builds run side by side over the CPU cores. On the emulator each student's tests run right
after their build, side by side with other students'. On a GPU the device is one lane: one
student's tests at a time (CTest runs their speed tests alone), while the next students build.
"""

import concurrent.futures
import os
import sys
import threading
import time

from .grading import Children, Occupancy, Stopped, grade_student


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m{rest % 60:02d}s" if hours else f"{rest // 60}m{rest % 60:02d}s"


class Progress:
    """One line, rewritten in place on a terminal (one line per student elsewhere): students
    done, how many have a failing check or could not be graded, and the time left."""

    def __init__(self, total: int):
        self.total = total
        self.done = self.failing = self.errors = 0
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def status(self) -> str:
        elapsed = time.monotonic() - self.started
        # Students with nothing to grade take no time and would make the estimate too hopeful.
        graded = self.done - self.errors
        left = ("estimating time left" if not graded else
                f"about {clock(elapsed / graded * (self.total - self.done))} left")
        if self.done == self.total:
            left = f"done in {clock(elapsed)}"
        return (f"[{self.done}/{self.total} students] {self.failing} with a failing check, "
                f"{self.errors} not gradable; {clock(elapsed)} so far, {left}")

    def student_done(self, student: str, report: dict) -> None:
        with self.lock:
            self.done += 1
            if report.get("error"):
                self.errors += 1
                line = f"{student}: not graded: {report['error']}"
            else:
                failing = [f"lab{lab}.{check}" for lab, entry in report["labs"].items()
                           for check, result in entry["checks"].items() if result["status"] in ("FAIL", "ERROR")]
                self.failing += bool(failing)
                line = f"{student}: {report['score']:g}/{report['max_score']:g}" + (
                    f" (failing: {', '.join(failing[:6])}{' ...' if len(failing) > 6 else ''})" if failing else "")
            self.show(line)

    def show(self, line: str = "") -> None:
        if self.tty:
            sys.stderr.write("\r\033[K" + (line + "\n" if line else "") + self.status())
        else:
            sys.stderr.write((line + "\n" if line else "") + self.status() + "\n")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def grade_locally(pending: list, setup, students_dir, jobs: int) -> dict:
    """Grades every (submission) in `pending`; returns {student: report} and the timing."""
    progress = Progress(len(pending))
    progress.show()
    reports = {}
    started = time.monotonic()
    setup.in_flight = Occupancy()

    def grade(submission):
        with setup.in_flight:
            return grade_student(submission, setup, students_dir / submission.student)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grade, submission): submission for submission in pending}
        try:
            for future in concurrent.futures.as_completed(futures):
                submission = futures[future]
                try:
                    report = future.result()
                except Stopped:
                    continue
                reports[submission.student] = report
                progress.student_done(submission.student, report)
        except BaseException:
            # Interrupted: the students being graded stop now (no report), the rest never start.
            for future in futures:
                future.cancel()
            Children.stop_all()
            raise
    progress.finish()
    return {"reports": reports, "wall": time.monotonic() - started}


def default_jobs(backend: str) -> int:
    cores = os.cpu_count() or 2
    # On a GPU machine one core stays with the student on the device: lab 1's baseline is a
    # CPU loop, timed while the others build.
    return max(1, cores - 1) if backend == "gpu" else cores
