"""The table line: ``damage B 5 --outpost 2`` → a declared command and its typed arguments.

Read against the commands' declarations (``engine.tracker.kit``), so every command a game
declares can be typed at the table with the same names, options and defaults as on the command
line. Numbers may be negative (``life B -3``), flags may be given as ``--pierce``/``--no-pierce``
or ``pierce=false``, and a misspelt command gets "did you mean".

Example::

    >>> spec, args = parse_line("damage B 5 outpost=2", commands)      # doctest: +SKIP
    >>> spec.name, args
    ('damage', {'player': 'B', 'amount': 5, 'outpost': 2})
"""

from __future__ import annotations

from engine.i18n import _
import difflib
import re
import shlex
from typing import Any, Mapping

from ..tracker.kit import YES_NO, BadArgument, CommandSpec, Param

_NUMBER = re.compile(r"^[+\-−]\d+$")


def lookup(words: list[str], commands: Mapping[str, CommandSpec]) -> tuple[CommandSpec, int]:
    """The command the first word(s) name, and how many words that took."""
    names: dict[str, CommandSpec] = {}
    for spec in commands.values():
        for key in (spec.name, "-".join(spec.words), *spec.aliases):
            names.setdefault(key.replace("-", "_"), spec)
    for n in (2, 1):
        if len(words) >= n:
            key = "_".join(words[:n]).replace("-", "_")
            if key in names:
                return names[key], n
    typed = words[0] if words else ""
    close = difflib.get_close_matches(typed.replace("-", "_"), list(names), n=3, cutoff=0.6)
    hint = _("; did you mean {names}?").format(names=_(" or ").join(c.replace("_", "-") for c in close)) if close else ""
    raise BadArgument(_("unknown command {typed!r}{hint} (h lists the commands)").format(typed=typed, hint=hint))


def parse_line(line: str, commands: Mapping[str, CommandSpec]) -> tuple[CommandSpec, dict[str, Any]]:
    """A typed table line → (command, typed arguments). Raises ``BadArgument``."""
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise BadArgument(_("cannot read the line: {exc} (an unclosed quote?)").format(exc=exc)) from None
    if not tokens:
        raise BadArgument(_("empty line"))
    spec, used = lookup(tokens, commands)
    return spec, parse_args(spec, tokens[used:])


def _option(spec: CommandSpec, token: str) -> tuple[Param, bool] | None:
    """``--outpost`` / ``-o`` / ``--no-pierce`` → (param, negated)."""
    for p in spec.params:
        if token in (p.flag_name, p.short):
            return p, False
        if p.kind == "tristate" and token == "--no-" + p.name.replace("_", "-"):
            return p, True
    return None


def parse_args(spec: CommandSpec, tokens: list[str]) -> dict[str, Any]:
    """The words after the command name → typed arguments, checked against the declaration."""
    raw: dict[str, Any] = {}
    order = [p for p in spec.params if not p.option] + [p for p in spec.params if p.option]
    names = {p.name for p in spec.params}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        found = _option(spec, tok) if tok.startswith("-") and not _NUMBER.match(tok) else None
        if found:
            param, negated = found
            if param.kind in ("flag", "tristate"):
                # "--pierce false" says no, as "pierce=false" and "--no-pierce" do.
                nxt = tokens[i + 1].strip().lower() if i + 1 < len(tokens) else ""
                if not negated and nxt in YES_NO:
                    i += 1
                    raw[param.name] = param.parse(nxt)
                else:
                    raw[param.name] = not negated
            else:
                i += 1
                if i >= len(tokens):
                    raise BadArgument(_("{cli_name}: {tok} needs a value").format(cli_name=spec.cli_name, tok=tok))
                raw[param.name] = tokens[i]
        elif tok.startswith("--"):
            known = ", ".join(p.flag_name for p in spec.params if p.option) or "none"
            raise BadArgument(_("{cli_name}: unknown option {tok}; options: {known}").format(cli_name=spec.cli_name, tok=tok, known=known))
        elif "=" in tok and tok.split("=", 1)[0].replace("-", "_") in names:
            key, value = tok.split("=", 1)
            raw[key.replace("-", "_")] = value
        else:
            slot = next((p for p in order if p.name not in raw and p.kind not in ("flag", "tristate")), None)
            if slot is None:
                takes = " ".join(p.name.upper() for p in order if not p.option) or _("no arguments")
                raise BadArgument(_("{cli_name}: too many arguments ({tok!r}); it takes {takes}").format(cli_name=spec.cli_name, tok=tok, takes=takes))
            raw[slot.name] = tok
        i += 1
    return spec.parse_args(raw)


# ---------------------------------------------------------------------------- completion


def complete(line: str, commands: Mapping[str, CommandSpec], players: tuple[str, ...] = (),
             words_for: Mapping[str, tuple[str, ...]] | None = None) -> list[str]:
    """Candidates for the last word of ``line`` (Tab at the table): command names first, then,
    by the declaration, player names, choices, yes/no, option names, card names and piece ids
    (``words_for["card"]``, ``["piece"]``) and any ``words_for[param name]``. Sorted, without duplicates.

    >>> complete("sp", commands)                                       # doctest: +SKIP
    ['spend']
    """
    try:
        tokens = shlex.split(line)
    except ValueError:
        return []  # inside an open quote: nothing sensible to offer
    if not line or line[-1].isspace():
        tokens.append("")
    prefix = tokens[-1]
    if len(tokens) == 1:
        names = {"-".join(s.words) for s in commands.values()} | {a for s in commands.values() for a in s.aliases}
        return sorted(n for n in names if n.startswith(prefix))
    if len(tokens) == 2:
        second = {s.words[1] for s in commands.values() if len(s.words) == 2 and s.words[0] == tokens[0]}
        if second:  # "chain p" → push
            return sorted(w for w in second if w.startswith(prefix))
    try:
        spec, used = lookup(tokens[:-1], commands)
    except BadArgument:
        return []
    before = tokens[used:-1]
    if prefix.startswith("-"):
        given = set(before)
        flags = {p.flag_name for p in spec.params if p.option or p.kind in ("flag", "tristate")}
        return sorted(f for f in flags if f.startswith(prefix) and f not in given)
    param = _slot_for(spec, before)
    if param is None:
        return []
    if param.kind == "player":
        values = players
    elif param.kind == "choice":
        values = param.choices
    elif param.kind in ("flag", "tristate"):
        values = ("yes", "no")
    else:
        # card and piece parameters complete from what the table has (``words_for["card"]``:
        # card names of the deck lists, ``["piece"]``: piece ids), other text by its name.
        words = words_for or {}
        values = words.get(param.kind, ()) if param.kind in ("card", "piece") else words.get(param.name, ())
    return sorted({v for v in values if v.startswith(prefix)})


def _slot_for(spec: CommandSpec, before: list[str]) -> Param | None:
    """The parameter the next word fills: the value of a just-typed option, else the next free
    positional (options given by name are skipped)."""
    if before:
        found = _option(spec, before[-1]) if before[-1].startswith("-") else None
        if found and found[0].kind not in ("flag", "tristate"):
            return found[0]
    taken: set[str] = set()
    i = 0
    while i < len(before):
        found = _option(spec, before[i]) if before[i].startswith("-") and not _NUMBER.match(before[i]) else None
        if found:
            taken.add(found[0].name)
            i += 1 if found[0].kind in ("flag", "tristate") else 2
            continue
        slot = next((p for p in spec.params if not p.option and p.name not in taken), None)
        if slot is not None:
            taken.add(slot.name)
        i += 1
    return next((p for p in spec.params if not p.option and p.name not in taken), None)
