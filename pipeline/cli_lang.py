"""The command line's help in the user's language (``engine.i18n``).

Typer reads each command's help from its docstring and each option's from ``help=`` when the
module is imported — before ``--lang`` is parsed. So help texts are written in English in the
code (they are the catalogue's msgids) and ``translate`` rewrites them in place on the Click
command tree once the language is known: the root's ``--lang`` option does it as the command
line is parsed, before any subcommand's help is shown. The English originals are kept on each
object, so switching back (or twice) is exact. ``help_texts`` lists every one of them, for the
test that checks the catalogue has each.

Typer's and Click's own words (the panel titles, ``--help``'s own line, usage errors) are set
here too.
"""

from __future__ import annotations

from typing import Iterator

import click

from engine.i18n import _ as tr  # translates texts found at run time (the msgids are the help)

_ATTRS = ("help", "short_help", "epilog", "rich_help_panel")
_PARAM_ATTRS = ("help", "rich_help_panel")
#: Typer's rich help words (typer.rich_utils constants) → their English as written there.
_TYPER_WORDS = {
    "ARGUMENTS_PANEL_TITLE": "Arguments",
    "OPTIONS_PANEL_TITLE": "Options",
    "COMMANDS_PANEL_TITLE": "Commands",
    "ERRORS_PANEL_TITLE": "Error",
    "ABORTED_TEXT": "Aborted.",
    "DEFAULT_STRING": "[default: {}]",
    "REQUIRED_LONG_STRING": "[required]",
    "ENVVAR_STRING": "[env var: {}]",
    "RICH_HELP": "Try [blue]'{command_path} {help_option}'[/] for help.",
}
HELP_OPTION_HELP = "Show this message and exit."


def commands(root: click.Command, load: bool = False) -> Iterator[click.Command]:
    """Every command of the tree under ``root``, root first. A group whose commands are made
    on first use (``lazy_loaded`` False: ``cli.TrackGroup``) is entered only with ``load``; it
    translates its commands itself when it makes them."""
    yield root
    if isinstance(root, click.Group):
        if not load and getattr(root, "lazy_loaded", True) is False:
            return
        for name in sorted(root.commands):
            yield from commands(root.commands[name], load)


def _texts(obj: object, attrs: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for attr in attrs:
        source = obj.__dict__.get(f"_en_{attr}", getattr(obj, attr, None))
        if isinstance(source, str) and source.strip():
            yield attr, source


def help_texts(root: click.Command) -> set[str]:
    """The English help of every command, option and argument under ``root`` (the msgids)."""
    found = {HELP_OPTION_HELP, *_TYPER_WORDS.values()}
    for cmd in commands(root, load=True):
        found.update(text for _attr, text in _texts(cmd, _ATTRS))
        for param in cmd.params:
            found.update(text for _attr, text in _texts(param, _PARAM_ATTRS))
    return found


def _translate(obj: object, attrs: tuple[str, ...]) -> None:
    for attr, source in list(_texts(obj, attrs)):
        obj.__dict__[f"_en_{attr}"] = source
        setattr(obj, attr, tr(source))


_translated = False


def translate(root: click.Command, force: bool = False) -> None:
    """Rewrite the help of every command under ``root`` in the language in force now (nothing
    to do for English until another language was used: the texts are English as written)."""
    global _translated
    from engine.i18n import language

    if language() == "en" and not _translated and not force:
        return
    _translated = True
    import typer.rich_utils as rich_utils

    for name, english in _TYPER_WORDS.items():
        if hasattr(rich_utils, name):
            setattr(rich_utils, name, tr(english))
    for cmd in commands(root):
        _translate(cmd, _ATTRS)
        for param in cmd.params:
            _translate(param, _PARAM_ATTRS)
        cmd.get_help_option = _help_option_in_language(cmd.get_help_option)


def _help_option_in_language(get):
    """``--help``'s own line, as the command makes it, in the language in force."""
    if getattr(get, "_in_language", False):
        return get

    def wrapped(ctx):
        option = get(ctx)
        if option is not None:
            option.help = tr(HELP_OPTION_HELP)
        return option

    wrapped._in_language = True
    return wrapped
