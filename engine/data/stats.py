"""A deck's shape in numbers: what ``cardpress deck`` prints and draws.

Pure (no ReportLab): the charts of ``pipeline.outputs.charts`` and the terminal lines both
draw on ``deck_stats``.

The charts come from the game's fields, so a new game gets them without code:

* card count by type (always first);
* every ``enum`` field: a bar per value, in the order game.yaml lists them, with its label;
* every ``int`` field: a histogram of the values the deck holds (a cost curve), one bar per
  value from the lowest to the highest, the top ones folded into "≥ N" past ``MAX_BINS`` bars;
* the affiliation field of the deck rules (``deck.affiliation``), when the game has one.

Field charts are ordered by how many of the deck's cards carry the field (an enum before an int
on a tie, then game.yaml order): the field most of the deck shares says most about it
(backrooms: 费用, duel: 品阶 then 阶级, ridm: 职业).

The construction rules (size, copies, each requirement, affiliation) come with the deck's numbers
and a verdict each; the verdicts are ``engine.decks.check_deck``'s problems, sorted to the rule
they break, so this module and ``cardpress check`` never disagree.

>>> stats = deck_stats(game, cards, deck)  # doctest: +SKIP
>>> stats.charts[0].bars[:2]
(Bar(label='G.O.I', count=1, key='goi'), Bar(label='层级', count=4, key='level'))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from engine.cards import Card
from engine.decks import Deck, check_deck
from engine.definitions import GameDefinition
from engine.errors import Problem

#: Bars of an int histogram before the top values fold into one "≥ N" bar: a cost curve of
#: 0–11 reads at a glance; 0–99 would be 100 hairline bars.
MAX_BINS = 12


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    count: int
    #: The value behind the label (type id, enum value, int), for colours; None for a folded bar.
    key: Any = None


@dataclass(frozen=True, slots=True)
class Chart:
    """One chart: ``field`` id (``type`` for the card types), its Chinese ``title``, its kind."""

    field: str
    title: str
    kind: str  # "type", "enum", "int", "affiliation"
    bars: tuple[Bar, ...]

    #: Mean value over the deck's cards carrying the field (int fields; None otherwise).
    mean: float | None = None

    @property
    def total(self) -> int:
        return sum(b.count for b in self.bars)

    @property
    def caption(self) -> str:
        """``费用（38 张，平均 2.1）``: the title with the cards counted (and the mean)."""
        mean = f"，平均 {self.mean:.1f}" if self.mean is not None else ""
        return f"{self.title}（{self.total} 张{mean}）"


@dataclass(frozen=True, slots=True)
class RuleCheck:
    """A construction rule, what it allows and what the deck has; ``problems`` from check_deck."""

    label: str
    allowed: str
    actual: str
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class DeckStats:
    game: GameDefinition
    deck: Deck
    size: int
    charts: tuple[Chart, ...]
    rules: tuple[RuleCheck, ...]
    problems: tuple[Problem, ...]

    @property
    def legal(self) -> bool:
        return not self.problems


def _range(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"至少 {lo}"
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _histogram(values: Counter) -> tuple[Bar, ...]:
    lo, hi = min(values), max(values)
    top = hi if hi - lo + 1 <= MAX_BINS else lo + MAX_BINS - 2
    bars = [Bar(str(v), values.get(v, 0), v) for v in range(lo, top + 1)]
    if top < hi:
        bars.append(Bar(f"≥{top + 1}", sum(n for v, n in values.items() if v > top)))
    return tuple(bars)


def _field_charts(game: GameDefinition, resolved: list[tuple[Card, int]]) -> list[Chart]:
    """One chart per enum/int field id (a field several types share, like backrooms' 费用, is one)."""
    order: dict[str, tuple[str, str, Any]] = {}  # field id → (label, kind, spec)
    for ctype in game.card_types.values():
        for fid, spec in ctype.fields.items():
            if spec.kind in ("enum", "int") and fid not in order:
                order[fid] = (spec.label, spec.kind, spec)
    charts = []
    for position, (fid, (label, kind, spec)) in enumerate(order.items()):
        counts: Counter = Counter()
        carried = 0
        for card, n in resolved:
            spec_here = game.card_types[card.type].fields.get(fid)
            value = card.get(fid)
            if spec_here is None or spec_here.kind != kind or value is None:
                continue
            counts[value] += n
            carried += n
        if not counts:
            continue
        if kind == "enum":
            bars = tuple(Bar(spec.label_of(v), counts.get(v, 0), v) for v in spec.values)
        else:
            bars = _histogram(counts)
        mean = sum(v * n for v, n in counts.items()) / carried if kind == "int" else None
        charts.append((-carried, kind != "enum", position, Chart(fid, label, kind, bars, mean)))
    return [chart for *_, chart in sorted(charts, key=lambda c: c[:3])]


def _affiliation_chart(game: GameDefinition, resolved: list[tuple[Card, int]]) -> Chart | None:
    rule = game.deck.affiliation
    if rule is None:
        return None
    counts: Counter = Counter()
    for card, n in resolved:
        value = card.get(rule.field)
        if value is not None:
            counts[str(value)] += n
    if not counts:
        return None
    label = game.card_types[rule.leader_type].fields[rule.field].label
    bars = tuple(Bar(v, n, v) for v, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return Chart(rule.field, label, "affiliation", bars)


def _rules(game: GameDefinition, deck: Deck, resolved: list[tuple[Card, int]],
           problems: list[Problem]) -> tuple[RuleCheck, ...]:
    rules = game.deck
    left = list(problems)

    def take(pred) -> tuple[Problem, ...]:
        mine = tuple(p for p in left if pred(p))
        for p in mine:
            left.remove(p)
        return mine

    checks = []
    unknown = take(lambda p: p.rule == "unknown-card")
    if unknown:
        checks.append(RuleCheck("卡牌存在", "全部", f"{len(unknown)} 张未知：{'、'.join(p.card or '' for p in unknown)}",
                                unknown))
    size = deck.size
    checks.append(RuleCheck("卡组张数", _range(rules.min_size, rules.max_size), str(size),
                            take(lambda p: p.rule == "size")))

    same: Counter = Counter()
    for card, n in resolved:
        same[card.name if rules.copies_by == "name" else card.id] += n
    most = max(same.values(), default=0)
    overrides = "，".join(f"{game.card_types[t].name} {n}" for t, n in rules.type_max_copies.items())
    allowed = f"每{'名' if rules.copies_by == 'name' else '张'}至多 {rules.max_copies}" + (f"（{overrides}）" if overrides else "")
    checks.append(RuleCheck("同名卡张数" if rules.copies_by == "name" else "同卡张数", allowed, f"最多 {most}",
                            take(lambda p: p.rule == "copies")))

    for index, req in enumerate(rules.requirements):
        n = sum(c for card, c in resolved
                if card.type == req.type and all(card.get(k) == v for k, v in req.where.items()))
        checks.append(RuleCheck(req.label, _range(req.min, req.max), str(n),
                                take(lambda p, index=index: p.rule == f"requirement:{index}")))

    aff = rules.affiliation
    if aff is not None:
        leaders = [card for card, _ in resolved if card.type == aff.leader_type]
        label = game.card_types[aff.leader_type].fields[aff.field].label
        allowed_values = sorted({str(leader.get(aff.field)) for leader in leaders} | set(aff.always))
        wrong = take(lambda p: p.rule == "affiliation")
        checks.append(RuleCheck(label, "、".join(allowed_values) if leaders else f"随{game.card_types[aff.leader_type].name}",
                                f"{sum(c for card, c in resolved if card.id in {p.card for p in wrong})} 张不符",
                                wrong))
    if left:  # a rule check_deck knows and this module does not (yet): shown, never lost
        checks.append(RuleCheck("其他", "—", f"{len(left)} 处", tuple(left)))
    return tuple(checks)


def deck_stats(game: GameDefinition, cards: list[Card] | Mapping[str, Card], deck: Deck) -> DeckStats:
    """The deck's charts (see module doc) and its construction rules with verdicts."""
    by_id = cards if isinstance(cards, Mapping) else {c.id: c for c in cards}
    resolved = [(by_id[cid], n) for cid, n in deck.entries if cid in by_id]
    problems = check_deck(game, by_id, deck)

    types: Counter = Counter()
    for card, n in resolved:
        types[card.type] += n
    charts = [Chart("type", "卡牌类型", "type",
                    tuple(Bar(ctype.name, types[t], t) for t, ctype in game.card_types.items() if types[t]))]
    charts.extend(_field_charts(game, resolved))
    affiliation = _affiliation_chart(game, resolved)
    if affiliation is not None:
        charts.append(affiliation)
    return DeckStats(game, deck, deck.size, tuple(charts), _rules(game, deck, resolved, problems), tuple(problems))


def summary_lines(stats: DeckStats, ok: str = "✓", bad: str = "✗") -> list[str]:
    """The deck's shape as lines of text (the terminal; the picture draws the same numbers)."""
    lines = [f"{stats.deck.name}（{stats.game.name}）：{stats.size} 张"]
    for chart in stats.charts:
        bars = "  ".join(f"{b.label} {b.count}" for b in chart.bars)
        mean = f"（平均 {chart.mean:.1f}）" if chart.mean is not None else ""
        lines.append(f"{chart.title}{mean}：{bars}")
    lines.append("构筑规则：")
    for rule in stats.rules:
        lines.append(f"  {ok if rule.ok else bad} {rule.label}：{rule.actual}（要求 {rule.allowed}）")
    return lines


def game_deck_stats(game: GameDefinition, cards: list[Card] | Mapping[str, Card]) -> list[DeckStats]:
    """``deck_stats`` of each of the game's own decks (``decks/``, file-name order): what the
    HTML rulebook's deck section draws. A deck file is read as ``cardpress check`` reads it (a
    symlink may not lead out of the game's folder); one that cannot be read raises ``DataError``
    naming it, so a rulebook never quietly leaves a deck out."""
    from engine.decks import deck_files, read_deck
    from engine.errors import DataError, Location
    from engine.paths import UnsafePath, confine

    out = []
    for path in deck_files(game):
        try:
            confine(path, [game.card_data_dir], "deck file")
        except UnsafePath as exc:
            raise DataError(Problem(str(exc), Location(path))) from None
        out.append(deck_stats(game, cards, read_deck(path)))
    return out
