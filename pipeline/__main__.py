"""``python -m pipeline``: the ``cardpress`` command, for a machine where the script is not on PATH."""

from .cli.app import main

main()
