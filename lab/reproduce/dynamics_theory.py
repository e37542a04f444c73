"""Claims of Nordenfors, Ohlsson & Flinth that test the theory directly (Prop. 1, Cor. 1, §5.1 (i)) and the
paper's hypothesis that a penalty on the part of A outside E mitigates the drift (§4.2, §6)."""
from __future__ import annotations
