"""Basis-coloring plot data, renderers and basis export, checked against independent facts."""
from __future__ import annotations

import io
from itertools import permutations

import numpy as np
import pytest

from lab import parse_group, parse_rep
from lab.errors import ParseError, RepError
from lab.export import basis_npz_bytes, load_basis
from lab.basis.family import coloring, layer


def basis_coloring(group, rep_in, rep_out=None, seed=0, **kw):
    """Solve the layer (the experiments layer), then draw it (plots never solve): (plot data, Solution)."""
    result = layer(group, rep_in, rep_out)
    return coloring(result, seed=seed, **kw), result.solution
from lab.plots.coloring import GALLERY, MANY_ELEMENTS, disjoint_pattern
from lab.plots.palette import PALETTE, categorical_colours
from lab.basis.presets import PRESETS, fill_size


def _matrix_from_labels(data, coeffs):
    """W = sum_k c_k * (sign pattern of element k): any element of the space the categorical plot shows."""
    W = np.zeros(data.labels.shape)
    mask = data.labels >= 0
    W[mask] = coeffs[data.labels[mask]] * data.signs[mask]
    return W


@pytest.mark.parametrize("n", [3, 5, 8])
def test_convolution_labels_are_circulant(n):
    data, _ = basis_coloring(f"Z({n})", "V", "V")
    L = data.labels
    i, j = np.indices(L.shape)
    # the label is a function of (j - i) mod n alone, and different offsets get different labels
    by_offset = {}
    for off, lab in zip(((j - i) % n).ravel(), L.ravel()):
        by_offset.setdefault(off, set()).add(lab)
    assert all(len(s) == 1 for s in by_offset.values())
    assert len({next(iter(s)) for s in by_offset.values()}) == n
    assert data.kind == "categorical" and data.rank == n


@pytest.mark.parametrize("n", [2, 4, 7])
def test_deepsets_labels_diagonal_and_off_diagonal(n):
    data, _ = basis_coloring(f"S({n})", "V", "V")
    L = data.labels
    assert len(np.unique(L[np.eye(n, dtype=bool)])) == 1
    assert len(np.unique(L[~np.eye(n, dtype=bool)])) == 1
    assert L[0, 0] != L[0, 1]
    assert data.rank == 2


@pytest.mark.parametrize("group, rep_in, rep_out", [
    ("S(5)", "T(2)", "T(2)"), ("Z(4)*Z(4)", "V", "V"), ("GCNN(3)", "V", "V"), ("RubiksCube()", "V", "V"),
    ("S(3)", "V+T(2)", "2*V"), ("DihedralPerm(5)", "V", "T(2)"), ("Alt(4)", "T(2)", "V"), ("Cube()", "V", "V")])
def test_distinct_labels_equal_rank_and_plot_is_equivariant(group, rep_in, rep_out, rng):
    data, sol = basis_coloring(group, rep_in, rep_out)
    assert data.kind == "categorical"
    used = np.unique(data.labels[data.labels >= 0])
    assert len(used) == sol.rank == data.rank
    # rows are the output rep, columns the input rep: rho_out(g) W = W rho_in(g) for random g
    G = parse_group(group)
    a, b = parse_rep(rep_in, G), parse_rep(rep_out, G)
    assert data.shape == (b.size, a.size)
    W = _matrix_from_labels(data, rng.standard_normal(data.rank))
    for g in G.sample(3, rng=rng):
        np.testing.assert_allclose(b.rho(g) @ W, W @ a.rho(g), atol=1e-9)


def test_graph_layer_has_bell_number_of_labels():
    # S(n) acting on T(2) -> T(2): Bell(4) = 15 basis elements once n >= 4 (Maron et al. 2019)
    data, _ = basis_coloring(fill_size("S(n)", 6), "T(2)", "T(2)")
    assert len(np.unique(data.labels)) == 15


def test_levi_civita_signs_are_permutation_parity():
    data, _ = basis_coloring("SO(3)", "T(2)", "V")
    assert data.kind == "categorical" and data.rank == 1
    eps = np.zeros((3, 3, 3))
    for p in permutations(range(3)):
        eps[p] = np.linalg.det(np.eye(3)[list(p)])
    S = data.signs.reshape(3, 3, 3).astype(float)
    assert np.array_equal(S, eps)  # the drawn convention: eps_012 = +1
    assert np.array_equal(data.labels.reshape(3, 3, 3) >= 0, eps != 0)


