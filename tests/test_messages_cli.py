"""The command line in both languages (issue 12 §5): help, usage errors, a library error, the
locale as the default, and the fast ``track`` path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from engine import i18n

REPO = Path(__file__).resolve().parent.parent


def _cli(*args: str):
    from pipeline.cli.app import app
    from pipeline.cli.lang import translate

    previous = i18n._chosen
    try:
        return CliRunner().invoke(app, list(args), env={"COLUMNS": "120"})
    finally:
        i18n._chosen = previous
        translate(typer.main.get_command(app), force=True)


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``cardpress ARGS`` as the entry point runs it (``track`` commands: the fast path first)."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("CARDPRESS_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")}
    code = f"import sys; sys.argv = ['cardpress', *{list(args)!r}]; import pipeline; pipeline.main()"
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env={**base, "COLUMNS": "120", **env})


def test_build_help_in_chinese_keeps_its_examples_and_paragraphs():
    result = _cli("--lang", "zh_CN", "build", "--help")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "构建可直接打印的卡牌拼版" in out and "用法：" in out
    assert "示例：cardpress build duel --paper letter --deck artillery --out print/" in out
    assert "示例：cardpress build duel --no-cache" in out
    assert "--no-cache" in out and "显示此帮助并退出。" in out and "选项" in out
    english = _cli("--lang", "en", "build", "--help").output
    assert "Example: cardpress build duel --paper letter --deck artillery --out print/" in english
    assert "Build print-ready card sheets" in english and "构建" not in english


@pytest.mark.parametrize("lang, words", [("zh_CN", ["用法：", "缺少参数 'game'。", "错误"]),
                                         ("en", ["Usage:", "Missing argument 'game'."])])
def test_a_usage_error_reads_in_the_language_asked(lang, words):
    result = _cli("--lang", lang, "build")
    assert result.exit_code == 2
    for word in words:
        assert word in result.output, result.output


@pytest.mark.parametrize("lang, expected, absent", [("zh_CN", "错误：", "error:"), ("en", "error:", "错误")])
def test_check_of_a_missing_game_in_both_languages(lang, expected, absent, tmp_path):
    result = _cli("--lang", lang, "check", str(tmp_path / "no-such-game"))
    assert result.exit_code == 1
    assert expected in result.output and absent not in result.output
    assert "no-such-game" in result.output


def test_a_chinese_locale_gives_chinese_without_lang():
    proc = _run("--help", LANG="zh_CN.UTF-8")
    assert proc.returncode == 0, proc.stderr
    assert "为自制卡牌游戏制作" in proc.stdout and "--lang" in proc.stdout
    assert "示例：cardpress build duel" in proc.stdout
    proc = _run("build", LANG="zh_CN.UTF-8")
    assert proc.returncode == 2 and "缺少参数" in proc.stderr, proc.stderr
    proc = _run("--help", LANG="C.UTF-8")
    assert "Print-and-play card sheets" in proc.stdout and "--lang" in proc.stdout


@pytest.mark.parametrize("lang, expected", [("zh_CN", "错误："), ("en", "error: ")])
def test_the_fast_track_path_speaks_the_language(lang, expected, tmp_path):
    db = tmp_path / "store.sqlite"
    proc = _run("track", "status", "--db", str(db), "--game", "no-such-game", CARDPRESS_LANG=lang)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(expected), proc.stderr
    assert "no-such-game" in proc.stderr
