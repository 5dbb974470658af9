"""Shared fixtures: built card sheets are expensive, so each is built once per test session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.paths import card_data_root, templates_root

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    """Games, stores and the snapshot key go to a folder of the test run, never the user's own
    (subprocesses inherit it, so a crash test's processes share one key)."""
    import os
    import tempfile

    os.environ.setdefault("CARDPRESS_DATA", tempfile.mkdtemp(prefix="cardpress-test-data-"))
    # Build caches too (the fonts stay in the user's cache: cutting them takes a minute).
    os.environ.setdefault("CARDPRESS_CACHE_BUILDS", tempfile.mkdtemp(prefix="cardpress-test-builds-"))


@pytest.fixture(scope="session")
def duel_sheets(tmp_path_factory):
    """The shipped duel game built for both papers: {paper: Path}, plus the BuildResult."""
    from pipeline.outputs.sheets import build_sheets
    from pipeline.plan import BuildOptions

    out = tmp_path_factory.mktemp("duel-sheets")
    result = build_sheets("duel", BuildOptions(out_dir=out))
    return result


@pytest.fixture
def game_copy(tmp_path):
    """Copy a shipped game (definition, cards, decks, templates) into a folder of its own."""

    def make(game_id: str) -> Path:
        folder = tmp_path / game_id
        shutil.copytree(card_data_root() / game_id, folder)
        shutil.copytree(templates_root() / game_id, folder / "templates", dirs_exist_ok=True)
        return folder

    return make


RULEBOOK_GAMES = ("backrooms", "duel", "ridm")


@pytest.fixture(scope="session")
def rulebook_pdfs(tmp_path_factory):
    """Each shipped game's A4 rulebook, built once for the whole run: {game: Path}."""
    from pipeline.rulebook.build import RulebookOptions, build_rulebook

    return {g: build_rulebook(g, RulebookOptions(out_dir=tmp_path_factory.mktemp(f"rulebook-{g}"))).path
            for g in RULEBOOK_GAMES}


@pytest.fixture(scope="session")
def rulebook_texts(rulebook_pdfs):
    """Each shipped rulebook's page texts as pdfplumber reads them: {game: [text of page 1, …]}."""
    import pdfplumber

    out = {}
    for game, path in rulebook_pdfs.items():
        with pdfplumber.open(path) as pdf:
            out[game] = [page.extract_text() or "" for page in pdf.pages]
    return out


@pytest.fixture(scope="session")
def rulebook_htmls(tmp_path_factory):
    """Each shipped game's HTML rulebook, built once for the whole run: {game: Path}."""
    from pipeline.rulebook.build import RulebookOptions, build_rulebook

    return {g: build_rulebook(g, RulebookOptions(format="html", out_dir=tmp_path_factory.mktemp(f"html-{g}"))).path
            for g in RULEBOOK_GAMES}