def test_lorentz_metric_signs():
    data, _ = basis_coloring("O13()", "V.T", "V")
    eta = np.diag([-1, 1, 1, 1])
    assert data.rank == 1
    assert np.array_equal(data.signs, eta)  # the drawn convention: mostly plus


def test_continuous_view_random_element_and_gallery_are_equivariant(rng):
    # SO(3): (V + T(2)) -> T(2) = T(3) + T(4), rank 1 + 3, and the T(4) elements overlap
    data, sol = basis_coloring("SO(3)", "V+T(2)", "T(2)", seed=3)
    assert data.kind == "continuous" and sol.rank == 4
    assert "random element" in data.note
    G = parse_group("SO(3)")
    a, b = parse_rep("V+T(2)", G), parse_rep("T(2)", G)
    assert np.abs(data.values).max() == pytest.approx(1.0)
    assert len(data.gallery) == 4
    for W in [data.values, *data.gallery]:
        assert np.abs(W).max() > 0
        for g in G.sample(2, rng=rng):
            np.testing.assert_allclose(b.rho(g) @ W, W @ a.rho(g), atol=1e-9)
    # the gallery elements are linearly independent
    assert np.linalg.matrix_rank(np.stack([w.ravel() for w in data.gallery])) == 4


def test_zero_space_is_reported():
    data, _ = basis_coloring("O(3)", "T(2)", "V")  # no Levi-Civita for O(3)
    assert data.rank == 0 and "zero map" in data.note


def test_block_spans_of_direct_sums():
    data, _ = basis_coloring("S(3)", "V+T(2)", "2*V")
    assert [(s.label, s.start, s.stop) for s in data.row_spans] == [("V", 0, 3), ("V", 3, 6)]
    assert [(s.label, s.start, s.stop) for s in data.col_spans] == [("V", 0, 3), ("T(2)", 3, 12)]


def test_large_matrix_is_strided_not_sent_whole():
    data, sol = basis_coloring("S(40)", "T(2)", "T(2)", max_cells=250_000)
    assert data.shape == (1600, 1600) and data.stride == 4
    assert data.labels.shape == (400, 400) and data.labels.size <= 250_000
    assert np.array_equal(data.rows, np.arange(0, 1600, 4))
    assert data.rank == 15 and "too large" in data.note
    full = sol.labels.reshape(1600, 1600)
    assert np.array_equal(data.labels, full[::4, ::4])


def test_disjoint_pattern_detection():
    B = np.array([[1, 0], [-1, 0], [0, 2], [0, 0]], dtype=float)
    labels, signs = disjoint_pattern(B)
    assert labels.tolist() == [0, 0, 1, -1] and signs.tolist() == [1, -1, 1, 0]
    _, signs = disjoint_pattern(np.array([[-1.0], [-1.0], [1.0]]))
    assert signs.tolist() == [1, 1, -1]  # overall sign chosen so that most entries are +1
    assert disjoint_pattern(np.array([[1, 1], [0, 1.0]])) is None  # overlapping supports
    assert disjoint_pattern(np.array([[1.0], [2.0]])) is None  # unequal magnitudes


def test_categorical_colours_are_distinct_and_signed_tints_differ():
    labels = np.arange(-1, 20)
    idx, colours = categorical_colours(labels, np.ones_like(labels), 20)
    assert np.isnan(idx[0]) and len(set(colours)) == 20
    assert len({colours[int(i)] for i in idx[1:]}) == 20
    signs = np.array([1, -1])
    idx, colours = categorical_colours(np.array([0, 0]), signs, 1)
    assert colours[int(idx[0])] != colours[int(idx[1])]
    assert len(set(PALETTE)) == len(PALETTE) >= 200


def test_bad_input_is_a_typed_error():
    with pytest.raises(ParseError):
        basis_coloring("S(4)", "T(2", "V")
    with pytest.raises(RepError):
        basis_coloring("S(4)", "V >> V", "V")


