"""One student's report.json, as the harness's grader builds it, and writing it.

report.json is ./lab grade's (labgrader --table: docs/grading.md, "report.json", which also
names the statuses PASS, FAIL, SKIP, MISSING and ERROR) with the student's own fields added at
its top level (docs/instructors.md describes them):

    {"schema": 3, "kit_version": "badf3b0", "backend": "emu", "created": "...", "labs": {...},
     "score": 20, "max_score": 20, ...,
     "student": "alice", "submission": "/class/alice", "host": "node1", "slurm_job": null,
     "labs_graded": [1, 2], "files": {"1": {"path": "labs/01_simple.cu", "sha256": "..."}},
     "fingerprint": "...", "error": null, "error_kind": null, "notes": [],
     "seconds": {"build": 3.1, "tests": 40.2, "waiting_for_device": 0}}

The grader alone reads the tests' records, knows the checks and scores them; nothing here does.
"""

import json
import os
import tempfile
from pathlib import Path


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
    """The report at `path`, or None when there is none or it cannot be read. Its "schema" says
    which layout it has; grade-all grades again a student whose report has another layout than
    the harness's grader writes (Harness.report_schema)."""
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(report, dict) or not isinstance(report.get("schema"), int):
        return None
    return report
