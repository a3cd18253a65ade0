"""posenc Python package."""

from . import reference