def test_holoviews_plot_carries_labels_hover_and_block_lines():
    import holoviews as hv

    from lab.plots.coloring_hv import coloring_plot, gallery_plot

    data, _ = basis_coloring("S(3)", "V+T(2)", "2*V")
    overlay = coloring_plot(data)
    images = [el for el in overlay if isinstance(el, hv.Image)]
    segments = [el for el in overlay if isinstance(el, hv.Segments)]
    # a faint cell grid (blank zeros keep their cells), guides inside T(2), then block boundaries
    assert len(images) == 1 and len(segments) == 3
    grid, guides, blocks = segments
    assert len(grid.array()) == (6 - 1) + (12 - 1)
    assert sorted(map(tuple, guides.array().tolist())) == [(5.5, -0.5, 5.5, 5.5), (8.5, -0.5, 8.5, 5.5)]
    # one horizontal line between the two V's of the output, one vertical between V and T(2) of the input
    assert sorted(map(tuple, blocks.array().tolist())) == [(-0.5, 2.5, 11.5, 2.5), (2.5, -0.5, 2.5, 5.5)]
    img = images[0]
    assert [d.name for d in img.vdims] == ["colour", "basis element", "sign", "row", "column"]
    # hover shows integer entry coordinates
    rows = img.dimension_values("row", flat=False)
    assert rows.dtype.kind == "i" and rows[:, 0].tolist() == list(range(6))
    np.testing.assert_array_equal(img.dimension_values("basis element", flat=False), data.labels)
    assert gallery_plot(data) is None
    cont, _ = basis_coloring("SO(3)", "T(2)", "T(2)")
    mosaic = gallery_plot(cont).get(0)  # three 9 x 9 elements side by side with one blank column between
    assert mosaic.dimension_values("basis element", flat=False).shape == (9, 29)
    values = mosaic.dimension_values("value", flat=False)
    elements = mosaic.dimension_values("basis element", flat=False)
    for k in range(3):
        np.testing.assert_array_equal(values[elements == k], cont.gallery[k].ravel())
    hv.render(overlay)  # the Bokeh model builds


def test_png_export_draws_the_palette():
    from matplotlib.image import imread

    from lab.plots.coloring_mpl import coloring_png

    data, _ = basis_coloring("Z(5)", "V", "V")
    png = coloring_png(data, dpi=60)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = (imread(io.BytesIO(png))[..., :3] * 255).round().astype(int).reshape(-1, 3)
    present = {"#%02x%02x%02x" % tuple(p) for p in np.unique(pixels, axis=0)}
    assert set(PALETTE[:5]) <= present  # every basis element's colour is on the figure


@pytest.mark.parametrize("group, rep_in, rep_out", [("S(4)", "V", "T(2)"), ("SO(3)", "T(2)", "T(2)")])
def test_npz_export_round_trip(group, rep_in, rep_out):
    data, sol = basis_coloring(group, rep_in, rep_out)
    d = load_basis(io.BytesIO(basis_npz_bytes(sol, rep_in, rep_out)))
    assert (d["group"], d["rep_in"], d["rep_out"], d["rank"]) == (group, rep_in, rep_out, sol.rank)
    Q = d["Q"].toarray() if hasattr(d["Q"], "toarray") else d["Q"]
    expected = sol.Q.toarray() if hasattr(sol.Q, "toarray") else sol.Q
    np.testing.assert_array_equal(Q, expected)
    assert list(d["shape"]) == list(data.shape)
    if sol.labels is not None:
        np.testing.assert_array_equal(d["labels"], sol.labels)


def test_presets_give_the_textbook_ranks():
    expected = {"Convolution": 8, "DeepSets": 2, "Graph layer": 15, "2-D convolution": 16,
                "Levi-Civita": 1, "Lorentz metric": 1, "Rubik's cube": 9}
    for name, rank in expected.items():
        p = PRESETS[name]
        data, _ = basis_coloring(p.group_text(), p.rep_in, p.rep_out)
        assert data.rank == rank, name
    # GCNN(n) V -> V: one parameter per (orientation pair up to rotation, offset) = 4 * n^2
    p = PRESETS["GCNN layer"]
    data, _ = basis_coloring(p.group_text(3), p.rep_in, p.rep_out)
    assert data.rank == 4 * 9


