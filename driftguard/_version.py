"""The package version, in a leaf module so that reporters need not import the package root."""

__version__ = "0.1.0"
