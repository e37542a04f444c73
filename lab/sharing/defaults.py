"""Per-task defaults of method 1 (no torch here: the command line and the panes read them at start-up).

gaussian: the reference code's Gaussian experiments (RMSprop lr 2e-2 with weight decay 1e-4, 1000 outer
iterations, 3 restarts).  conv: the reference demo (Adam lr 0.1, 1000 epochs; 3 restarts as the reference's
Gaussian and sum experiments, the demo runs one).  group and sum: the lab's (the reference trains a network for
the sum task, with its own settings; the group task is the lab's).
"""

#: per-task defaults for settings left as None
DEFAULTS = {"gaussian": dict(steps=1000, lr=2e-2, optimizer="rmsprop", restarts=3, weight_decay=1e-4),
            "conv": dict(steps=1000, lr=0.1, optimizer="adam", restarts=3, weight_decay=0.0),
            "group": dict(steps=800, lr=0.1, optimizer="adam", restarts=8, weight_decay=0.0),
            "sum": dict(steps=400, lr=0.1, optimizer="adam", restarts=3, weight_decay=0.0)}

#: the low-rank penalty's forms: the poster's nuclear norm, the reference code's sum of column norms
RANK_PENALTIES = ("nuclear", "columns")
#: the history column each form's value is recorded under (runs saved before ``column_norms`` existed wrote the
#: columns form under "nuclear" too: ``lab.sharing.store.load_sharing`` renames it on reading)
RANK_COLUMNS = {"nuclear": "nuclear", "columns": "column_norms"}
