"""Grades a folder of student submissions with the instructor's own kit (./lab grade-all)."""


class GradeAllError(Exception):
    """A problem with the command's input or set-up, stated for the person who ran it."""


def students(count: int) -> str:
    return f"{count} student" + ("" if count == 1 else "s")
