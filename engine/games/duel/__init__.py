"""The two-player 主战者 duel at the table: life, first-turn rules, per-turn skill and descent limits.

The game's folder: ``numbers`` (its game.yaml rules), ``events``, ``state`` (its fields and
reducers), ``sentences`` (its log lines) and ``rules`` (setup, hooks, losses, ``COMMANDS``).
"""
