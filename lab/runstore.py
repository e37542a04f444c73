"""The one store of saved runs, every family's: write, list, resolve, read; a ``RunKind`` declares a kind of run.

A run is a directory ``ROOT/NAME`` holding ``config.json`` (settings, status, summary, plus ``format`` and
``kind``) and data files (CSV, npz).  Why it is built the way it is:

* **Atomic.**  Every file is written into a temporary directory ``ROOT/.tmp-*`` beside the runs, flushed to
  disk (``fsync``), and the directory is then renamed to its final name in one step.  A reader sees a whole
  run or none, whatever moment a save is killed at (``kill -9``, power loss after the rename).
* **Unique names.**  ``NAME`` is ``YYYYmmdd-HHMMSS-LABEL-RANDOM``; if that still exists (two saves in the
  same second that drew the same random part) ``-2``, ``-3``, ... are appended.  The rename itself refuses a
  taken name (a run directory is never empty), so two processes can never overwrite each other's run.
* **Leftovers are harmless.**  A save killed mid-write leaves a ``.tmp-*`` directory; listing and resolving
  never show names starting with ``.``, and temporaries older than ``STALE_SECONDS`` are removed by the next
  save or listing (a younger one may belong to a save in progress, so it is left alone).
* **Strict JSON.**  ``config.json`` never contains ``NaN``/``Infinity`` (which strict parsers reject): a
  non-finite value under a key is written as ``null`` with a ``KEY_reason`` beside it (as the CLI's
  ``--json`` does) and turned back into the float when loaded; inside lists it is ``null``.  Files written
  before this rule (with bare ``NaN``) still load.
* **Checked on load.**  ``read_meta``/``read_csv``/``read_npz`` check the format version and the type of
  every field they know and raise ``RunFileError`` naming the file and the field: a truncated or hand-edited
  run gives one line a person can act on, never a ``KeyError`` or ``JSONDecodeError`` from deep inside.
* **Confined.**  ``resolve_run(name_or_path, root)`` turns what a dashboard's select sends into a run
  directory only if it lies directly inside ``root`` (``..``, absolute paths elsewhere and symbolic links
  out are refused with ``RunPathError``), so a dashboard only ever reads its own runs.
"""
from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import secrets
import shutil
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import RunFileError, RunPathError

#: the version of the run format this code writes; ``read_meta`` accepts ``FORMATS`` (0: runs saved before
#: ``config.json`` carried a version, same layout)
FORMAT = 1
FORMATS = (0, 1)
TEMP_PREFIX = ".tmp-"
#: a temporary directory untouched this long belongs to a killed save (a live save writes within seconds)
STALE_SECONDS = 15 * 60
META = "config.json"


# ------------------------------------------------------------------ where runs live
def runs_root(directory=None, *, env_sub: str | None, user_sub: str) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR`` (``/env_sub`` when given), else the per-user data directory's
    ``user_sub``."""
    if directory:
        return Path(directory)
    env = os.environ.get("LAB_RESULTS_DIR")
    if env:
        return Path(env) / env_sub if env_sub else Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("symmetry-lab")) / user_sub


# ------------------------------------------------------------------ strict JSON
def _reason(v: float) -> str:
    return "NaN: not a number (e.g. every run diverged)" if v != v else f"{v}: not finite"


def to_json(value):
    """A copy of ``value`` that ``json.dumps(..., allow_nan=False)`` accepts: numpy scalars and arrays become
    Python numbers and lists, other unknown objects their ``str``, and a non-finite float ``null`` (with a
    ``KEY_reason`` beside it when it sits under a key, so ``from_json`` can restore it)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            k = k if isinstance(k, str) else str(k)
            v = to_json(v)
            if isinstance(v, float) and not math.isfinite(v):
                given = value.get(f"{k}_reason")  # a reason the object states itself wins
                out[k], out[f"{k}_reason"] = None, given if isinstance(given, str) else _reason(v)
            else:
                out[k] = v
        return out
    if isinstance(value, (list, tuple)):
        return [None if isinstance(v, float) and not math.isfinite(v) else v for v in map(to_json, value)]
    if isinstance(value, (np.ndarray, np.generic)):
        return to_json(value.tolist())
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "tolist"):
        return to_json(value.tolist())
    return str(value)


