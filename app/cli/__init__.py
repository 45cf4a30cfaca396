"""The commands of `python -m app`."""
