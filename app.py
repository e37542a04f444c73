"""Symmetry Lab dashboard: ``panel serve app.py``."""
from lab.dashboard import build_app

build_app().servable()
