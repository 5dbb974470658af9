"""The Backrooms TCG (后室TCG) at the table: setup, phase hooks, limits and losses.

The game's folder: ``numbers`` (its game.yaml rules), ``events``, ``state`` (its fields and
reducers), ``sentences`` (its log lines) and ``rules`` (setup, hooks, losses, ``COMMANDS``).
"""
