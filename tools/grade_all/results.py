"""One student's results: read from a graded build folder, written as report.json.

report.json (schema 2, as ./lab grade's: the same names for the same things; docs/instructors.md
describes every field):

    {"schema": 2, "student": "alice", "submission": "/class/alice", "kit_version": "badf3b0",
     "backend": "emu", "created": "2025-01-31T12:00:00Z", "host": "node1", "slurm_job": null,
     "labs_graded": [1, 2], "files": {"1": {"path": "labs/01_simple.cu", "sha256": "..."}},
     "fingerprint": "...", "error": null, "error_kind": null, "notes": [],
     "labs": {"1": {"checks": {"correctness": {"status": "PASS", "summary": "35 cases ok",
                                               "message": "...", "score": 6, "max_score": 6}, ...},
                    "score": 10, "max_score": 10}, ...},
     "score": 20, "max_score": 20, "seconds": {"build": 3.1, "tests": 40.2, "waiting_for_device": 0}}

A check's status is PASS, FAIL or SKIP as the grader recorded it, MISSING when the student
handed in no file for the lab, or ERROR when its test left no result at all.
"""

import json
import os
import tempfile
from pathlib import Path

from .kit import CHECKS

SCHEMA = 2


def read_results(results_dir: Path) -> dict:
    """{lab: {check: {"status", "summary", "message"}}} of everything the grader recorded in a
    build folder's results/ (one file lab<N>.<check> per graded test: the status, the table's
    summary, then the message). This is the only code that knows that format: when the grader
    writes a richer report of its own, only this function changes."""
    results = {}
    if not results_dir.is_dir():
        return results
    for path in sorted(results_dir.glob("lab*.*")):
        lab_text, _, check = path.name[3:].partition(".")
        if not lab_text.isdigit() or not check:
            continue
        lines = path.read_text(errors="replace").split("\n")
        status = lines[0].strip()
        if status not in ("PASS", "FAIL", "SKIP"):
            continue
        results.setdefault(int(lab_text), {})[check] = {
            "status": status,
            "summary": lines[1].strip() if len(lines) > 1 else "",
            "message": "\n".join(lines[2:]).strip(),
        }
    return results


def check_entry(status: str, summary: str, message: str) -> dict:
    return {"status": status, "summary": summary, "message": message, "score": 0, "max_score": 0}


def lab_checks(lab: int, recorded: dict, submitted: bool, file_name: str) -> dict:
    """The checks of one lab for the report: what the grader recorded, and for every check it
    should have recorded but did not, why not."""
    checks = {}
    for check in CHECKS + tuple(sorted(set(recorded) - set(CHECKS))):
        if not submitted:
            checks[check] = check_entry("MISSING", "not handed in", f"{file_name} was not in the submission.")
        elif check in recorded:
            checks[check] = check_entry(**recorded[check])
        else:
            checks[check] = check_entry("ERROR", "no result", "The test left no result; the student's log says why.")
    return checks


# Checks the grader always skips on a backend (CMake gives them --skip there): a lab that was
# not handed in cannot be worth them either, or students would differ in their maximum.
NEVER_GRADED = {"emu": ("speedup", "races")}


def score(report: dict, points: dict) -> dict:
    """Fills in the points of every check and the totals, from {lab: {check: points}}. A skipped
    check could not be graded here and counts in neither the points nor the maximum."""
    total = maximum = 0
    never = NEVER_GRADED.get(report.get("backend", ""), ())
    for lab_text, lab in report.get("labs", {}).items():
        lab_points = lab_max = 0
        for check, entry in lab["checks"].items():
            worth = points.get(int(lab_text), {}).get(check, 0)
            skipped = entry["status"] == "SKIP" or (entry["status"] == "MISSING" and check in never)
            entry["max_score"] = 0 if skipped else worth
            entry["score"] = worth if entry["status"] == "PASS" else 0
            lab_points += entry["score"]
            lab_max += entry["max_score"]
        lab["score"], lab["max_score"] = lab_points, lab_max
        total += lab_points
        maximum += lab_max
    report["score"], report["max_score"] = total, maximum
    return report


def write_atomically(path: Path, text: str) -> None:
    """Replaces `path` in one step: a reader sees the old file or the whole new one, and a
    process stopped half-way leaves only a stray temporary file, never a half-written one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_report(path: Path, report: dict) -> None:
    write_atomically(path, json.dumps(report, indent=2, sort_keys=False) + "\n")


def load_report(path: Path):
    """The report at `path`, or None when there is none or it cannot be read."""
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) and report.get("schema") == SCHEMA else None
