"""The command line's help in the user's language (``engine.i18n``).

Typer reads each command's help from its docstring and each option's from ``help=`` when the
module is imported — before ``--lang`` is parsed. So help texts are written in English in the
code (they are the catalogue's msgids) and ``translate`` rewrites them in place on the Click
command tree once the language is known: the root's ``--lang`` option does it as the command
line is parsed, before any subcommand's help is shown. The English originals are kept on each
object, so switching back (or twice) is exact. ``help_texts`` lists every one of them, for the
test that checks the catalogue has each.

Typer's and Click's own words (the panel titles, ``--help``'s own line, usage errors) are set
here too: ``install`` points the ``_`` and ``ngettext`` Click and Typer bound at import (from
``gettext``) at ``engine.i18n``, so "Missing argument 'GAME'." reads in the user's language.

A help text made from parts (``cardpress track``'s declared commands: the game's help with its
numbers filled in, then its examples) is not a msgid as a whole: ``compose`` registers how to make
it in the language in force, and the msgids it is made of.
"""

from __future__ import annotations

import sys
from typing import Callable, Iterable, Iterator

import click

from engine.i18n import N_
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
#: The usage errors of Typer's own Click (``typer._click``, which writes them as f-strings, with no
#: gettext): an error's English is matched against these, and said in the language in force.
CLICK_MESSAGES = (
    N_("Missing argument {name}."), N_("Missing option {name}."), N_("Missing parameter {name}."),
    N_("Missing argument {name}. {more}"), N_("Missing option {name}. {more}"),
    N_("Missing parameter: {name}"), N_("No such option: {name}"), N_("{message} (Possible options: {options})"),
    N_("Invalid value for {name}: {message}"), N_("Invalid value: {message}"),
    N_("Got unexpected extra argument(s) ({args})"), N_("Option {name} requires an argument."),
    N_("Option {name} requires {count} arguments."), N_("Option {name} does not take a value."),
    N_("{value} is not one of {choices}."), N_("No such command {name}."), N_("Missing command."),
    N_("Choose from:\n\t{choices}"), N_("{name} {file} does not exist."), N_("Argument {name} takes {count} values."),
)
_PATTERNS: list | None = None


def _patterns() -> list:
    global _PATTERNS
    if _PATTERNS is None:
        import re

        _PATTERNS = []
        for message in CLICK_MESSAGES:
            parts = re.split(r"\{(\w+)\}", message)
            regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts))
            _PATTERNS.append((re.compile(regex + r"\Z", re.S), message))
    return _PATTERNS


def click_message(text: str) -> str:
    """One of Typer's Click's messages (``CLICK_MESSAGES``) in the language in force; its
    parts (an inner message) too. Anything else: as it is."""
    from engine.i18n import language

    if language() == "en" or not text:
        return text
    for regex, message in _patterns():
        m = regex.match(text)
        if m:
            parts = {k: (click_message(v) if k in ("message", "more") else v) for k, v in m.groupdict().items()}
            return tr(message).format(**parts)
    return tr(text)


def _translated_format(original):
    def format_message(self):
        return click_message(original(self))

    format_message._in_language = True
    return format_message


def _install_typer_click() -> None:
    exceptions = sys.modules.get("typer._click.exceptions")
    if exceptions is not None:
        for name in ("ClickException", "UsageError", "BadParameter", "MissingParameter", "NoSuchOption"):
            cls = getattr(exceptions, name, None)
            own = cls.__dict__.get("format_message") if cls is not None else None
            if own is not None and not getattr(own, "_in_language", False):
                cls.format_message = _translated_format(own)
        cls = getattr(exceptions, "ClickException", None)
        if cls is not None and "format_message" not in cls.__dict__:
            cls.format_message = _translated_format(lambda self: self.message)
    formatting = sys.modules.get("typer._click.formatting")
    formatter = getattr(formatting, "HelpFormatter", None)
    if formatter is not None and not getattr(formatter.write_usage, "_in_language", False):
        write_usage = formatter.write_usage

        def usage_in_language(self, prog, args="", prefix=None):
            if prefix is None:
                word = tr("Usage:")
                prefix = word if word.endswith("：") else word + " "  # no space after a full-width colon
            return write_usage(self, prog, args, prefix)

        usage_in_language._in_language = True
        formatter.write_usage = usage_in_language


#: Modules of Click and Typer that bound ``gettext``'s ``_``/``ngettext`` at import.
_GETTEXT_MODULES = ("click.core", "click.exceptions", "click.parser", "click.types", "click.decorators",
                    "click.formatting", "click.termui", "typer.core", "typer.rich_utils", "typer.main")
#: Help texts made from parts: English as Click holds it → (make it now, the msgids it uses).
_composed: dict[str, tuple[Callable[[], str], tuple[str, ...]]] = {}


def _click_gettext(message: str) -> str:
    return tr(message)


def _click_ngettext(singular: str, plural: str, n: int) -> str:
    from engine.i18n import ngettext as plural_of  # (not a literal message: not extracted)

    return plural_of(singular, plural, n)


def install() -> None:
    """Click's and Typer's own messages through ``engine.i18n`` (English stays as they wrote it).
    Only modules already imported are touched (rich's, loaded later, are set by ``translate``)."""
    for name in _GETTEXT_MODULES:
        module = sys.modules.get(name)
        if module is None:
            continue
        if callable(getattr(module, "_", None)):
            module._ = _click_gettext
        if callable(getattr(module, "ngettext", None)):
            module.ngettext = _click_ngettext
    _install_typer_click()


def compose(english: str, make: Callable[[], str], msgids: Iterable[str]) -> str:
    """Register a help text made from parts: ``make()`` makes it in the language in force, from
    ``msgids`` (what the catalogue must hold). Returns ``english``, for Typer."""
    _composed[english.strip()] = (make, tuple(msgids))
    return english


def _in_language(source: str) -> str:
    made = _composed.get(source.strip())
    return made[0]() if made is not None else tr(source)


def commands(root: click.Command, load: bool = False) -> Iterator[click.Command]:
    """Every command of the tree under ``root``, root first. A group whose commands are made
    on first use (``lazy_loaded`` False: ``cli.TrackGroup``) is entered only with ``load``; it
    translates its commands itself when it makes them."""
    yield root
    if not load and getattr(root, "lazy_loaded", True) is False:
        return
    # A group: click's, or the Click Typer carries (``typer._click``), which is not click.Group.
    group = root.commands if isinstance(root, click.Group) or hasattr(root, "list_commands") else None
    if group:
        for name in sorted(group):
            yield from commands(group[name], load)


def _texts(obj: object, attrs: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for attr in attrs:
        source = obj.__dict__.get(f"_en_{attr}", getattr(obj, attr, None))
        if isinstance(source, str) and source.strip():
            yield attr, source


def help_texts(root: click.Command) -> set[str]:
    """The English help of every command, option and argument under ``root`` (the msgids)."""
    found = {HELP_OPTION_HELP, *_TYPER_WORDS.values()}
    texts = set()
    for cmd in commands(root, load=True):
        texts.update(text for _attr, text in _texts(cmd, _ATTRS))
        for param in cmd.params:
            texts.update(text for _attr, text in _texts(param, _PARAM_ATTRS))
    for text in texts:
        made = _composed.get(text.strip())
        if made is None:
            found.add(text)
        else:
            found.update(made[1])
    return found


def _translate(obj: object, attrs: tuple[str, ...]) -> None:
    for attr, source in list(_texts(obj, attrs)):
        obj.__dict__[f"_en_{attr}"] = source
        setattr(obj, attr, _in_language(source))


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

    install()
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
