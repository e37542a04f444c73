"""Saving an equivariant basis to ``.npz`` (numpy's open format, loadable without the lab or pickle).

Keys: ``group``, ``rep``, ``rep_in``, ``rep_out`` (text), ``rank``, ``dim``, ``shape`` (weight-matrix shape),
``solver``, ``seconds``, and the basis either as ``Q`` (dense, dim x rank) or, for sparse orbit bases, as
``Q_data``, ``Q_indices``, ``Q_indptr`` (CSC) plus ``labels`` and ``signs`` (basis element and sign of
every entry of vec(W), -1 / 0 where W is forced to zero).  ``load_basis`` returns a dict with ``Q``
rebuilt (a scipy CSC matrix or an ndarray).
"""
from __future__ import annotations

import io

import numpy as np
import scipy.sparse as sp

from .reps.layout import matrix_layout


def basis_arrays(sol, rep_in: str = "", rep_out: str = "") -> dict[str, np.ndarray]:
    out_rep, in_rep = matrix_layout(sol.rep)
    rows = out_rep.size
    # a side may be zero-dimensional (V >> 0*V: a 0 x 3 matrix): the columns come from the input rep, not dim / rows
    cols = in_rep.size if in_rep is not None else (sol.dim // rows if rows else 1)
    arrays = {
        "group": np.array(str(sol.rep.group)), "rep": np.array(str(sol.rep)),
        "rep_in": np.array(rep_in), "rep_out": np.array(rep_out),
        "rank": np.array(sol.rank), "dim": np.array(sol.dim),
        "shape": np.array([rows, cols]),
        "solver": np.array(sol.solver), "seconds": np.array(sol.seconds),
    }
    if sp.issparse(sol.Q):
        Q = sp.csc_matrix(sol.Q)
        arrays.update(Q_data=Q.data, Q_indices=Q.indices, Q_indptr=Q.indptr)
    else:
        arrays["Q"] = np.asarray(sol.Q)
    if sol.labels is not None:
        arrays.update(labels=sol.labels, signs=sol.signs)
    return arrays


def save_basis(sol, file, rep_in: str = "", rep_out: str = "") -> None:
    """Write the basis of ``sol`` to ``file`` (a path or a binary file object) as compressed npz."""
    np.savez_compressed(file, **basis_arrays(sol, rep_in, rep_out))


def basis_npz_bytes(sol, rep_in: str = "", rep_out: str = "") -> bytes:
    buf = io.BytesIO()
    save_basis(sol, buf, rep_in, rep_out)
    return buf.getvalue()


def load_basis(file) -> dict:
    """Read a file written by ``save_basis``; ``Q`` comes back as a CSC matrix or an ndarray.

    A file that is not one (truncated, another npz, an array missing or of the wrong kind) raises
    ``RunFileError`` naming the file and the array, never a ``KeyError`` or ``BadZipFile``.
    """
    import zipfile

    from .errors import RunFileError

    name = getattr(file, "name", file if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__") else "<file>")
    try:
        with np.load(file, allow_pickle=False) as z:
            d = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise RunFileError(name, None, f"is not a readable basis file, truncated? ({err})") from err
    for key in ("group", "rep", "rep_in", "rep_out", "solver", "rank", "dim"):
        if key not in d:
            raise RunFileError(name, key, "array missing: not a basis file written by the lab")
        if d[key].ndim != 0:
            raise RunFileError(name, key, f"should be a single value, has shape {d[key].shape}")
    for key in ("group", "rep", "rep_in", "rep_out", "solver"):
        d[key] = str(d[key])
    for key in ("rank", "dim"):
        if not np.issubdtype(d[key].dtype, np.integer):
            raise RunFileError(name, key, f"should be an integer, is {d[key].dtype}")
        d[key] = int(d[key])
    try:
        if "Q_data" in d:
            d["Q"] = sp.csc_matrix((d.pop("Q_data"), d.pop("Q_indices"), d.pop("Q_indptr")),
                                   shape=(d["dim"], d["rank"]))
        elif "Q" not in d:
            raise KeyError("Q")
    except KeyError as err:
        raise RunFileError(name, str(err).strip("'"), "array missing: not a basis file written by the lab") from None
    except (ValueError, TypeError) as err:
        raise RunFileError(name, "Q", f"is not a valid sparse basis ({err})") from err
    if getattr(d["Q"], "shape", None) != (d["dim"], d["rank"]):
        raise RunFileError(name, "Q", f"has shape {getattr(d['Q'], 'shape', None)}, not dim x rank = "
                                      f"{d['dim']} x {d['rank']}")
    return d
