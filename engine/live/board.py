"""The board as the table page shows it: one display model every game fills, one page for all.

``status_json`` is data for programs (stable English keys); this is what people read at the
table, already in the game's own Chinese terms, so the page needs no knowledge of any game. Each
game's ``rules.board_view(s, ctx)`` turns its ``status_json`` ``s`` into::

    {"table":   [Stat, …],                       # shared numbers: level countdown, public pile…
     "players": [{"stats": [Stat, …],            # one per seat, in seat order
                  "zones": [{"label": "单位区", "pieces": [Piece, …], "slots": 5}, …],
                  "alerts": ["须放置前哨站", …]}],  # what this player must not forget
     "sections": [{"label": "连锁", "lines": ["1. 甲：…"]}]}   # open chain and the like

``Stat`` = ``stat(label, value, of=None, key=False, warn=False)``: ``key`` stats (life, sanity,
cost) are drawn large; ``of`` is a maximum (``手牌 3/6``). ``Piece`` = ``piece(id, name, card,
stats, tags, attached)``: a piece on the board, tapped to act on it; ``attached`` lists what
hangs on it (equipment, assists) as ``{"id", "name", "card"}``.

``table_view(live)`` adds what every game has (turn, phase, whose turn, reminders, the end) and
the seat's name and turn mark, so a game's function only says what is its own.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..live.view import status_json


def stat(label: str, value: Any, of: int | None = None, key: bool = False, warn: bool = False) -> dict[str, Any]:
    """One number (or short word) a player reads: ``stat("生命", 20, key=True)``."""
    return {"label": label, "value": value, "of": of, "key": key, "warn": warn}


def piece(id: str, name: str, card: str | None, stats: Iterable[dict[str, Any]] = (), tags: Iterable[str] = (),
          attached: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """One piece on the board: ``piece("A1", "青锋剑客", "azure-blade", [stat("攻", 5)], ["战备"])``."""
    return {"id": id, "name": name, "card": card, "stats": list(stats), "tags": [t for t in tags if t],
            "attached": [{"id": a.get("id"), "name": a["name"], "card": a.get("card")} for a in attached]}


def zone(label: str, pieces: Iterable[dict[str, Any]], slots: int | None = None) -> dict[str, Any]:
    """A place on a player's side of the table holding pieces (``slots``: how many it can hold)."""
    return {"label": label, "pieces": list(pieces), "slots": slots}


def section(label: str, lines: Iterable[str]) -> dict[str, Any]:
    return {"label": label, "lines": list(lines)}


def table_view(live: Any) -> dict[str, Any]:
    """The whole board of ``live`` (a ``LiveGame`` or anything with ``state`` and ``ctx``) as
    the page draws it: the kernel's part and the game's ``board_view``."""
    s = status_json(live.state, live.ctx, getattr(live, "id", ""))
    game = live.ctx.rules.board_view(s, live.ctx)
    players, decks = [], live.state.decks
    for n, (p, view) in enumerate(zip(s["players"], game["players"])):
        players.append({"name": p["name"], "seat": chr(ord("A") + n), "active": p["name"] == s["active"],
                        "first": p["name"] == s["first"], "stats": view.get("stats", []),
                        "zones": view.get("zones", []), "alerts": view.get("alerts", []),
                        # the player's deck list (card ids), for the page's card pickers
                        "deck_list": list(dict.fromkeys(c for c, _rest in decks[n])) if n < len(decks) else []})
    return {"id": s["id"], "game": s["game"], "game_name": s["game_name"], "turn": s["turn"], "round": s["round"],
            "turn_label": s["turn_label"], "phase": s["phase"], "phase_name": s["phase_name"],
            "phases": [{"id": p.id, "name": live.ctx.phase_name(p.id)} for p in live.ctx.defn.phases],
            "active": s["active"], "over": s["over"], "winner": s["winner"], "end_reason": s["end_reason"],
            "reminders": s["reminders"], "table": game.get("table", []), "players": players,
            "sections": game.get("sections", [])}
