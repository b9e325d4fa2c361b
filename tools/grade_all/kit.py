"""The instructor's kit: where it is, which labs it has, which version grades, which harness."""

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import GradeAllError

CHECKS = ("correctness", "requests", "speedup", "races")


@dataclass(frozen=True)
class Kit:
    root: Path

    @property
    def points_file(self) -> Path:
        return self.root / "grader" / "points.json"

    def lab_stems(self) -> dict:
        """{1: "01_simple", ...}, from the kit's own labs/ folder, so that the kit alone says
        which file names a submission must use."""
        stems = {}
        for path in sorted((self.root / "labs").glob("[0-9][0-9]_*.cu")):
            stems[int(path.name[:2])] = path.stem
        if not stems:
            raise GradeAllError(f"{self.root}/labs has no lab files: is {self.root} a copy of the kit?")
        return stems

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
