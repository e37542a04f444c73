"""Per-task defaults of method 1 (no torch here: the command line and the panes read them at start-up)."""

#: per-task defaults for settings left as None
DEFAULTS = {"gaussian": dict(steps=400, lr=2e-2, optimizer="rmsprop", restarts=3),
            "conv": dict(steps=600, lr=0.1, optimizer="adam", restarts=3),
            "group": dict(steps=800, lr=0.1, optimizer="adam", restarts=8),
            "sum": dict(steps=400, lr=0.1, optimizer="adam", restarts=3)}
