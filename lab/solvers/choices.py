"""The solvers' and bases' names: what the command line and the dashboard offer (importing this loads nothing else)."""

#: ``solve(rep, solver=...)``: ``auto`` picks among the others by the cost model (``lab.solvers.cost``)
SOLVERS = ("auto", "orbit", "dense", "krylov", "subgroup")
#: which basis of the solved space ``Solution.basis`` gives (and the plots draw): ``canonical`` -- the one a
#: person would write down (``lab.solvers.canonical``), ``solver`` -- the solver's own orthonormal ``Q``
BASES = ("canonical", "solver")