_RESTORE = {"NaN": math.nan, "inf": math.inf, "-inf": -math.inf}


def from_json(value):
    """Undo ``to_json``'s ``null`` + ``KEY_reason`` for non-finite values under a key (lists keep ``None``)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            reason = value.get(f"{k}_reason")
            if v is None and isinstance(reason, str) and reason.split(":")[0] in _RESTORE:
                out[k] = _RESTORE[reason.split(":")[0]]
            elif k.endswith("_reason") and value.get(k[: -len("_reason")], 0) is None and isinstance(v, str) \
                    and v.split(":")[0] in _RESTORE:
                continue
            else:
                out[k] = from_json(v)
        return out
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


# ------------------------------------------------------------------ writing
def _now() -> float:
    """The clock run names are stamped with (a function, so tests can make two saves share a second)."""
    return time.time()


def _token() -> str:
    """The random part of a run name (a function, so tests can force a clash)."""
    return secrets.token_hex(3)


def _checkpoint(stage: str) -> None:
    """Called between the steps of a save (``"config.json"``, a data file's name, ``"publish"``); does
    nothing.  Tests replace it to kill a save at a known moment."""


def run_name(label: str) -> str:
    """``YYYYmmdd-HHMMSS-LABEL-RANDOM``: sorts by time, says what ran, and rarely needs a suffix."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(_now()))
    label = re.sub(r"[^A-Za-z0-9_.]+", "-", str(label)).strip("-.") or "run"
    return f"{stamp}-{label[:40]}-{_token()}"


def _fsync_path(path: Path) -> None:
    """Flush a file's or a directory's data to disk (best effort: some systems cannot open directories)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _age(path: Path) -> float:
    """Seconds since anything in a temporary directory last changed."""
    try:
        stamps = [path.lstat().st_mtime] + [p.lstat().st_mtime for p in path.iterdir()]
    except OSError:
        return 0.0
    return time.time() - max(stamps)


def remove_stale_temporaries(root: Path, older_than: float = STALE_SECONDS) -> list[Path]:
    """Delete the ``.tmp-*`` leftovers of killed saves that nobody touched for ``older_than`` seconds;
    returns what was removed.  Younger ones may be a save in progress and stay (they are never listed)."""
    removed = []
    try:
        entries = list(Path(root).iterdir())
    except OSError:
        return removed
    for p in entries:
        if p.name.startswith(TEMP_PREFIX) and _age(p) >= older_than:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    p.unlink()
                except OSError:
                    continue
            removed.append(p)
    return removed


def _publish(tmp: Path, root: Path, name: str) -> Path:
    """Rename ``tmp`` to ``root/name``, or ``name-2``, ``name-3``, ... when taken; never replaces a run."""
    for i in range(1, 1000):
        target = root / (name if i == 1 else f"{name}-{i}")
        if os.path.lexists(target):
            continue
        try:
            os.rename(tmp, target)  # atomic; fails if a non-empty directory of that name appeared meanwhile
        except OSError as err:
            if err.errno in (errno.EEXIST, errno.ENOTEMPTY) or isinstance(err, FileExistsError):
                continue
            raise
        return target
    raise FileExistsError(errno.EEXIST, "no free run name", str(root / name))


def write_run(root, label: str, kind: str, meta: dict, files: dict[str, Callable[[Path], None]]) -> Path:
    """Save one run atomically under ``root``; returns its directory.

    ``meta`` goes to ``config.json`` (strict JSON, with ``format`` and ``kind`` added); ``files`` maps a data
    file's name to a function writing it to the path it is given.  Everything is written into a temporary
    directory, flushed, and renamed into place under a unique name (see the module docstring).
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(root)
    tmp = Path(os.path.join(root, f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"))
    tmp.mkdir()
    try:
        text = json.dumps(to_json({"format": FORMAT, "kind": kind, **meta}), indent=1, allow_nan=False)
        with open(tmp / META, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        _checkpoint(META)
        for fname, write in files.items():
            write(tmp / fname)
            _fsync_path(tmp / fname)
            _checkpoint(fname)
        _fsync_path(tmp)
        _checkpoint("publish")
        path = _publish(tmp, root, run_name(label))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_path(root)
    return path


@contextmanager
def atomic_file(path):
    """Yield a temporary path beside ``path``; on success it is flushed and renamed onto ``path`` in one step,
    so a reader sees the old file or the new one, never half of one.  On failure it is removed."""
    path = Path(path)
    tmp = path.parent / f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}-{path.name}"
    try:
        yield tmp
        _fsync_path(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    _fsync_path(path.parent)


def write_file(path, fill: Callable) -> None:
    """Write a file a person named (``--png``, ``--csv``, ``--npz``): ``fill(f)`` writes into a binary file.

    Atomic like everything here (``atomic_file``: a temporary beside it, renamed onto it), so a killed or failed
    write never leaves half a file under the name asked for; a device or pipe (``/dev/stdout``) is written
    directly.  Any ``OSError`` (a missing directory, no permission, a full disk) becomes one ``LabError`` line
    that names ``path``, never the temporary beside it.
    """
    from .errors import LabError

    path = os.fspath(path)
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            with open(path, "wb") as f:
                fill(f)
            return
        with atomic_file(path) as tmp, open(tmp, "wb") as f:
            fill(f)
    except OSError as err:  # named by the user's path, never the temporary beside it
        reason = err.strerror or " ".join(str(err).split()) or type(err).__name__
        raise LabError(f"cannot write {path}: {reason}") from err


# ------------------------------------------------------------------ listing and resolving
def _inside(path: Path, root_real: Path) -> bool:
    try:
        return path.resolve().parent == root_real
    except (OSError, RuntimeError):  # a symlink loop
        return False


def list_run_dirs(root) -> list[Path]:
    """Finished run directories under ``root``, newest first: those with a ``config.json``, never a
    temporary (``.``-names) nor a link that leads out of ``root``.  Stale temporaries are removed."""
    root = Path(root)
    if not root.is_dir():
        return []
    remove_stale_temporaries(root)
    root_real = root.resolve()
    runs = []
    for p in root.iterdir():
        if p.name.startswith(".") or not p.is_dir() or not (p / META).is_file() or not _inside(p, root_real):
            continue
        try:
            runs.append((p.stat().st_mtime_ns, p.name, p))
        except OSError:  # removed meanwhile
            continue
    return [p for *_, p in sorted(runs, reverse=True)]


def meta_number(run_dir, key: str):
    """``key`` of a run's ``config.json`` when it is a number, else None (unreadable, absent: the caller keeps the
    run listed so that loading it names the problem).  Reads only that small file."""
    try:
        value = json.loads((Path(run_dir) / META).read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def has_rows(csv_file) -> bool:
    """A CSV file with at least one row under its header (True when it cannot be read: the run stays listed)."""
    try:
        with open(csv_file, encoding="utf-8") as f:
            return sum(1 for _, line in zip(range(2), f) if line.strip()) > 1
    except OSError:
        return True


def resolve_run(name_or_path, root) -> Path:
    """The run directory ``name_or_path`` names, if it lies directly inside ``root``; else ``RunPathError``.

    ``name_or_path`` is a run's name (``20240101-120000-conv-a1b2c3``) or a path to it (what a dashboard's
    Saved-runs select sends).  Both are resolved (symbolic links followed, ``..`` collapsed) before the check,
    so a link inside ``root`` pointing elsewhere, ``../other``, or an absolute path outside are refused, and
    so are temporaries (``.tmp-*``) and a run whose files are links out of it.  The dashboard calls this so
    that it reads only from its own runs directory whatever a browser sends.
    """
    text = str(name_or_path or "").strip()
    if not text or "\x00" in text:
        raise RunPathError(f"no saved run named {text!r}")
    root = Path(root)
    root_real = root.resolve()
    given = Path(text)
    candidate = given if given.is_absolute() else root / given
    try:
        real = candidate.resolve()
    except (OSError, RuntimeError) as err:
        raise RunPathError(f"{text}: cannot be resolved ({err})") from err
    if real.parent != root_real:
        raise RunPathError(f"{text} is not a run of the runs directory {root}: refused")
    if real.name.startswith("."):
        raise RunPathError(f"{text} is a temporary or hidden entry, not a saved run")
    if not real.is_dir():
        raise RunFileError(real, None, "no such saved run")
    for f in real.iterdir():
        if f.is_symlink() and not _inside(f, real):
            raise RunPathError(f"{real}: {f.name} links outside the run: refused")
    return real


# ------------------------------------------------------------------ reading
_TYPES = {
    "object": (lambda v: isinstance(v, dict), "an object"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "integer": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "number": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
    "number?": (lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)), "a number or null"),
}


def _typename(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def read_meta(run_dir, kind: str, fields: dict[str, tuple[str, bool]]) -> dict:
    """``config.json`` of a run, checked: valid JSON object, a known ``format``, the right ``kind`` (when
    recorded), and every field of ``fields`` (``name: (type, required)``, types from ``_TYPES``) present and of
    its type.  Non-finite values written by ``to_json`` come back as floats.  Raises ``RunFileError``."""
    file = Path(run_dir) / META
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise RunFileError(file, None, "missing: this is not a saved run (or it was removed)") from None
    except OSError as err:
        raise RunFileError(file, None, f"cannot be read ({err.strerror or err})") from err
    try:
        meta = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise RunFileError(file, None, f"is not UTF-8 text ({err.reason} at byte {err.start})") from err
    except json.JSONDecodeError as err:
        raise RunFileError(file, None, f"is not valid JSON, truncated or edited? ({err.msg} at line {err.lineno} "
                                       f"column {err.colno})") from err
    if not isinstance(meta, dict):
        raise RunFileError(file, None, f"should hold a JSON object, holds {_typename(meta)}")
    version = meta.get("format", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise RunFileError(file, "format", f"should be an integer version, got {version!r}")
    if version not in FORMATS:
        raise RunFileError(file, "format", f"version {version} is unknown to this lab (it reads "
                                           f"{', '.join(map(str, FORMATS))}); saved by a newer lab?")
    if "kind" in meta and meta["kind"] != kind:
        raise RunFileError(file, "kind", f"is {meta['kind']!r}: this is not a saved {kind} run")
    meta = from_json(meta)
    for name, (typ, required) in fields.items():
        if name not in meta:
            if required:
                raise RunFileError(file, name, "missing")
            continue
        ok, what = _TYPES[typ]
        if not ok(meta[name]):
            raise RunFileError(file, name, f"should be {what}, got {_typename(meta[name])}")
    return meta


def read_csv(run_dir, fname: str, columns=(), integer=(), numeric=(), boolean=()):
    """A CSV file of a run as a DataFrame (an empty file: no rows), checked: the ``columns`` present,
    ``integer`` columns whole numbers without gaps, ``numeric`` ones numbers (NaN and inf allowed), ``boolean``
    ones true/false.  A truncated last line shows up as a gap and is reported.  Raises ``RunFileError``."""
    import pandas as pd

    file = Path(run_dir) / fname
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunFileError(file, None, "missing") from None
    except (OSError, UnicodeDecodeError) as err:
        raise RunFileError(file, None, f"cannot be read ({err})") from err
    if not text.strip():
        df = pd.DataFrame(columns=list(columns))
    else:
        try:
            df = pd.read_csv(io.StringIO(text))
        except (ValueError, pd.errors.ParserError) as err:
            raise RunFileError(file, None, f"is not a valid CSV table ({err})") from err
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise RunFileError(file, missing[0], f"column missing (needs {', '.join(columns)})")
    if df.empty:
        return df
    for c in integer:
        col = df[c]
        if not pd.api.types.is_numeric_dtype(col) or col.isna().any() or not np.all(np.mod(col, 1) == 0):
            raise RunFileError(file, c, "should hold whole numbers in every row (a truncated or edited line?)")
    for c in numeric:
        if not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]):
            raise RunFileError(file, c, "should hold numbers in every row (a truncated or edited line?)")
    for c in boolean:
        col = df[c]
        if not pd.api.types.is_bool_dtype(col):
            raise RunFileError(file, c, "should hold True or False in every row (a truncated or edited line?)")
    return df


def read_npz(run_dir, fname: str, key: str, ndim: int | None = None):
    """Array ``key`` of an npz file of a run (no pickles), checked for its number of dimensions and a numeric
    type; ``None`` when the file does not exist (it is optional).  Raises ``RunFileError``."""
    file = Path(run_dir) / fname
    if not file.exists():
        return None
    try:
        with np.load(file, allow_pickle=False) as z:
            if key not in z.files:
                raise RunFileError(file, key, f"array missing (has {', '.join(z.files) or 'none'})")
            arr = z[key]
    except RunFileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise RunFileError(file, None, f"is not a readable npz file, truncated? ({err})") from err
    if ndim is not None and arr.ndim != ndim:
        raise RunFileError(file, key, f"should have {ndim} dimensions, has {arr.ndim}")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise RunFileError(file, key, f"should hold numbers, holds {arr.dtype}")
    return arr


# ------------------------------------------------------------------ a kind of run, declared once
#: the ``config.json`` fields every family's run has: the settings, how it ended, its ``--json`` summary
META_FIELDS = {"config": ("object", True), "status": ("string", True), "summary": ("object", True)}


@dataclass(frozen=True)
class Table:
    """A CSV file of a run: its name, the columns it must have and what they hold when read back (``read_csv``).
    ``written``: the columns in the order they are written (rows are dicts, their other keys dropped and missing
    ones left empty, or sequences in this order); by default the rows' own keys."""

    file: str
    columns: tuple[str, ...] = ()
    integer: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()
    boolean: tuple[str, ...] = ()
    written: tuple[str, ...] | None = None

    def frame(self, rows):
        """``rows`` (dicts, or a DataFrame) as the DataFrame this table writes."""
        import pandas as pd

        if isinstance(rows, pd.DataFrame):
            return rows if self.written is None else rows.reindex(columns=list(self.written))
        rows = list(rows)
        if self.written is None:
            return pd.DataFrame(rows)
        if rows and not isinstance(rows[0], dict):  # sequences in the written order
            return pd.DataFrame(rows, columns=list(self.written))
        return pd.DataFrame([{c: r.get(c) for c in self.written} for r in rows], columns=list(self.written))

    def read(self, run_dir):
        return read_csv(run_dir, self.file, self.columns, self.integer, self.numeric, self.boolean)


@dataclass(frozen=True)
class Arrays:
    """An npz file of a run (plain arrays, read without pickles): the arrays it holds, ``(key, ndim)`` pairs
    (``ndim`` None: any).  Optional: a run without the file reads its arrays as None."""

    file: str
    arrays: tuple[tuple[str, int | None], ...]
    compressed: bool = True


@dataclass
class SavedRun:
    """A run read back by ``RunKind.read``: its directory, its checked ``config.json`` and its tables (DataFrames)
    and arrays by name."""

    path: Path
    meta: dict
    tables: dict
    arrays: dict

    @property
    def config(self) -> dict:
        return self.meta["config"]

    @property
    def status(self) -> str:
        return self.meta["status"]


@dataclass(frozen=True)
class RunKind:
    """One kind of saved run, declared once: its ``kind`` (written to and checked in ``config.json``), the fields
    of ``config.json`` it relies on, its tables and array files, and where its runs live.  Saving, listing,
    resolving and checked reading are this module's, the same for every family; a family's ``store.py`` only
    declares its ``RunKind`` (and keeps the names its users call).

    >>> kind = RunKind("demo", tables=(Table("rows.csv", columns=("x",), integer=("x",)),))
    >>> import tempfile; root = tempfile.mkdtemp()
    >>> path = kind.save({"config": {"a": 1}, "status": "finished", "summary": {}}, {"rows.csv": [{"x": 1}, {"x": 2}]},
    ...                  directory=root, label="a1")
    >>> run = kind.read(path.name, root=root)
    >>> run.config, list(run.tables["rows.csv"]["x"]), kind.list(root) == [path]
    ({'a': 1}, [1, 2], True)
    """

    kind: str
    fields: dict = field(default_factory=lambda: dict(META_FIELDS))
    tables: tuple[Table, ...] = ()
    arrays: tuple[Arrays, ...] = ()
    #: ``$LAB_RESULTS_DIR``'s sub-directory (default: ``kind``; None: the directory itself, as dynamics runs do)
    env_sub: str | None = ""
    user_sub: str = ""  # the per-user data directory's sub-directory (default: ``kind``)
    label: Callable[[dict], str] | None = None  # a run's name label from its settings (default: ``kind``)

    def directory(self, directory=None) -> Path:
        """``directory``, else ``$LAB_RESULTS_DIR`` (``/kind``), else the per-user data directory's ``kind``."""
        env_sub = self.kind if self.env_sub == "" else self.env_sub
        return runs_root(directory, env_sub=env_sub, user_sub=self.user_sub or self.kind)

    def list(self, directory=None) -> list[Path]:
        """The saved runs of this kind's directory, newest first (``list_run_dirs``)."""
        return list_run_dirs(self.directory(directory))

    def save(self, meta: dict, tables: dict | None = None, arrays: dict | None = None, directory=None,
             label: str | None = None, files: dict | None = None) -> Path:
        """Write a run atomically under a unique name; returns its directory.  ``tables``: file name -> rows (a
        declared ``Table``'s order applies); ``arrays``: npz file name -> ``{key: array}`` (a file left out or
        None is not written); ``files``: any other file name -> a function writing it."""
        declared = {t.file: t for t in self.tables}
        out: dict[str, Callable[[Path], None]] = {}
        for fname, rows in (tables or {}).items():
            frame = declared.get(fname, Table(fname)).frame(rows)
            out[fname] = lambda p, frame=frame: frame.to_csv(p, index=False)
        packed = {a.file: a.compressed for a in self.arrays}
        for fname, content in (arrays or {}).items():
            if content is None:
                continue
            content = {k: np.asarray(v) for k, v in content.items()}
            save = np.savez_compressed if packed.get(fname, True) else np.savez
            out[fname] = lambda p, save=save, content=content: save(p, **content)
        out.update(files or {})
        if label is None:
            config = meta.get("config") if isinstance(meta.get("config"), dict) else {}
            label = self.label(config) if self.label else self.kind
        return write_run(self.directory(directory), label, self.kind, meta, out)

    def read(self, path, root=None) -> SavedRun:
        """A saved run, checked: its size (``limits.run_bytes``) before anything is read, ``config.json``'s
        format, kind and fields, every declared table and array.  With ``root``, ``path`` may be a run's name
        and only a run directly inside ``root`` is read (``resolve_run``).  Raises ``RunFileError`` (or
        ``RunPathError``, ``LimitError``) naming the file and field."""
        path = resolve_run(path, root) if root is not None else Path(path)
        if not path.is_dir():
            raise RunFileError(path, None, "no such saved run")
        from .limits import check_load

        check_load(path)
        meta = read_meta(path, self.kind, self.fields)
        tables = {t.file: t.read(path) for t in self.tables}
        arrays = {}
        for a in self.arrays:
            for key, ndim in a.arrays:
                arrays[key] = read_npz(path, a.file, key, ndim)
        return SavedRun(path, meta, tables, arrays)
