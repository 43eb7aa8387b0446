"""driftguard: keep architecture documents true to the code they describe."""

__version__ = "0.1.0"
