"""The points per lab and per check, from the one file instructors edit (grader/points.json).

    {"lab1": {"correctness": 6, "requests": 4, "speedup": 3, "races": 1}, ..., "lab7": {...}}

A check that passes earns its points; one that fails earns none; one that cannot be graded on
the machine that graded (speed and races on the emulator) earns none and is left out of the
maximum too. A lab the file leaves out is worth its default points in grader/labs.json.
"""

import json
from pathlib import Path

from . import GradeAllError
from .kit import CHECKS, manifest_labs

# On a GPU machine the emulator may also judge correctness (recorded as correctness.emu).
KNOWN_CHECKS = CHECKS + ("correctness.emu",)


def load_points(path: Path, labs: dict) -> dict:
    """{lab number: {check: points}} for every lab in `labs` ({number: stem})."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise GradeAllError(f"the points file {path} is missing") from None
    except (OSError, ValueError) as error:
        raise GradeAllError(f"the points file {path} is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise GradeAllError(f"{path}: expected an object such as {{\"lab1\": {{\"correctness\": 6, ...}}, ...}}")
    points = {}
    for key, checks in data.items():
        if not (key.startswith("lab") and key[3:].isdigit() and int(key[3:]) in labs):
            raise GradeAllError(f"{path}: '{key}' is not a lab of this kit (lab1 ... lab{max(labs)})")
        if not isinstance(checks, dict):
            raise GradeAllError(f"{path}: {key} must map check names to points")
        for check, value in checks.items():
            if check not in KNOWN_CHECKS:
                raise GradeAllError(f"{path}: {key} has an unknown check '{check}' "
                                    f"(the checks are {', '.join(KNOWN_CHECKS)})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise GradeAllError(f"{path}: {key}.{check} must be a number of points, 0 or more, not {value!r}")
        points[int(key[3:])] = dict(checks)
    defaults = manifest_labs()
    for lab in sorted(set(labs) - set(points)):
        points[lab] = dict(defaults[lab]["points"])
    return points
