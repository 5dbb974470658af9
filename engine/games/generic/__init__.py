"""Any game: turns, rounds and phases from the definition, reminders from the phase

The game's folder: ``numbers`` (its game.yaml rules), ``events``, ``state`` (its fields and
reducers), ``sentences`` (its log lines) and ``rules`` (setup, hooks, losses, ``COMMANDS``).
"""
