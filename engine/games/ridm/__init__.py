"""Rhodes Island Defense Manoeuvre (罗德岛防御作战演习) at the table: sanity, skill timers, limits.

The game's folder: ``numbers`` (its game.yaml rules), ``events``, ``state`` (its fields and
reducers), ``sentences`` (its log lines) and ``rules`` (setup, hooks, losses, ``COMMANDS``).
"""