def test_channel_guides_split_v_into_equal_sub_blocks():
    data, _ = basis_coloring("GCNN(3)", "V", "V")  # 4 orientation channels of a 3 x 3 grid
    assert data.row_guides == data.col_guides == [8.5, 17.5, 26.5]
    data, _ = basis_coloring("Z(4)*Z(4)", "V", "V")  # image rows of a 4 x 4 grid
    assert data.row_guides == [3.5, 7.5, 11.5]
    data, _ = basis_coloring("S(4)", "T(2)", "V")  # T(2) columns: 4 slices of the first index
    assert data.row_guides == [] and data.col_guides == [3.5, 7.5, 11.5]
    data, _ = basis_coloring("S(3)", "V+T(2)", "2*V")
    assert data.row_guides == [] and data.col_guides == [5.5, 8.5]  # inside the T(2) block at 3..11


def test_single_column_and_single_row_matrices_draw():
    import holoviews as hv

    from lab.plots.coloring_hv import coloring_plot

    for rep_in, rep_out in (("Scalar", "V"), ("V", "Scalar")):
        data, _ = basis_coloring("S(5)", rep_in, rep_out)
        hv.render(coloring_plot(data))  # HoloViews cannot infer a cell size from one row or column
        assert data.rank == 1


def _title(plot) -> str:
    return plot.opts.get().kwargs["title"]


def test_gallery_is_paged_and_titled_with_the_true_count():
    """SO(3) on T(3) >> T(3) has r = 15 (the perfect matchings of 6 indices): two pages of GALLERY = 12, whose
    titles give the true count, and which together draw every element once; r = 3 fits one page; a gallery
    kept to 2 elements says it keeps the first 2 of 3."""
    from lab import SO, T
    from lab.plots.coloring import coloring_from_solution
    from lab.plots.coloring_hv import gallery_plot

    sol = (T(3) >> T(3))(SO(3)).solve()
    data = coloring_from_solution(sol, "T(3)", "T(3)")
    assert data.rank == 15 == len(data.gallery) and data.pages == 2 and GALLERY == 12
    first, second = gallery_plot(data, page=0), gallery_plot(data, page=1)
    assert _title(first).startswith("basis elements 0–11 of 15 (page 1 of 2")
    assert _title(second).startswith("basis elements 12–14 of 15 (page 2 of 2")
    seen = []
    for plot in (first, second):
        numbers = plot.get(0).dimension_values("basis element")
        seen += sorted(set(numbers[~np.isnan(numbers)].astype(int).tolist()))
    assert seen == list(range(15))
    assert _title(gallery_plot(data, page=7)) == _title(second)  # past the end: the last page

    sol = (T(2) >> T(2))(SO(3)).solve()
    data = coloring_from_solution(sol, "T(2)", "T(2)", gallery=2)
    assert data.rank == 3 and _title(gallery_plot(data)).startswith("basis elements 0–1 of 3 (page 1 of 1; "
                                                                    "the first 2 are kept")
    data = coloring_from_solution(sol, "T(2)", "T(2)")
    assert _title(gallery_plot(data)).startswith("3 basis elements (0–2;")


def test_palette_has_no_grey_and_no_near_white_and_zero_is_white():
    """Zero entries are blank white, so no element colour (nor the light shade of a -1 entry) may look like
    nothing: CIELAB chroma >= 20 (not grey), lightness <= 85 (not near-white).  The CIELAB conversion is
    checked against published values first."""
    from lab.plots.palette import INDEX_MAP, NEGATIVE_TINT, ZERO_COLOR, _tint, chroma, cielab

    np.testing.assert_allclose(cielab(["#ff0000"])[0], [53.24, 80.09, 67.20], atol=0.02)  # sRGB red, D65
    np.testing.assert_allclose(cielab(["#ffffff", "#000000"]), [[100, 0, 0], [0, 0, 0]], atol=0.01)
    assert chroma(["#808080", "#7f7f7f"]).max() < 0.01  # greys have no chroma
    assert ZERO_COLOR.lower() == "#ffffff"
    lab = cielab(PALETTE)
    assert chroma(PALETTE).min() >= 20 and lab[:, 0].max() <= 85
    index_lab = cielab(INDEX_MAP)
    assert chroma(INDEX_MAP).min() >= 20 and 20 <= index_lab[:, 0].min() and index_lab[:, 0].max() <= 85
    tints = cielab([_tint(c) for c in PALETTE])
    white_distance = np.linalg.norm(tints - [100, 0, 0], axis=1)
    assert NEGATIVE_TINT <= 0.5 and white_distance.min() > 10  # a -1 shade is still visibly a colour


