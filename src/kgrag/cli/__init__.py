"""The `kgrag` command line (typer)."""
