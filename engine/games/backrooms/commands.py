"""The table of backrooms' commands, shared by ``rules`` (turn, cost, levels, chain) and
``board`` (pieces), so each declares its commands once into the same table."""

from __future__ import annotations

from ...tracker.kit import Commands

RULESET = "backrooms"
COMMANDS = Commands(RULESET)