def test_zero_entries_render_white_and_the_matrix_is_outlined():
    import holoviews as hv

    from lab.plots.coloring_hv import coloring_plot
    from lab.plots.coloring_mpl import coloring_figure

    data, _ = basis_coloring("SO(3)", "V", "T(2)")  # Levi-Civita: zero wherever two indices agree
    assert data.kind == "categorical" and np.any(data.labels < 0)
    overlay = coloring_plot(data)
    bounds = [el for el in overlay if isinstance(el, hv.Bounds)]
    outline = bounds[0].array()  # the 9 x 3 matrix's outline
    assert len(bounds) == 1 and (outline.min(axis=0).tolist(), outline.max(axis=0).tolist()) == ([-0.5, -0.5],
                                                                                                [2.5, 8.5])
    fig = hv.render(overlay)
    mappers = [r.glyph.color_mapper for r in fig.renderers if hasattr(r.glyph, "color_mapper")]
    assert mappers and all(m.nan_color.lower() in ("#ffffff", "white") for m in mappers)
    idx, _ = categorical_colours(data.labels, data.signs, data.rank)
    assert np.array_equal(np.isnan(idx), data.labels < 0)  # zero entries, and only they, take the NaN colour
    image = coloring_figure(data).axes[0].images[0]
    assert tuple(image.cmap.get_bad()) == (1.0, 1.0, 1.0, 1.0)


def test_many_elements_are_coloured_by_number_on_a_sequential_scale():
    """Z(8) x Z(8) on V >> V: r = 64 doubly-circulant elements, too many distinct colours: the index view; its
    hover data still holds every element once; the colour follows the element number (elements numbered by
    first entry).  Below MANY_ELEMENTS elements: one distinct colour each."""
    from lab.plots.coloring_hv import coloring_plot
    from lab.plots.palette import index_colours

    data, _ = basis_coloring("Z(8)*Z(8)", "V", "V")
    assert data.rank == 64 > MANY_ELEMENTS and data.scheme == "index"
    assert "sequential" in data.note and f"r = {data.rank}" in data.note
    img = coloring_plot(data).get(0)
    labels = img.dimension_values("basis element")
    assert sorted(set(labels[labels >= 0].astype(int).tolist())) == list(range(64))
    idx, colours = index_colours(data.labels, data.signs, data.rank)
    assert len(colours) == 64 and np.array_equal(idx, data.labels.astype(float))
    assert colours[0] != colours[-1]
    small, _ = basis_coloring("Z(8)", "V", "V")
    assert small.rank == 8 and small.scheme == "distinct"


@pytest.mark.parametrize("shape", [(3, 9), (9, 3), (16, 16), (1, 256), (256, 256), (40, 400)])
def test_matrix_plots_keep_the_aspect_ratio_and_a_readable_cell(shape):
    """Square cells (the frame has the matrix's aspect ratio unless a side hits the 80 px floor), never smaller
    than MIN_CELL, and no larger than needed: the longer side is MAX_SIDE unless MIN_CELL forces more."""
    from lab.plots.coloring_hv import MAX_SIDE, MIN_CELL, _frame

    rows, cols = shape
    w, h = _frame(shape)
    cell_w, cell_h = w / cols, h / rows
    assert min(cell_w, cell_h) >= MIN_CELL - 0.5
    if w > 80 and h > 80:
        assert cell_w == pytest.approx(cell_h, rel=0.02)
    assert max(w, h) <= max(MAX_SIDE, MIN_CELL * max(rows, cols)) + 1
