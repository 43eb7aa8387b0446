"""``driftguard init``: a first config for a tree, written so it passes on the day it is
written (what it finds wrong today goes into a baseline) and proves itself with
``selftest``: the languages found, the documents, a ``links`` and a ``references`` rule
over them with a ``symbols`` fact over the sources, and the rules ``discover`` proposes
and proves."""

from driftguard.init.write import HEADER, InitResult, init_config

__all__ = ["HEADER", "InitResult", "init_config"]
