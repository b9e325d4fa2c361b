"""The instructor's kit: where it is, which labs it has, which version grades, which harness."""

import functools
import json
import re
import subprocess
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

    def version(self) -> str:
        try:
            out = subprocess.run(["git", "-C", str(self.root), "describe", "--always", "--dirty"],
                                 capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return "unknown"
        return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"


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
