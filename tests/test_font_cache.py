"""The fixed-cost caches of pipeline.render.fonts: the registered fonts' parse and the WOFF2 subsets.

Each must be used on the second call, must not change output (a PDF drawn with the cached font
is byte-identical to one drawn with a freshly parsed font), and a cache file that is damaged or
not sealed by us is ignored and rebuilt, never read.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import marshal

import pytest
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pipeline.render import fonts
from pipeline.render.fonts import build_fonts, subset_woff2

TEXT = "迫击炮！Mortar 123：对手失去 2 点生命。"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(fonts, "cache_dir", lambda: tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def font_path():
    return build_fonts()[0]


def _fail(*_args, **_kw):
    raise AssertionError("the slow path ran: the cache was not used")


def _pdf(font) -> bytes:
    pdfmetrics.registerFont(font)
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    c.setFont(font.fontName, 12)
    c.drawString(20, 20, TEXT)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_second_registration_comes_from_the_cache_and_matches_a_fresh_parse(cache, font_path, monkeypatch):
    fresh = TTFont("CacheTest", str(font_path))
    first, cmap1 = fonts._registered("CacheTest", font_path)
    monkeypatch.setattr(fonts, "_parse", _fail)
    cached, cmap2 = fonts._registered("CacheTest", font_path)
    assert cmap1 == cmap2 and ord("迫") in cmap2
    assert set(vars(cached)) == set(vars(fresh))
    assert cached.shapable == fresh.shapable and cached._asciiReadable == fresh._asciiReadable
    want = {k: v for k, v in vars(fresh.face).items() if k != "_pdfScale"}
    got = {k: getattr(cached.face, k) for k in want}          # lazy ones load here
    assert got == want
    assert type(cached.face.name) is type(fresh.face.name)
    assert cached.face._pdfScale(500) == fresh.face._pdfScale(500)
    # The embedded subset, widths and names: the same PDF, byte for byte.
    assert _pdf(cached) == _pdf(fresh)


def test_register_fonts_cmap_is_the_font_files_cmap(font_path):
    from fontTools.ttLib import TTFont as FTFont

    regular, bold = fonts.register_fonts().paths
    with FTFont(str(regular), lazy=True) as a, FTFont(str(bold), lazy=True) as b:
        assert fonts.register_fonts().cmap == frozenset(a.getBestCmap()) & frozenset(b.getBestCmap())


def _entry(font_path):
    return fonts._registration_cache(font_path)


@pytest.mark.parametrize("damage", ["flip", "truncate", "unsealed", "forged"])
def test_a_damaged_or_foreign_cache_file_is_ignored_and_rebuilt(cache, font_path, monkeypatch, damage):
    fonts._registered("CacheTest", font_path)
    path = _entry(font_path)
    blob = path.read_bytes()
    head = len(fonts._SEAL_MAGIC) + 32
    if damage == "flip":
        blob = blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:]
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "unsealed":       # plain data dropped into the cache, without our seal
        blob = marshal.dumps({"attrs": {}, "names": [], "cmap": None})
    else:                            # sealed with a key that is not this machine's
        body = blob[head:]
        blob = fonts._SEAL_MAGIC + hmac.new(b"k" * 32, body, hashlib.sha256).digest() + body
    path.write_bytes(blob)
    parsed = []
    real = fonts._parse
    monkeypatch.setattr(fonts, "_parse", lambda *a: parsed.append(1) or real(*a))
    font, cmap = fonts._registered("CacheTest", font_path)
    assert parsed == [1] and ord("迫") in cmap
    assert path.read_bytes().startswith(fonts._SEAL_MAGIC) and path.read_bytes() != blob  # rewritten
    monkeypatch.setattr(fonts, "_parse", _fail)
    fonts._registered("CacheTest", font_path)


class _Boom:
    def __reduce__(self):
        return (print, ("never run",))


def test_only_plain_values_are_ever_stored(cache, font_path):
    """No object that could name code is written (marshal refuses it), so none can be read."""
    path = cache / "x.marshal"
    fonts._store_sealed(path, {"attrs": _Boom()})
    assert not path.is_file() and fonts._load_sealed(path) is None
    fonts._store_sealed(path, {"attrs": {"a": 1}, "names": [b"x"]})
    assert fonts._load_sealed(path) == {"attrs": {"a": 1}, "names": [b"x"]}


def test_woff2_subsets_are_cached_by_content(cache, font_path, monkeypatch):
    data = subset_woff2(font_path, "迫击炮A", keep_names=True, notdef_outline=True)
    assert data[:4] == b"wOF2"
    assert len(list((cache / "webfonts").glob("*.woff2"))) == 1
    monkeypatch.setattr(fonts, "_cut_woff2", _fail)
    # The same characters (any order, repeated) and options: from the cache.
    assert subset_woff2(font_path, "A炮击迫迫", keep_names=True, notdef_outline=True) == data
    # Other characters or other options are another subset.
    with pytest.raises(AssertionError):
        subset_woff2(font_path, "迫击炮B", keep_names=True, notdef_outline=True)
    with pytest.raises(AssertionError):
        subset_woff2(font_path, "迫击炮A")


def test_rulebook_and_table_page_share_the_subsetter(cache, font_path, monkeypatch):
    import base64

    from pipeline.rulebook import html
    from pipeline.table import webfont

    calls = []
    monkeypatch.setattr(fonts, "_cut_woff2", lambda font, chars, names, notdef: calls.append((chars, names, notdef)) or b"w")
    assert webfont._subset(font_path, "迫") == b"w"
    assert base64.b64decode(html._subset_woff2(font_path, "迫")) == b"w"
    assert calls == [("迫", True, True), ("迫0123456789", False, False)]


def test_the_two_weights_are_made_at_once_and_the_first_run_says_so(tmp_path, monkeypatch, capsys):
    """Instancing a weight takes half a minute: both are made together (two processes) and a line
    on stderr says what the wait is; once made, nothing is made or said again."""
    import os

    from pipeline import workers
    from pipeline.render import fonts

    if not workers.can_fork():
        pytest.skip("one process where fork is missing")
    monkeypatch.setenv("CARDPRESS_CACHE", str(tmp_path))

    def instance(src, weight, style, target):
        target.write_text(f"{style} {weight} {os.getpid()}", encoding="utf-8")

    monkeypatch.setattr(fonts, "_instance", instance)
    paths = fonts.build_fonts(jobs=2)
    made = [p.read_text(encoding="utf-8").split() for p in paths]
    assert [m[:2] for m in made] == [["Regular", "400"], ["Bold", "700"]]
    assert len({m[2] for m in made}) == 2  # two processes
    err = capsys.readouterr().err
    assert err.count("preparing the printing font") == 2 and "Regular" in err and "Bold" in err
    assert fonts.build_fonts(jobs=2) == paths and capsys.readouterr().err == ""
