"""The table page's card lookup and rules search: cards by part of a name, the face as printed,
the rules as ``cardpress rules`` has them."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageStat
from starlette.testclient import TestClient

from engine.cards import load_cards
from engine.definitions import load_game
from engine.tracker import Store
from engine.live import LiveGame
from pipeline.table.library import Library
from pipeline.table.server import make_app


@pytest.fixture(scope="module")
def duel_game(tmp_path_factory):
    db = tmp_path_factory.mktemp("table") / "games.sqlite"
    with Store(db) as store:
        gid = LiveGame.new(store, "duel", ("甲", "乙")).id
    return db, gid


@pytest.fixture(scope="module")
def client(duel_game):
    """The app as `cardpress table` makes it: the library comes from the stored game's definition."""
    db, gid = duel_game
    return TestClient(base_url="http://127.0.0.1", app=make_app(db, gid))


@pytest.fixture(scope="module")
def library():
    return Library("duel")


def test_a_card_is_found_by_part_of_its_chinese_name_with_its_printed_text_and_numbers(client):
    found = client.get("/api/cards", params={"q": "迫击"})
    assert found.status_code == 200
    mortar = found.json()[0]
    assert (mortar["id"], mortar["name"], mortar["type"], mortar["type_label"]) == ("mortar", "迫击炮！！！", "fighter", "主战者")
    assert ["攻击力", 5] in mortar["fields"] and ["品阶", "丁"] in mortar["fields"]
    # The text box as printed: the template's section labels, no markup left.
    assert "主战者效果\n①：一回合一次，消灭自己场上1张主战者" in mortar["text"] and "<" not in mortar["text"]
    assert client.get("/api/cards", params={"q": "迫击炮!!!"}).json()[0]["id"] == "mortar"  # a phone's ASCII "!"


def test_name_matches_come_before_text_matches(library):
    order = [c["id"] for c in library.catalogue()]
    # 火线工兵's text names 「迫击炮！！！」; in game order it comes first, in a search it does not.
    assert order.index("sapper") < order.index("mortar")
    hits = [c["id"] for c in library.search_cards("迫击炮")]
    assert hits[0] == "mortar" and "sapper" in hits[1:]
    assert [c["id"] for c in library.search_cards("迫击炮", limit=1)] == ["mortar"]


def test_an_empty_search_is_the_whole_catalogue_in_game_order(client):
    everything = client.get("/api/cards").json()
    cards = load_cards(load_game("duel"))
    assert sorted(c["id"] for c in everything) == sorted(c.id for c in cards)
    assert len({c["id"] for c in everything}) == len(everything)


def test_a_face_is_a_png_of_the_asked_width_and_the_cards_shape_and_is_drawn(client, library):
    answer = client.get("/api/card/mortar.png", params={"w": "600"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
    assert answer.headers["cache-control"] == "public, max-age=86400"
    image = Image.open(io.BytesIO(answer.content))
    size = load_game("duel").card_size
    assert image.format == "PNG" and image.width == 600
    assert image.height == round(600 * size.height_mm / size.width_mm)
    assert max(ImageStat.Stat(image.convert("L")).stddev) > 20          # not a blank page
    again = client.get("/api/card/mortar.png", params={"w": "600"})
    assert again.content == answer.content
    small = Image.open(io.BytesIO(client.get("/api/card/mortar.png", params={"w": "300"}).content))
    assert small.size == (300, round(300 * size.height_mm / size.width_mm))
    assert library.face_png("mortar", 400) is library.face_png("mortar", 400)  # served from the cache


def test_two_cards_have_different_faces(library):
    assert library.face_png("mortar", 200) != library.face_png("scout-hawk", 200)


def test_an_unknown_card_is_404_and_a_bad_width_400(client, library):
    assert client.get("/api/card/no-such-card.png").status_code == 404
    for w in ("50", "5000", "abc", "-1", ""):
        assert client.get("/api/card/mortar.png", params={"w": w}).status_code == 400, w
    with pytest.raises(KeyError):
        library.face_png("no-such-card")
    with pytest.raises(ValueError):
        library.face_png("mortar", 99)


def test_rules_search_gives_the_glossary_entry_and_the_sections(client):
    answer = client.get("/api/rules", params={"q": "湮灭"}).json()
    assert [e["term"] for e in answer["entries"]] == ["湮灭"]
    assert "背面朝上" in answer["entries"][0]["text"] and answer["suggestions"] == []
    assert answer["mentions"] and all(m["section"].split(" ", 1)[0][0].isdigit() for m in answer["mentions"])
    assert any("湮灭" in line for m in answer["mentions"] for line in m["lines"])


def test_an_unknown_term_gives_the_nearest_terms(client):
    answer = client.get("/api/rules", params={"q": "湮没"}).json()
    assert answer["entries"] == [] and answer["mentions"] == []
    assert "湮灭" in answer["suggestions"]


def test_an_empty_rules_search_is_the_glossary(client):
    answer = client.get("/api/rules").json()
    assert answer["entries"] == [] and "湮灭" in [e["term"] for e in answer["glossary"]]
    assert client.get("/api/rules", params={"q": "湮" * 101}).status_code == 400


def test_the_lookups_need_the_join_token(duel_game, library):
    db, gid = duel_game
    guarded = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid, token="s3cret", library=library))
    for path in ("/api/cards?q=迫击", "/api/card/mortar.png", "/api/rules?q=湮灭"):
        assert guarded.get(path).status_code == 403, path
    assert guarded.get("/api/cards?q=迫击&t=s3cret").json()[0]["id"] == "mortar"


@pytest.mark.parametrize("game", ["duel", "backrooms"])
def test_text_of_everything_covers_every_card_name_and_glossary_term(game, library):
    lib = library if game == "duel" else Library(game)
    chars = set(lib.text_of_everything())
    shown = [c["name"] + c["text"] + c["type_label"] for c in lib.catalogue()]
    shown += [e["term"] + e["text"] for e in lib.glossary()]
    shown += [line for m in lib.rules("回合")["mentions"] for line in m["lines"]]
    missing = {ch for text in shown for ch in text if ch not in chars and not ch.isspace()}
    assert not missing
