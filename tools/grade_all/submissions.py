"""What a student handed in: the lab files of one entry of the submissions folder.

An entry is a folder (a copy of the kit, a git clone, or just the .cu files) or a bare git
repository. Only files named like the kit's labs (01_simple.cu ...) are taken: everything
else a student may have changed (grader, tests, thresholds, CMake) stays the instructor's.
"""

import hashlib
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from . import GradeAllError

MAX_LAB_BYTES = 1 << 20  # a lab file is a few kB; anything near this is not a lab
SKIPPED_FOLDERS = {".git", "build", "solutions", "node_modules", "__pycache__"}


@dataclass
class Submission:
    student: str
    source: Path
    files: dict = field(default_factory=dict)   # lab number -> bytes
    paths: dict = field(default_factory=dict)   # lab number -> where it was found, for the report
    notes: list = field(default_factory=list)   # things worth telling the instructor
    problem: str = ""                          # why nothing can be graded, if so

    def digest(self, lab: int) -> str:
        return hashlib.sha256(self.files[lab]).hexdigest()


def student_name(entry: Path) -> str:
    name = entry.name
    return name[:-4] if name.endswith(".git") and len(name) > 4 else name


def is_bare_repository(entry: Path) -> bool:
    return (entry / "HEAD").is_file() and (entry / "objects").is_dir() and (entry / "refs").is_dir()


def list_entries(submissions_dir: Path) -> list:
    """Every student entry, sorted by name; hidden files and folders are not students."""
    if not submissions_dir.exists():
        raise GradeAllError(f"{submissions_dir} does not exist")
    if not submissions_dir.is_dir():
        raise GradeAllError(f"{submissions_dir} is not a folder (it should hold one folder per student)")
    entries = sorted((e for e in submissions_dir.iterdir() if not e.name.startswith(".")), key=lambda e: e.name)
    if not entries:
        raise GradeAllError(f"{submissions_dir} is empty: put one folder (or git repository) per student in it")
    names = {}
    for entry in entries:
        other = names.setdefault(student_name(entry), entry)
        if other != entry:
            raise GradeAllError(f"{other.name} and {entry.name} are the same student ({student_name(entry)}); "
                                "keep one of them")
    return entries


def _choose(candidates: list) -> tuple:
    """The file to grade among several of one lab's name: inside a labs/ folder first, then
    the shallowest path. Returns (chosen, the others)."""
    ranked = sorted(candidates, key=lambda p: (p.split("/")[-2:-1] != ["labs"], p.count("/"), p))
    return ranked[0], ranked[1:]


def _from_paths(submission: Submission, paths: list, read, stems: dict) -> None:
    by_name = {stem + ".cu": lab for lab, stem in stems.items()}
    found = {}
    other_cu = []
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if name in by_name:
            found.setdefault(by_name[name], []).append(path)
        elif name.endswith(".cu"):
            other_cu.append(path)
    for lab, candidates in sorted(found.items()):
        chosen, others = _choose(candidates)
        if others:
            submission.notes.append(f"lab {lab}: graded {chosen}, not {', '.join(others)}")
        data = read(chosen)
        if data is None:
            submission.notes.append(f"lab {lab}: {chosen} could not be read")
            continue
        if len(data) > MAX_LAB_BYTES:
            submission.notes.append(f"lab {lab}: {chosen} is {len(data)} bytes, too large to be a lab; not graded")
            continue
        submission.files[lab] = data
        submission.paths[lab] = chosen
    shown = ", ".join(other_cu[:5]) + (f" and {len(other_cu) - 5} more" if len(other_cu) > 5 else "")
    if not submission.files:
        expected = ", ".join(f"{stem}.cu" for stem in stems.values())
        submission.problem = (f"no lab files found: expected labs/<lab>.cu as in the kit, or the files themselves "
                              f"({expected})")
        if other_cu:
            submission.problem += f"; found other .cu files ({shown}): lab files must keep the kit's names"
    elif other_cu:
        # One note for all of them: a whole copy of the kit brings dozens, and a misnamed lab
        # must still stand out.
        first, last = min(stems.values()), max(stems.values())
        what = f"{other_cu[0]} is" if len(other_cu) == 1 else f"{len(other_cu)} other .cu files are"
        submission.notes.append(f"{what} not graded ({shown}): lab files keep the kit's names, {first}.cu ... {last}.cu"
                                if len(other_cu) > 1 else
                                f"{what} not graded: lab files keep the kit's names, {first}.cu ... {last}.cu")


def _walk(folder: Path) -> list:
    paths = []
    for path in folder.rglob("*.cu"):
        relative = path.relative_to(folder)
        if any(part in SKIPPED_FOLDERS or part.startswith(".") for part in relative.parts[:-1]):
            continue
        if path.is_file():
            paths.append(relative.as_posix())
    return paths


def _read_folder_file(folder: Path):
    def read(relative: str):
        try:
            return (folder / relative).read_bytes()
        except OSError:
            return None
    return read


def _git(repository: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={repository}", *args], capture_output=True, timeout=120)


def read_submission(entry: Path, stems: dict) -> Submission:
    submission = Submission(student=student_name(entry), source=entry)
    try:
        if entry.is_dir() and is_bare_repository(entry):
            listing = _git(entry, "ls-tree", "-r", "-z", "--name-only", "HEAD")
            if listing.returncode != 0:
                submission.problem = ("a bare git repository without a readable HEAD commit: "
                                      + listing.stderr.decode(errors="replace").strip())
                return submission
            paths = [p for p in listing.stdout.decode(errors="replace").split("\0")
                     if p.endswith(".cu") and not any(part in SKIPPED_FOLDERS or part.startswith(".")
                                                      for part in p.split("/")[:-1])]

            def read(path: str):
                blob = _git(entry, "cat-file", "blob", f"HEAD:{path}")
                return blob.stdout if blob.returncode == 0 else None
            _from_paths(submission, paths, read, stems)
        elif entry.is_dir():
            _from_paths(submission, _walk(entry), _read_folder_file(entry), stems)
        else:
            submission.problem = "not a folder or a git repository (each student needs a folder)"
    except (OSError, subprocess.SubprocessError) as error:
        submission.problem = f"could not be read: {error}"
    return submission
