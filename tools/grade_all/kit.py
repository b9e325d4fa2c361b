"""The instructor's kit: where it is, which labs it has, which version grades, which harness."""

import functools
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import GradeAllError

# The kit these tools belong to: they live in its tools/ folder.
KIT_ROOT = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=None)
def manifest() -> dict:
    """grader/labs.json, where every lab is declared (docs/instructors.md, "Adding a lab"):
    {"checks": [...], "labs": [{"number": 1, "stem": "01_simple", "baseline": "cpu", ...}, ...]}."""
    path = KIT_ROOT / "grader" / "labs.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise GradeAllError(f"{path} cannot be read: {error}") from None


def manifest_labs() -> dict:
    """{number: that lab's entry in grader/labs.json}."""
    return {lab["number"]: lab for lab in manifest()["labs"]}


def baseline(lab: int) -> int:
    """The lab `lab` is timed against; 0 for the sequential CPU loop."""
    value = manifest_labs()[lab]["baseline"]
    return 0 if value == "cpu" else int(value)


CHECKS = tuple(manifest()["checks"])


@dataclass(frozen=True)
class Kit:
    root: Path

    @property
    def points_file(self) -> Path:
        return self.root / "grader" / "points.json"

    def lab_stems(self) -> dict:
        """{1: "01_simple", ...}, from the kit's grader/labs.json, so that the kit alone says
        which file names a submission must use."""
        if not (self.root / "labs").is_dir():
            raise GradeAllError(f"{self.root}/labs is missing: is {self.root} a copy of the kit?")
        return {number: lab["stem"] for number, lab in manifest_labs().items()}


@dataclass(frozen=True)
class Harness:
    """A built kit folder whose grader (and emulator) every student's build reuses."""
    folder: Path
    backend: str
    grader: Path
    source_dir: Path

    @staticmethod
    def load(folder: Path, kit: Kit) -> "Harness":
        description = folder / "reduce-lab-harness.cmake"
        if not description.is_file():
            raise GradeAllError(f"{folder} is not a built kit folder ({description.name} is missing); "
                                "./lab grade-all builds one")
        values = dict(re.findall(r'^set\((REDUCE_LAB_HARNESS_\w+) "([^"]*)"\)$', description.read_text(),
                                 re.MULTILINE))
        harness = Harness(folder=folder, backend=values.get("REDUCE_LAB_HARNESS_BACKEND", ""),
                          grader=Path(values.get("REDUCE_LAB_HARNESS_GRADER", "")),
                          source_dir=Path(values.get("REDUCE_LAB_HARNESS_SOURCE_DIR", "")))
        if harness.backend not in ("gpu", "emu"):
            raise GradeAllError(f"{description} names no backend; rebuild the harness")
        if harness.source_dir.resolve() != kit.root.resolve():
            raise GradeAllError(f"{folder} was built from {harness.source_dir}, not from this kit ({kit.root})")
        if not harness.grader.is_file():
            raise GradeAllError(f"{harness.grader} is missing: build {folder} first "
                                f"(cmake --build {folder} --target grader)")
        return harness

    def grade_report(self, results: Path, out: Path, labs: list, handed_in: list, points_file: Path,
                     kit_version: str) -> dict:
        """report.json of the records in `results` (a build folder's results/; missing when
        nothing was recorded), exactly as ./lab grade writes it: the grader builds and scores it
        (labgrader --table ... --quiet). Every lab of `labs` is in it; those not in `handed_in`
        are MISSING. Written to `out` (the staircase, on a GPU, beside it) and returned."""
        command = [str(self.grader), "--table", str(results), "grade-all", "--quiet",
                   "--labs", ",".join(map(str, labs)), "--handed-in", ",".join(map(str, handed_in)),
                   "--points", str(points_file), "--report", str(out), "--svg", str(out.with_name("staircase.svg"))]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                                  env=dict(os.environ, REDUCE_LAB_KIT_VERSION=kit_version))
        except (OSError, subprocess.TimeoutExpired) as error:
            raise GradeAllError(f"the grader could not build the report: {error}") from None
        if done.returncode not in (0, 1):  # 1: not every lab passed, which is a grade too
            raise GradeAllError("the grader could not build the report: " + (done.stderr or done.stdout).strip())
        try:
            return json.loads(out.read_text())
        except (OSError, ValueError) as error:
            raise GradeAllError(f"the grader's report {out} cannot be read: {error}") from None

    def rescore(self, reports: list, points_file: Path) -> None:
        """Scores `reports` (report.json files) again, in place, with `points_file` as it is now
        (labgrader --rescore): the grader's scorer, never one of ours."""
        if not reports:
            return
        try:
            done = subprocess.run([str(self.grader), "--rescore", *map(str, reports), "--points", str(points_file)],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise GradeAllError(f"the grader could not score the reports again: {error}") from None
        if done.returncode != 0:
            raise GradeAllError("the grader could not score the reports again: " + (done.stderr or done.stdout).strip())

    def kit_version(self) -> str:
        """The kit's version as every report names it: the grader decides it (labgrader
        --kit-version), so a class's reports and ./lab grade's agree."""
        try:
            done = subprocess.run([str(self.grader), "--kit-version"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return "unknown"
        return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "unknown"

    def report_schema(self, points_file: Path) -> int:
        """The layout of report.json that this grader writes ("schema")."""
        with tempfile.TemporaryDirectory(prefix="grade-all-schema-") as scratch:
            empty = Path(scratch)
            return self.grade_report(empty / "results", empty / "report.json", [], [], points_file, "unknown")["schema"]
