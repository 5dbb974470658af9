"""Paragraph markup is untrusted: a template or style could put ``<img src="/etc/passwd">``,
``<a href>``, ``<link>``, ``<seq>``, ``<onDraw>`` or a font nobody registered into a ``para``
element, and ReportLab would read the file, run a callback or fail in the middle of a build.

``check_markup`` allows only what card text needs — the tags the shipped templates and the
``rich`` filter write, with their attributes checked — and well-formed nesting.
"""

from __future__ import annotations

import re

from engine.i18n import _
from pipeline.render.fonts import BOLD, REGULAR

#: The fonts cardpress registers; markup may name only these.
FONT_NAMES = frozenset({REGULAR, BOLD})
#: Font size bounds (points) for ``<font size=…>``.
MIN_MARKUP_PT, MAX_MARKUP_PT = 1.0, 500.0

#: Tags a paragraph may use, and the attributes each may carry.
ALLOWED_TAGS: dict[str, frozenset[str]] = {
    "b": frozenset(), "i": frozenset(), "u": frozenset(), "strike": frozenset(),
    "super": frozenset(), "sup": frozenset(), "sub": frozenset(), "br": frozenset(),
    "font": frozenset({"name", "face", "color", "size"}),
}
#: Tags that never have content.
_EMPTY = frozenset({"br"})
#: Named entities ReportLab decodes that ``plain_text`` also understands.
ENTITIES = frozenset({"amp", "lt", "gt", "nbsp", "quot", "apos"})

_TOKEN = re.compile(r"<[^<>]*>|&[^;&<>\s]{0,12};?|[<>&]")
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[A-Za-z_][A-Za-z0-9_]*\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_ATTR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_NUMERIC = re.compile(r"&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));")


class MarkupError(ValueError):
    """Paragraph markup uses something cardpress does not allow, or is malformed."""


def _check_attrs(tag: str, attrs: str) -> None:
    allowed = ALLOWED_TAGS[tag]
    for name, dq, sq in _ATTR.findall(attrs):
        value = dq if dq or not sq else sq
        if name not in allowed:
            raise MarkupError(_("<{tag}> may not have the attribute {name!r}").format(tag=tag, name=name)
                              + (_(" (allowed: {allowed})").format(allowed=", ".join(sorted(allowed))) if allowed else ""))
        if name in ("name", "face") and value not in FONT_NAMES:
            raise MarkupError(_("<font {name}={value!r}> is not a font cardpress has; use one of {fonts}")
                              .format(name=name, value=value, fonts=", ".join(sorted(FONT_NAMES))))
        if name == "color" and not _HEX.fullmatch(value):
            raise MarkupError(_("<font color={value!r}> must be a colour like \"#8a1c1c\"").format(value=value))
        if name == "size":
            try:
                size = float(value)
            except ValueError:
                size = float("nan")
            if not MIN_MARKUP_PT <= size <= MAX_MARKUP_PT:
                raise MarkupError(_("<font size={value!r}> must be a number of points from {low:g} to {high:g}")
                                  .format(value=value, low=MIN_MARKUP_PT, high=MAX_MARKUP_PT))


def _check_entity(token: str) -> None:
    numeric = _NUMERIC.fullmatch(token)
    if numeric:
        code = int(numeric.group(1)) if numeric.group(1) else int(numeric.group(2), 16)
        if code > 0x10FFFF or code < 0x20 or 0xD800 <= code <= 0xDFFF:
            raise MarkupError(_("{token} is not a printable character").format(token=token))
        return
    if not (token.endswith(";") and token[1:-1] in ENTITIES):
        raise MarkupError(_("{token!r} is not an entity cardpress knows; write &amp; for '&'").format(token=token))


def check_markup(text: str) -> None:
    """Raise ``MarkupError`` unless ``text`` uses only allowed tags, attributes and entities,
    properly nested."""
    if "<" not in text and ">" not in text and "&" not in text:
        return
    stack: list[str] = []
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token[0] == "&":
            _check_entity(token)
            continue
        if token in ("<", ">"):
            raise MarkupError(_("a lone {token!r} in paragraph markup; write &lt; or &gt; for the character").format(token=token))
        tag = _TAG.fullmatch(token)
        if not tag:
            raise MarkupError(_("malformed tag {token!r:.60}").format(token=token))
        closing, name, attrs, self_closing = tag.groups()
        name = name.lower()
        if name not in ALLOWED_TAGS:
            raise MarkupError(_("<{name}> is not allowed in card text (allowed: {allowed})")
                              .format(name=name, allowed=", ".join("<" + t + ">" for t in ALLOWED_TAGS)))
        if closing:
            if attrs or self_closing or name in _EMPTY:
                raise MarkupError(_("malformed closing tag {token!r}").format(token=token))
            if not stack or stack[-1] != name:
                expected = f"</{stack[-1]}>" if stack else _("no closing tag")
                raise MarkupError(_("</{name}> does not close an open <{name}> (expected {expected})")
                                  .format(name=name, expected=expected))
            stack.pop()
            continue
        _check_attrs(name, attrs)
        if name in _EMPTY:
            if not self_closing:
                raise MarkupError(_("write <{name}/> (ReportLab reads <{name}> as an open tag)").format(name=name))
            continue
        if self_closing:
            raise MarkupError(_("<{name}/> must have content").format(name=name))
        stack.append(name)
    if stack:
        raise MarkupError(_("<{name}> is never closed").format(name=stack[-1]))
