"""`python -m kgrag.cli` runs the command line."""

from kgrag.cli.app import main

main()
