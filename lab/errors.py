"""Typed exceptions of the lab.  Every user-facing failure is a ``LabError``.

The command line turns any ``LabError`` into one line on stderr and exit code 2; the dashboard shows
``str(err)`` as an inline alert.  Messages are single lines written for the person who typed the input.
"""


class LabError(Exception):
    """Base class of every error the lab reports to its users."""


class GroupError(LabError, ValueError):
    """Unknown group name or an invalid group argument such as ``S(0)``."""


class ParseError(LabError, ValueError):
    """Text in the group or representation language could not be parsed.

    ``position`` is the 0-based character offset where parsing failed and ``expected`` says what the
    parser wanted there.
    """

    def __init__(self, text: str, position: int, expected: str, found: str | None = None):
        self.text = text
        self.position = position
        self.expected = expected
        self.found = found if found is not None else (text[position:position + 1] or "end of input")
        super().__init__(
            f"cannot parse {text!r}: at position {position} expected {expected}, found {self.found!r}"
        )


class RepError(LabError, ValueError):
    """A representation is used wrongly: unbound to a group, reps over different groups, ..."""


class SolverError(LabError, ValueError):
    """A solver was asked for that does not apply to the representation, or failed to converge."""


class RunFileError(LabError, ValueError):
    """A saved run (or a file of one) cannot be read: missing, truncated, hand-edited into a wrong shape, or of
    an unknown format version.

    ``file`` is the file's path and ``field`` the offending field or column (``None`` when the whole file is
    at fault), so that the one-line message tells a person exactly what to fix or delete.
    """

    def __init__(self, file, field: str | None, problem: str):
        self.file = str(file)
        self.field = field
        self.problem = " ".join(str(problem).split())  # one line, whatever the parser said
        where = f"{self.file}: field {field!r}" if field else self.file
        super().__init__(f"{where}: {self.problem}")


class RunPathError(LabError, ValueError):
    """A run was asked for by a name or path that lies outside the runs directory it must come from (``..``,
    an absolute path elsewhere, a symbolic link pointing out): refused rather than read."""


class DataError(LabError, ValueError):
    """Data the lab's shared data layer (``lab.data``) cannot build: a split, a class or a size out of range."""


class MemoryLimitError(LabError, MemoryError):
    """A computation was refused before allocating because it would exceed the memory limit."""

    def __init__(self, what: str, needed: int, limit: int):
        self.needed = needed
        self.limit = limit
        super().__init__(
            f"{what} needs about {format_bytes(needed)}, more than the memory limit of "
            f"{format_bytes(limit)} (raise it with memory_limit=... / --memory-limit, or set LAB_MEMORY_LIMIT)"
        )


def format_bytes(n: float) -> str:
    """A byte count as text for messages, in binary units (1 KB = 1024 B): whole bytes below 1 KB, else one
    decimal in KB, MB, GB or TB (TB the largest).

    >>> format_bytes(512), format_bytes(1536), format_bytes(8 * 2**30)
    ('512 B', '1.5 KB', '8.0 GB')
    """
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"
