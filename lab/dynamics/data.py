"""The training-dynamics experiments' data sets, which live in the shared ``lab.data`` (several families use them);
re-exported here for code that imports them from this module."""
from ..data.digits import digits
from ..data.synthetic import sbm_graphs, shapes

__all__ = ["digits", "sbm_graphs", "shapes"]
