"""The ``cardpress`` root command and the production commands: thin Typer adapters over the library.

Each command parses options, calls library functions and shows progress; what goes wrong is
reported by the root's error boundary (``common.Boundary``), one clear message and exit code.
The rulebook, table and track commands are registered from their own modules.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, MutableMapping, Optional

import typer
from typer.core import TyperGroup
from typer.models import TyperInfo

from engine.i18n import _

from . import completion
from . import lang as cli_lang
from .common import (TRACK_HELP, Boundary, DeckOpt, GameArg, OutOpt, PapersOpt, millimetres, paper_name,
                     paper_names, parse_offset, progress_bar)
from . import rulebook as rulebook_cli
from . import table as table_cli

cli_lang.install()  # Click's and Typer's own words ("Missing argument") in the user's language



class TrackGroup(TyperGroup):
    """``cardpress track``, whose commands are built from ``pipeline.cli.track.app`` the first time
    they are needed (run, listed by ``track --help``, completed). pipeline.cli.track makes them from every
    shipped game's declared rules, which imports engine.tracker and the pydantic game model
    (~0.2 s); ``build``, ``check`` or ``cardpress --help`` would otherwise pay that on every run."""

    _loaded: MutableMapping | None = None

    @property
    def lazy_loaded(self) -> bool:
        """Whether the commands are made yet (``lang.translate`` leaves them until then)."""
        return self._loaded is not None

    @property
    def commands(self) -> MutableMapping:
        if self._loaded is None:
            from .lang import translate
            from .track import app as track

            # Built as add_typer would have: in this group's (the root's) markup mode.
            self._loaded = typer.main.get_group_from_info(
                TyperInfo(track), pretty_exceptions_short=track.pretty_exceptions_short,
                suggest_commands=self.suggest_commands, rich_markup_mode=self.rich_markup_mode).commands
            for command in self._loaded.values():
                translate(command)
        return self._loaded

    @commands.setter
    def commands(self, declared: MutableMapping) -> None:
        """Typer hands over the commands declared on this group's own app: none (they are pipeline.cli.track's)."""
        assert not declared, "track commands belong in pipeline.cli.track"


app = typer.Typer(
    name="cardpress",
    help="Print-and-play card sheets, rulebooks and a rules assistant for homebrew card games.\n\n"
    "GAME is a shipped game id (backrooms, duel, ridm) or the path of a game folder.\n\n"
    "Example: cardpress build duel",
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=Boundary,
)
def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"cardpress {version('cardpress')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo(_("cardpress (not installed: run `pip install -e .`)"))
        raise typer.Exit()


def _language(ctx: typer.Context, lang: str | None) -> None:
    from engine.i18n import UnknownLanguage, set_language

    from .lang import translate

    try:
        set_language(lang)
    except UnknownLanguage as exc:
        raise typer.BadParameter(str(exc)) from None
    translate(ctx.find_root().command)


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Show cardpress's version and exit.")] = False,
          lang: Annotated[Optional[str], typer.Option(
              "--lang", callback=_language, is_eager=True, show_default=False, metavar="zh_CN|en",
              help="Language of messages and help: zh_CN or en. Default: $CARDPRESS_LANG, else the "
                   "locale (Chinese for a zh locale).")] = None) -> None:
    """The root's own options (its help is the app's)."""


app.add_typer(typer.Typer(cls=TrackGroup, help=TRACK_HELP, no_args_is_help=True, rich_markup_mode="rich"),
              name="track")
rulebook_cli.register(app)
table_cli.register(app)


@app.command(rich_help_panel="Production")
def build(
    game: GameArg,
    paper: PapersOpt = None,
    out: OutOpt = None,
    deck: DeckOpt = None,
    margin: Annotated[float, typer.Option(help="Printer's unprintable margin, mm (crop marks stay inside it).",
                                          callback=millimetres)] = 5.0,
    bleed: Annotated[float, typer.Option(help="Bleed around each card, mm.", callback=millimetres)] = 3.0,
    gutter: Annotated[Optional[float], typer.Option(help="Space between cards, mm. Default: the gutter (0 to "
                                                    "2×bleed) that tolerates the most duplex drift while "
                                                    "keeping the most cards per sheet. 0: shared cut lines, "
                                                    "no drift tolerated.", show_default=False,
                                                    callback=millimetres)] = None,
    layout: Annotated[str, typer.Option(help="duplex: backs on the next page, for a duplex printer. fold "
                                        "(gutterfold): each sheet holds fronts and their mirrored backs side "
                                        "by side; fold on the dashed line, no duplex printer needed. "
                                        "silhouette: Silhouette Studio print-and-cut registration marks (square "
                                        "top left, L-marks top right and bottom left, 10 mm inset), no crop marks, "
                                        "cut files DIR/cards-<paper>-cut.svg and .dxf. cricut: Cricut Design Space "
                                        "Print Then Cut frame round a 6.75 × 9.25 in area, same cut files.")] = "duplex",
    corner_radius: Annotated[float, typer.Option(help="--layout silhouette/cricut: the cut files' card corner "
                                                 "radius, mm (0: square corners).", callback=millimetres)] = 3.0,
    back_marks: Annotated[bool, typer.Option("--back-marks", help="Crop marks and gutter ticks on the back "
                                             "pages too (to cut from the back).")] = False,
    short_edge: Annotated[bool, typer.Option("--short-edge", help="Backs for short-edge duplex flipping "
                                             "(default: long edge).")] = False,
    back_offset: Annotated[str, typer.Option(help="Shift backs by X,Y mm (x right, y up, as printed) to correct "
                                             "a printer's duplex drift.")] = "0,0",
    jobs: Annotated[Optional[int], typer.Option(min=1, max=2, help="Processes: 2 splits art, text fitting and the "
                                                "two papers over two cores. Default: 2 when two cores are free.",
                                                show_default=False)] = None,
    changed_since: Annotated[Optional[Path], typer.Option(help="An earlier build's folder (or its manifest.json): "
                                                          "print only the cards new or changed since, into "
                                                          "DIR/changed-<paper>.pdf (an errata sheet).",
                                                          show_default=False)] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Read card sheets game.yaml lists by URL "
                                          "(card_sources) from the cache; fetch nothing.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Lay out and paint every card, reusing nothing from "
                                           "the last build (e.g. to time a build or rule out the cache).")] = False,
) -> None:
    """Build print-ready card sheets: DIR/cards-a4.pdf and DIR/cards-letter.pdf.

    Cards of the game's size (card_size in game.yaml; a card type may have its own) with bleed
    and crop marks, fronts and mirrored duplex backs on alternating pages. The grid is computed from paper, margin, bleed and gutter. Invalid data is refused
    and nothing is written.

    Example: cardpress build backrooms

    Example: cardpress build duel --paper letter --deck artillery --out print/

    Example: cardpress build ./my-game --back-offset 0.5,-0.3 --short-edge

    Example: cardpress build duel --gutter 0   (shared cut lines: more room, no drift tolerated)

    Example: cardpress build backrooms --layout fold   (no duplex printer: fold each sheet)

    Example: cardpress build backrooms --layout silhouette --paper a4   (Silhouette print and cut)

    Example: cardpress build duel --layout cricut --corner-radius 2   (Cricut Print Then Cut)

    Example: cardpress build ridm --back-marks   (marks on the backs too)

    Example: cardpress build ridm --jobs 1   (one process, e.g. beside other work)

    Example: cardpress build duel --changed-since dist/duel   (reprint only what changed)

    Example: cardpress build ./my-game --offline   (card sheets by URL from the cache)

    Example: cardpress build duel --no-cache   (paint every card afresh)

    Each layout says how much duplex drift it tolerates (how far the backs may shift before a
    neighbour's back or white paper shows on a card), and what fewer cards per sheet would buy.
    Crop marks sit on every cut line outside the cards where the margin leaves room, and as
    ticks in every gutter, so each strip keeps its marks after the first cut; the margin holds a
    50 mm scale bar (measure it: the printer must not scale) and the sheet's label.

    Every build writes DIR/manifest.json, the digest of each printed face, for --changed-since.
    A rebuild lays out and paints only the cards whose inputs changed; the others are reused
    from the last build (--no-cache: none are).
    """
    from engine.data.remote import reporting

    from ..impose import KINDS
    from ..outputs.sheets import build_sheets, summary
    from ..plan import BuildOptions

    papers = paper_names(paper)
    if layout not in KINDS:
        raise typer.BadParameter(_("{value!r}: use one of {choices}").format(value=layout, choices=", ".join(KINDS)),
                                 param_hint="--layout")
    options = BuildOptions(papers=papers, out_dir=out, deck=deck, bleed_mm=bleed, margin_mm=margin, gutter_mm=gutter,
                           flip="short" if short_edge else "long", back_offset_mm=parse_offset(back_offset),
                           jobs=jobs, changed_since=changed_since, cache=not no_cache, layout=layout,
                           back_marks=back_marks, corner_radius_mm=corner_radius)
    with reporting(_notice, offline), progress_bar() as progress:
        result = build_sheets(game, options, progress)
    for line in summary(result, changed_since):
        typer.echo(line)


def _notice(text: str) -> None:
    typer.secho(_("notice: {message}").format(message=text), err=True, fg=typer.colors.YELLOW)


@app.command(rich_help_panel="Production")
def images(
    game: GameArg,
    out: Annotated[Optional[Path], typer.Option(help="Output folder. Default: dist/GAME.", show_default=False)] = None,
    deck: Annotated[Optional[Path], typer.Option(help="Only this deck's cards (TTS sheets repeat its copies): a "
                                                 "deck file or a deck of the game by name.", show_default=False)] = None,
    dpi: Annotated[int, typer.Option(min=72, max=1200, help="Resolution of the card images.")] = 300,
    bleed: Annotated[float, typer.Option(help="Bleed included in each image, mm (1/8 inch = 3.175, "
                                         "the print-shop norm).", callback=millimetres)] = 3.175,
    tts: Annotated[bool, typer.Option("--tts/--no-tts", help="Also write Tabletop Simulator decks: one set of "
                                      "sheets per back design (10 × 7, last slot = hidden-card back) and the "
                                      "Saved Object .json to import them.")] = True,
) -> None:
    """Write one PNG per card (and per back) for print shops, plus Tabletop Simulator decks.

    Files: `DIR/images/<card id>.png` and `DIR/images/back-<back>.png`. For Tabletop Simulator, one
    deck per back design (a TTS deck has a single back image): `DIR/tts/sheet-<back>-NN.jpg` (10 × 7
    cells, at most 4096 px a side, the last cell the back TTS shows for a hidden card),
    `DIR/tts/back-<back>.jpg`, and `DIR/tts/GAME.json` (`GAME-DECK.json` with --deck): a Saved
    Object holding every deck, each card named as in the game.

    Import into Tabletop Simulator: copy the .json into "Documents/My Games/Tabletop
    Simulator/Saves/Saved Objects" and take it from Objects → Saved Objects in the game. Its
    images are file:/// addresses of DIR/tts on this computer; to play with others, upload the
    images (Steam Cloud or any web host) and replace each FaceURL and BackURL in the .json with
    the uploaded address.

    Example: cardpress images ridm

    Example: cardpress images backrooms --deck meg-vanguard --dpi 200

    Example: cardpress images duel --deck swords --no-tts --dpi 600
    """
    from ..atomic import output_path
    from ..plan import prepare
    from ..outputs.images import write_images

    with progress_bar() as progress:
        prep = prepare(game, deck, bleed, progress)
        name = f"{prep.game.id}-{deck.stem}" if deck is not None else prep.game.id
        result = write_images(prep, out or output_path(Path("dist"), prep.game.id), dpi, bleed, tts, progress,
                              tts_name=name)
    w, h = result.size_px
    folder = result.cards[0].parent
    typer.echo(_("{game}: {cards} card images and {backs} back(s), {width} × {height} px at {dpi} dpi, in {folder}")
               .format(game=prep.game.name, cards=len(result.cards), backs=len(result.backs), width=w, height=h,
                       dpi=dpi, folder=folder))
    if tts and result.tts_json is not None:
        typer.echo(_("  Tabletop Simulator: {decks} deck(s), one per back design, on {sheets} sheet(s); "
                     "import {json} (see --help) from {folder}").format(
            decks=len(result.tts_decks), sheets=len(result.tts_sheets), json=result.tts_json.name,
            folder=result.tts_json.parent))


@app.command(rich_help_panel="Production")
def watch(
    game: GameArg,
    paper: PapersOpt = None,
    out: OutOpt = None,
    deck: DeckOpt = None,
    open_page: Annotated[bool, typer.Option("--open", help="Also serve a preview page on 127.0.0.1 that reloads "
                                            "by itself: the cards each save changed first, then the sheets; a "
                                            "failed build shows its error there.")] = False,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port of the --open page (0: any free port).")] = 0,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="With --open: print the page's address, do "
                                             "not open a browser.")] = False,
) -> None:
    """Rebuild the card sheets on every save of the game's cards, templates, style or art.

    Says what changed and what was written; a build that fails is shown and the watcher waits for
    the next save (the previous sheets are kept). With --open, a page on this computer shows each
    save's changed cards within a moment of the save, then the rebuilt sheets. Ctrl-C stops.

    Example: cardpress watch ./my-game

    Example: cardpress watch ./my-game --open

    Example: cardpress watch duel --paper a4 --deck artillery --open --port 8765 --no-browser
    """
    from ..plan import BuildOptions
    from ..watch import watch as watch_game

    papers = paper_names(paper)
    options = BuildOptions(papers=papers, out_dir=out, deck=deck)
    watch_game(game, options, typer.echo, open_page=open_page, port=port, browser=not no_browser)


@app.command(rich_help_panel="Production")
def preview(
    game: GameArg,
    card: Annotated[str, typer.Argument(help="The card's id.", show_default=False)],
    back: Annotated[bool, typer.Option("--back", help="The back the card's type uses, not its face.")] = False,
    png: Annotated[Optional[Path], typer.Option(help="PNG file to write. Default: dist/GAME/preview-CARD.png.",
                                                show_default=False)] = None,
    dpi: Annotated[int, typer.Option(min=36, max=1200, help="Resolution.")] = 300,
    bleed: Annotated[float, typer.Option(help="Bleed around the card, mm.", callback=millimetres)] = 3.0,
) -> None:
    """One card as it prints (same templates, text size and art as the sheets), as a PNG.

    Example: cardpress preview duel scout-hawk

    Example: cardpress preview ./my-game scout --back --png back.png --dpi 150
    """
    from ..atomic import atomic_write, output_path
    from ..outputs.preview import preview_png

    data = preview_png(game, card, back=back, dpi=dpi, bleed_mm=bleed)
    target = png or output_path(Path("dist") / Path(game).name, f"preview-{card}{'-back' if back else ''}.png")
    with atomic_write(target) as tmp:
        tmp.write_bytes(data)
    typer.echo(f"{target}")


@app.command(rich_help_panel="Production")
def calibrate(
    paper: Annotated[str, typer.Option(help="a4 or letter.", autocompletion=completion.papers)] = "a4",
    out: Annotated[Optional[Path], typer.Option(help="Output file. Default: dist/calibration-PAPER.pdf.",
                                                show_default=False)] = None,
    margin: Annotated[float, typer.Option(help="Printer's unprintable margin, mm.", callback=millimetres)] = 5.0,
    short_edge: Annotated[bool, typer.Option("--short-edge", help="Short-edge duplex flipping.")] = False,
    back_offset: Annotated[str, typer.Option(help="Check an offset: print with it applied (X,Y mm).")] = "0,0",
) -> None:
    """Write a duplex calibration sheet to measure your printer's front/back drift.

    Print it double-sided with the settings you use for cards, hold it against a light, and read
    where each front cross falls on the back's millimetre scale: that reading is the X,Y to pass
    to `cardpress build --back-offset X,Y`.

    Example: cardpress calibrate --paper letter

    Example: cardpress calibrate --back-offset 0.5,-1   (verify a correction)
    """
    from ..outputs.calibration import write_calibration

    paper = paper_name(paper)
    target = out or Path("dist") / f"calibration-{paper}.pdf"
    path = write_calibration(target, paper, margin, "short" if short_edge else "long",
                             parse_offset(back_offset))
    typer.echo(_("{path}: print double-sided at actual size, then read the offset on the back's scales").format(
        path=path))


@app.command(rich_help_panel="Production")
def check(game: GameArg,
          render: Annotated[bool, typer.Option("--render/--no-render", help="Also lay out and draw every card "
                                               "(off-page): finds text that does not fit its box, "
                                               "characters the font lacks, elements outside the bleed, "
                                               "text outside the safe zone and text boxes that overlap.")] = True,
          offline: Annotated[bool, typer.Option("--offline", help="Read card sheets game.yaml lists by URL "
                                                "(card_sources) from the cache; fetch nothing.")] = False) -> None:
    """Check a game's definition, cards and decks; list every problem.

    Each problem names the file, line (YAML) or row (CSV/XLSX), card and field. With --render
    (the default) every face is also drawn off-page, so text that would not fit its box,
    characters the font lacks, elements outside the trim + bleed, text outside the safe zone
    (game.yaml safe_zone_mm, default 3 mm inside the trim) and overlapping text boxes are found
    without building.
    Exit code 0 when all is well, 1 otherwise.

    Example: cardpress check ridm

    Example: cardpress check ./my-game

    Example: cardpress check ./my-game --offline   (card sheets by URL from the cache)
    """
    from engine.check import check_game
    from engine.data.remote import reporting

    with reporting(_notice, offline):
        report = check_game(game)
    if report.problems:
        for p in report.problems:
            typer.secho(f"  {p}", err=True, fg=typer.colors.RED)
        typer.secho(_("error: {message}").format(message=_("{count} problem(s) in {game}").format(
            count=len(report.problems), game=report.game.name)), err=True, fg=typer.colors.RED)
        raise typer.Exit(1)
    if render:
        from ..plan import render_check

        errors = render_check(report)
        if errors:
            for e in errors:
                typer.secho(f"  {e}", err=True, fg=typer.colors.RED)
            typer.secho(_("error: {message}").format(message=_("{count} card(s) in {game} cannot be printed").format(
                count=len(errors), game=report.game.name)), err=True, fg=typer.colors.RED)
            raise typer.Exit(1)
    counts = {}
    for card in report.cards.values():
        counts[card.type] = counts.get(card.type, 0) + 1
    kinds = ", ".join(f"{ctype.name} {counts[t]}" for t, ctype in report.game.card_types.items() if t in counts)
    typer.echo(_("{game}: {cards} cards ({kinds}), {decks} legal deck(s). All good.").format(
        game=report.game.name, cards=len(report.cards), kinds=kinds, decks=len(report.decks)))
    if report.decks:  # the next thing a designer wants of a deck: its shape
        import shlex

        deck_name = report.decks[0].path.stem if report.decks[0].path else report.decks[0].name
        typer.echo(_("To see a deck's shape (cards by type, each field's spread, its rules): {command}").format(
            command=f"cardpress deck {shlex.quote(str(game))} {shlex.quote(deck_name)}"))


@app.command(rich_help_panel="Production")
def cards(game: GameArg,
          out: Annotated[Path, typer.Argument(help="The .xlsx or .csv file to write.", show_default=False)],
          labels: Annotated[bool, typer.Option("--labels/--ids", help="Head the columns with the fields' Chinese "
                                               "labels from game.yaml (名称, 费用…) instead of their ids; a label "
                                               "two fields share stays an id.")] = False) -> None:
    """Write all of a game's cards to one spreadsheet (XLSX or CSV) that loads back identically.

    Put the file in the game's cards/ folder (and remove the YAML files) to keep the cards in a
    spreadsheet from then on. CSV is written as UTF-8 with a BOM, which Excel opens as it is;
    cards read back from CSV in UTF-8, GBK/GB18030 (Chinese Excel's default) or UTF-16, with
    field ids or labels as headers.

    Example: cardpress cards duel duel-cards.xlsx

    Example: cardpress cards ./my-game ./my-game/cards/all.csv --labels
    """
    from engine.cards import load_cards
    from engine.definitions import load_game

    from ..outputs.spreadsheet import export_cards

    definition = load_game(game)
    all_cards = load_cards(definition)
    path = export_cards(definition, all_cards, out, headers="labels" if labels else "ids")
    typer.echo(_("{cards} cards of {game} written to {path}").format(cards=len(all_cards), game=definition.name,
                                                                       path=path))


@app.command(rich_help_panel="Production")
def export(
    game: GameArg,
    shop: Annotated[str, typer.Option("--shop", help="The print shop: drivethrucards or thegamecrafter "
                                      "(makeplayingcards, printerstudio and printplaygames have no spec found "
                                      "yet and are refused). Presets: templates/_common/shops/*.yaml.",
                                      show_default=False)],
    out: Annotated[Optional[Path], typer.Option(help="Output folder; the files go into OUT/SHOP. Default: "
                                                "dist/GAME.", show_default=False)] = None,
    deck: Annotated[Optional[Path], typer.Option(help="Only this deck's cards, with their copies: a deck file or "
                                                 "a deck of the game by name. Default: one of each card.",
                                                 show_default=False)] = None,
) -> None:
    """Write the files a print shop's upload page asks for, from its preset.

    drivethrucards: one PDF per deck, `DIR/drivethrucards/GAME.pdf`: 2.75 × 3.75 inch pages (poker
    with a 1/8 inch bleed, TrimBox at the cut), pages in the shop's order (back 1, front 1, back 2,
    front 2…), 300 dpi CMYK images with total ink ≤ 240 %, a CMYK OutputIntent and the PDF/X-1a:2003
    keys. Text is part of the 300 dpi image (not selectable).

    thegamecrafter: one 825 × 1125 px sRGB PNG per card face and per back,
    `DIR/thegamecrafter/<card id>.png` and `back-<back>.png`.

    The game's cards must be the shop's size (poker: 63 × 88 mm goes to a 2.5 × 3.5 inch shop).

    Example: cardpress export duel --shop drivethrucards

    Example: cardpress export backrooms --shop thegamecrafter --deck meg-vanguard --out upload/
    """
    from ..outputs.shops import describe, export_shop

    with progress_bar() as progress:
        result = export_shop(game, shop, out, deck, progress)
    typer.echo(_("{shop}: {files} file(s), {pages} card sides — {spec}").format(
        shop=result.shop.name, files=len(result.files), pages=result.pages, spec=describe(result.shop)))
    if result.shop.colour == "cmyk":
        typer.echo("  " + _("highest total ink: {ink} % (limit {limit} %)").format(
            ink=f"{result.max_ink:.0f}", limit=f"{result.shop.ink_limit:g}"))
    typer.echo("  " + _("written to {folder}").format(folder=result.files[0].parent))


@app.command(rich_help_panel="Production")
def deck(game: GameArg,
         deck_name: Annotated[str, typer.Argument(metavar="DECK", show_default=False,
                                                  help="A deck file, or one of the game's decks by file name "
                                                  "(meg-vanguard for decks/meg-vanguard.yaml).")],
         out: Annotated[Optional[Path], typer.Option("--out", help="Folder for the pictures. Default: dist/GAME.",
                                                     show_default=False)] = None) -> None:
    """Show a deck's shape: print it, and draw it as deck-DECK.svg and deck-DECK.png.

    The deck's cards by type, then one chart per field of the game's cards: a bar per value of
    every choice (enum) field (品阶, 职业…) and a histogram of every number field (费用, 阶级,
    充能…), the field most of the deck carries first; the affiliation mix when the game has one;
    and each construction rule of game.yaml's deck: block (size, copies, requirements,
    affiliation) with the deck's numbers and ✓ or ✗, as `cardpress check` judges them. Labels
    are the game's Chinese ones, colours its style.yaml's. Exit code 0 for a legal deck, 1 for
    one that breaks a rule (the pictures are still written) or an error (nothing is written).

    Example: cardpress deck backrooms meg-vanguard

    Example: cardpress deck duel ./my-decks/swords-2.yaml --out ./pictures
    """
    from engine.cards import load_cards
    from engine.data.stats import deck_stats, summary_lines
    from engine.decks import read_deck, user_deck
    from engine.definitions import load_game

    from ..atomic import output_path
    from ..outputs.charts import write_deck_picture

    definition = load_game(game)
    path = user_deck(definition, deck_name)
    stats = deck_stats(definition, load_cards(definition), read_deck(path))
    picture = write_deck_picture(stats, out or output_path(Path("dist"), definition.id), path.stem)
    for line in summary_lines(stats):
        typer.echo(line)
    typer.echo(_("pictures written: {svg}, {png}").format(svg=picture.svg, png=picture.png))
    if not stats.legal:
        typer.secho(_("error: {message}").format(message=_("the deck breaks {count} rule(s) of {game}").format(
            count=len(stats.problems), game=definition.name)), err=True, fg=typer.colors.RED)
        raise typer.Exit(1)


@app.command(rich_help_panel="Production")
def schema(game: GameArg,
           out: Annotated[Optional[Path], typer.Option(
               "--out", help="Folder to write the three schemas into. Default: GAME/schemas for a game folder "
               "(where the `$schema` lines of `cardpress new` point), dist/GAME/schemas for a shipped game.",
               show_default=False)] = None) -> None:
    """Write JSON Schemas (draft 2020-12) of a game's files, so an editor completes and checks them.

    Three files: game.schema.json (game.yaml), cards.schema.json (the game's YAML card files:
    its card types, each type's fields with their ranges, enum values and required fields) and
    deck.schema.json (deck files: the game's card ids, 1 to the copy limit each). Titles and
    descriptions are the game's Chinese labels. The game and its cards must load (else: the
    problems, and nothing is written).

    To use one in VS Code (YAML extension) or another editor with the YAML language server, make
    this the first line of the file: `# yaml-language-server: $schema=schemas/game.schema.json`
    (from a card or deck file: `$schema=../schemas/cards.schema.json`). `cardpress new` writes
    these lines and the schemas. Run the command again after changing game.yaml or the cards.
    What a schema cannot say (duplicate ids, missing art, deck size) `cardpress check` reports.

    Example: cardpress schema ./my-game

    Example: cardpress schema duel --out ./duel-schemas
    """
    from engine.cards import load_cards
    from engine.definitions import load_game

    from ..outputs.schema import default_folder, write_schemas

    definition = load_game(game)
    all_cards = load_cards(definition)
    folder = out if out is not None else default_folder(definition)
    paths = write_schemas(definition, all_cards, folder)
    typer.echo(_("schemas of {game} written to {folder}:").format(game=definition.name, folder=folder))
    for path in paths:
        typer.echo(f"  {path.name}")


@app.command(rich_help_panel="Production")
def new(path: Annotated[Path, typer.Argument(help="Folder to create (must not exist or be empty).")],
        name: Annotated[Optional[str], typer.Option(help="The game's display name.")] = None) -> None:
    """Scaffold a new game folder that checks and builds at once.

    Writes game.yaml (two card types), a few cards, a legal deck and a templates/ folder with a
    style you can edit and a starter rulebook (rulebook.md.j2) and glossary (glossary.yaml); card
    faces fall back to the generic templates until you add your own.

    Example: cardpress new ./my-game --name 我的游戏 && cardpress build ./my-game

    Example: cardpress rulebook ./my-game && cardpress rules ./my-game 回合
    """
    from ..scaffold import scaffold

    folder = scaffold(path, name)
    typer.echo(_("created {folder}\nnext: cardpress check {folder} && cardpress build {folder}\n"
                 "      cardpress rulebook {folder}    # from templates/rulebook.md.j2 and glossary.yaml")
               .format(folder=folder))


@app.command(rich_help_panel="Setup")
def fonts() -> None:
    """Build and show the embedded CJK fonts (done automatically on first use; ~30 s once).

    Example: cardpress fonts
    """
    from ..render.fonts import FAMILY, build_fonts

    paths = build_fonts(progress=lambda label: typer.echo(_("building {font} …").format(font=label), err=True))
    typer.echo(f"{FAMILY}:")
    for p in paths:
        typer.echo(f"  {p}")


def main() -> None:
    """Entry point: the app in the user's language. Errors are the root's (``common.Boundary``);
    only Ctrl-C before any command started (while modules load) is met here."""
    try:
        from engine.i18n import language

        if language() == "en":
            app(prog_name="cardpress")  # also as ``python -m pipeline`` (usage lines, completion)
        else:  # a Chinese locale: the help of `cardpress --help` (read before --lang) in Chinese too
            command = typer.main.get_command(app)
            cli_lang.translate(command)
            command(prog_name="cardpress")
    except KeyboardInterrupt:
        typer.secho(_("interrupted: nothing half-written was kept"), err=True, fg=typer.colors.RED)
        sys.exit(130)


if __name__ == "__main__":
    main()
