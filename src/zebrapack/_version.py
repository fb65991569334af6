"""The version of zebrapack (one place: the facade and the CLI read it here; pyproject.toml says the same)."""

__version__ = "0.1.0"
