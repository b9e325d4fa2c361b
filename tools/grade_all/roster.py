"""roster.csv: one row per student of the submissions folder, graded or not.

Points are those each report.json was scored with: the harness's grader scores a report as it
builds it, and again with the points file as it is when the roster is written (labgrader
--rescore, docs/instructors.md, "Grading a class"); nothing here scores.
"""

import csv
import io
from pathlib import Path

from .kit import CHECKS
from .results import write_atomically


def roster_checks(reports: list, labs: list) -> list:
    """[(lab, check)] for the columns: the kit's checks and any other the reports hold
    (correctness.emu), in order."""
    columns = []
    for lab in labs:
        checks = list(CHECKS)
        for report in reports:
            for check in (report or {}).get("labs", {}).get(str(lab), {}).get("checks", {}):
                if check not in checks:
                    checks.append(check)
        columns += [(lab, check) for check in checks]
    return columns


def write_roster(path: Path, rows: list, labs: list) -> dict:
    """rows: [(student, report or None, why there is no report)]. Returns counts by state."""
    reports = [report for _, report, _ in rows]
    columns = roster_checks(reports, labs)
    header = ["student", "state", "points", "max_points"]
    for lab in labs:
        header.append(f"lab{lab}")
        header += [f"lab{lab}.{check}" for l, check in columns if l == lab]
        header += [f"lab{lab}.{check}.points" for l, check in columns if l == lab]
    header += ["backend", "kit_version", "graded_at", "note"]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    counts = {"graded": 0, "error": 0, "not graded": 0}
    for student, report, why in rows:
        if report is None:
            counts["not graded"] += 1
            writer.writerow([student, "not graded", "", ""] + [""] * (len(header) - 8) + ["", "", "", why])
            continue
        state = "error" if report.get("error") else "graded"
        counts[state] += 1
        row = [student, state, number(report.get("score") or 0), number(report.get("max_score") or 0)]
        for lab in labs:
            lab_entry = report.get("labs", {}).get(str(lab), {})
            checks = lab_entry.get("checks", {})
            row.append(number(lab_entry.get("score", 0)) if lab_entry else "")
            row += [checks.get(check, {}).get("status", "") for l, check in columns if l == lab]
            row += [number(checks[check].get("score", 0)) if check in checks else "" for l, check in columns if l == lab]
        row += [report.get("backend", ""), report.get("kit_version", ""), report.get("created", ""),
                note(report)]
        writer.writerow(row)
    write_atomically(path, text.getvalue())
    return counts


def number(value) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def note(report: dict) -> str:
    """The one line an instructor reads first: why nothing was graded, or the first failures."""
    if report.get("error"):
        return report["error"]
    failures = []
    for lab, entry in report.get("labs", {}).items():
        for check, result in entry.get("checks", {}).items():
            if result["status"] in ("FAIL", "ERROR"):
                failures.append(f"lab{lab}.{check}: {result['summary']}")
    notes = report.get("notes", [])
    return "; ".join(failures[:4] + (["..."] if len(failures) > 4 else []) + notes)
