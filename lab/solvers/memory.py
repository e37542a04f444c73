"""Memory estimates made *before* a solve allocates (the limit they are checked against: ``lab.limits``)."""
from __future__ import annotations


# The limit and its parsing live with the other limits (one module): re-exported here for the solvers.
from ..limits import available_memory, memory_limit, parse_bytes  # noqa: E402,F401
from ..limits import check_memory as check  # noqa: E402,F401

# Upper bounds of the bytes each solver path allocates at its peak (measured as RSS growth in a fresh process;
# see lab.solvers.cost for the calibration).  glibc hands freed blocks below 32 MB back to its heap rather than
# to the system, so temporaries of a loop can add up: the constants include that.
SLACK = 8 * 2**20  # small arrays, Python objects, BLAS buffers


def orbit_bytes(n_entries: int, n_generators: int, signed: bool) -> int:
    """The orbit solver: image arrays, the CSR graph scipy converts (float64 data, int32 indices, its
    transpose for weak components), the labels and relabelling, and the sparse basis assembled from them."""
    nodes = n_entries * (2 if signed else 1)
    return nodes * (max(n_generators, 1) * 40 + 64) + n_entries * 48 + SLACK


def dense_bytes(m: int, n_constraints: int, itemsize: int, rank: int | None = None) -> int:
    """The dense solver: a constraint with its Kronecker temporaries, the running R, the stacked [R; C] and its
    Fortran copy, then the SVD's copies and workspace; plus the basis and its assembled copy."""
    r = m if rank is None else rank
    per = 14 if n_constraints else 1
    return per * m * m * itemsize + 3 * m * r * itemsize + SLACK


def subgroup_bytes(m: int, n_generators: int, r_h: int, rank: int, itemsize: int, chunk: int = 64) -> int:
    """The subgroup solver: the orbit basis of H (signed), a chunk of rows with the structured products'
    temporaries, the r_h x r_h Gram matrix with its eigenvectors and workspace, and the basis (m x rank) with
    its assembled copy."""
    rows = subgroup_chunk(m, itemsize, chunk)
    return (orbit_bytes(m, n_generators, True) + 20 * rows * m * itemsize + 5 * r_h * r_h * itemsize
            + 2 * m * rank * itemsize + 24 * m + SLACK)


def subgroup_chunk(m: int, itemsize: int, chunk: int = 64) -> int:
    """Rows of the subgroup solver's Gram pass at a time: ``chunk``, fewer when a row is large (at most 32 MB
    a block, the size up to which glibc keeps freed blocks on its heap)."""
    return max(1, min(chunk, (32 * 2**20) // max(m * itemsize, 1)))


def krylov_bytes(m: int, r_max: int, itemsize: int, rank: int | None = None) -> int:
    """The Krylov solver with r_max rows: X, the previous X, C^H C X with its temporaries, the residual's C_i X,
    the SVD (U, V^H, workspace), the basis and its assembled copy."""
    r = r_max if rank is None else min(rank, r_max)
    return 16 * m * r_max * itemsize + 3 * m * r * itemsize + SLACK
