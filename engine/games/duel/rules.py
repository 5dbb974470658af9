"""The two-player 主战者 duel at the table: life, first-turn rules, per-turn skill and descent limits.

Tracked counts per player: life, deck, hand, fighters on field, netherworld. Cards gained at the
hand limit go to the netherworld instead (the rule), drawing from an empty deck loses.

Decisions beyond RULES.md: a player with no deck file starts with ``deck.min_size`` cards
minus the opening hand (the duel deck is exactly 40); life at 0 or less loses.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any, Mapping

from ...decks import Deck
from ...tracker import events as kev
from . import events as ev
from ...tracker.core import Batch, Context, IllegalCommand, count, require_active, require_phase, signed, who
from ...tracker.kit import turn_mark as _mark
from ...tracker.kit import Commands, Param
from . import sentences  # noqa: F401 - imported to register the game's log lines
from .state import DuelPlayer as Player, DuelState as State

RULESET = "duel"
COMMANDS = Commands(RULESET)
ZONES = ("deck", "hand", "field", "netherworld")

DRAW_SKILLS = {"draw1": "抽1张", "fill": "补满手牌"}


def in_turn_skills(n: Any) -> dict[str, tuple[str, int]]:
    """The in-turn skills by id → (description, hand cards sent). The two "send N, draw 1"
    skills take N from game.yaml, and their ids follow it (send2, send3 by default)."""
    small, large = n.in_turn_skill_discard_small, n.in_turn_skill_discard_large
    return {
        f"send{small}": (f"{small}张手牌送去幽冥，抽1张", small),
        f"send{large}": (f"{large}张手牌送去幽冥，抽1张", large),
        "sendall": ("全部手牌送去幽冥，从幽冥取回1张", 0),
        "pierce": ("本回合主战者的下一次攻击获得贯穿", 0),
    }
MAIN = "main"
DRAW = "draw"


def setup(ctx: Context, players: tuple[str, ...], first: int, levels: tuple[str, ...] = (),
          decks: Mapping[int, Deck] | None = None) -> list[kev.Event]:
    n = ctx.numbers
    if levels:
        raise IllegalCommand("--levels is for backrooms; duel has no levels")
    sizes = tuple((decks[i].size if decks and i in decks else ctx.defn.deck.min_size) - n.opening_hand
                  for i in range(len(players)))
    if min(sizes) < 0:
        raise IllegalCommand("a deck is smaller than the opening hand")
    return [
        kev.GameStarted(game=ctx.defn.id, ruleset=RULESET, players=players, first=first,
                        setup=ev.DecksCounted(deck_sizes=sizes, reason="起手后的牌库"),
                       starting=(("life", n.starting_life), ("hand", n.opening_hand)),
                       reason=f"开局：生命{n.starting_life}，各抽{n.opening_hand}张起手"),
    ]


def is_first_turn(state: State) -> bool:
    return state.turn == 1


def first_phase(state: State, ctx: Context) -> str:
    # The very first turn skips turn start and the draw phase.
    return MAIN if is_first_turn(state) else ctx.defn.phases[0].id


def on_turn_begin(state: State, ctx: Context) -> list[kev.Event]:
    return []


def on_enter(state: State, ctx: Context) -> list[kev.Event]:
    n = ctx.numbers
    me = state.players[state.active]
    out: list[kev.Event] = []
    phase = state.phase
    if phase == DRAW:
        out.append(kev.ReminderGiven(text=f"抽牌技能（每回合{n.draw_skills_per_turn}次）：抽1张，或补满至{n.draw_skill_fill_to}张手牌",
                                    player=state.active, reason=ctx.phase_name(phase)))
    elif phase == MAIN:
        if is_first_turn(state):
            out.append(kev.ReminderGiven(text=f"先手第一回合：战斗伤害为{n.first_turn_battle_damage}",
                                        player=state.active, reason="先手规则"))
        out.append(kev.ReminderGiven(
            text=f"降临{n.descents_per_turn}次、回合内技能{n.in_turn_skills_per_turn}次；场上主战者至多{n.max_fighters}名",
            player=state.active, reason=ctx.phase_name(phase)))
    elif phase == ctx.defn.phases[-1].id:
        out.append(kev.ReminderGiven(text=f"手牌上限{n.hand_limit}张：达到上限时获得的牌送去幽冥（{me.name}现有{me.hand}张）",
                                    player=state.active, reason=ctx.phase_name(phase)))
    else:
        description = ctx.defn.phase(phase).description
        if description:
            out.append(kev.ReminderGiven(text=description, reason=ctx.phase_name(phase)))
    return out


def on_exit(state: State, ctx: Context) -> list[kev.Event]:
    return []


def losers(state: State, ctx: Context) -> list[tuple[int, str]]:
    out = []
    for i, p in enumerate(state.players):
        if p.life <= 0:
            out.append((i, f"生命值降至{p.life}"))
        elif p.decked_out:
            out.append((i, "须从空牌库抽牌"))
    return out


# ---------------------------------------------------------------------------- commands


def _draw(state: State, i: int, n_cards: int, ctx: Context, why: str) -> list[kev.Event]:
    """Draw one by one: at the hand limit a card goes to the netherworld; an empty deck loses."""
    batch = Batch(state)
    limit = ctx.numbers.hand_limit
    for _ in range(n_cards):
        p = batch.state.players[i]
        if p.deck is not None and p.deck == 0:
            batch.emit(ev.DrawFailed(player=i, reason=f"{why}：牌库已空，无法抽牌"))
            break
        if p.hand >= limit:
            batch.emit(ev.CardsMoved(player=i, source="deck", dest="netherworld", count=1,
                                     reason=f"{why}：手牌已达上限{limit}，改为送去幽冥（不触发送去幽冥效果）"))
        else:
            batch.emit(ev.CardsMoved(player=i, source="deck", dest="hand", count=1, reason=why))
    return batch.events


@COMMANDS.command(Param.player(), Param.count("cards", "How many.", 1), Param.why(),
                  label="抽牌", labels={'cards': '张数'}, help="Draw by a card effect (at the hand limit of {n.hand_limit} a card goes to the "
                       "netherworld; an empty deck loses).", examples=("draw A 2",))
def draw(state: State, ctx: Context, player: Any, cards: Any = 1, why: str = "") -> list[kev.Event]:
    """Draw by a card effect (the draw skill is ``draw_skill``)."""
    i = who(state, player)
    return _draw(state, i, count(cards, "cards to draw"), ctx, why or "抽牌")


@COMMANDS.command(Param.player(), Param("kind", "choice", "draw1 or fill.", "draw1", choices=("draw1", "fill")),
                  label="抽牌技能", labels={'kind': '选项'}, help="The draw phase's draw skill, {n.draw_skills_per_turn} per turn: draw 1 or fill the hand "
                       "up to {n.draw_skill_fill_to}.", examples=("draw-skill A fill",))
def draw_skill(state: State, ctx: Context, player: Any, kind: str = "draw1") -> list[kev.Event]:
    """The draw phase's one draw skill: ``draw1`` or ``fill`` (up to the fill size)."""
    n = ctx.numbers
    i = who(state, player)
    require_active(state, i, "draw skill")
    require_phase(state, ctx, (DRAW,), "the draw skill")
    if kind not in DRAW_SKILLS:
        raise IllegalCommand(f"unknown draw skill {kind!r}; choose {', '.join(DRAW_SKILLS)}")
    p = state.players[i]
    if p.draw_skills_used >= n.draw_skills_per_turn:
        raise IllegalCommand(f"{p.name} already used the draw skill this turn ({n.draw_skills_per_turn} per turn)")
    cards = 1 if kind == "draw1" else max(0, n.draw_skill_fill_to - p.hand)
    used = ev.SkillUsed(player=i, kind=kind, draw_skill=True, reason=f"抽牌技能：{DRAW_SKILLS[kind]}")
    return [used] + _draw(Batch(state).emit(used).state, i, cards, ctx, f"抽牌技能（{DRAW_SKILLS[kind]}）")


@COMMANDS.command(Param.player(), Param("kind", "text", "send{n.in_turn_skill_discard_small}, "
                                        "send{n.in_turn_skill_discard_large}, sendall or pierce."),
                  label="回合内技能", labels={'kind': '技能'}, help="An in-turn skill (at most {n.in_turn_skills_per_turn} different ones per turn).",
                  examples=("skill A send2",))
def skill(state: State, ctx: Context, player: Any, kind: str) -> list[kev.Event]:
    """An in-turn skill (send2, send3, sendall, pierce), at most the per-turn limit."""
    n = ctx.numbers
    i = who(state, player)
    require_active(state, i, "in-turn skill")
    require_phase(state, ctx, (MAIN,), "in-turn skills")
    skills = in_turn_skills(n)
    if kind not in skills:
        raise IllegalCommand(f"unknown in-turn skill {kind!r}; choose {', '.join(skills)}")
    label, k = skills[kind]
    p = state.players[i]
    if p.in_turn_skills_used >= n.in_turn_skills_per_turn:
        raise IllegalCommand(f"{p.name} used {p.in_turn_skills_used}/{n.in_turn_skills_per_turn} in-turn skills this turn")
    if kind in p.in_turn_skill_kinds:
        # RULES.md 2026-12: "最多只能执行其中2个选项" — two different options, not one twice.
        raise IllegalCommand(f"{p.name} already used {kind} this turn; in-turn skills are different options")
    used = ev.SkillUsed(player=i, kind=kind, draw_skill=False,
                        reason=f"回合内技能{p.in_turn_skills_used + 1}/{n.in_turn_skills_per_turn}：{label}")
    batch = Batch(state).emit(used)
    if k:
        if p.hand < k:
            raise IllegalCommand(f"{p.name} has {p.hand} card(s) in hand; {kind} needs {k}")
        batch.emit(ev.CardsMoved(player=i, source="hand", dest="netherworld", count=k, reason=label))
        batch.emit(*_draw(batch.state, i, 1, ctx, label))
    elif kind == "sendall":
        if p.netherworld < 1 and p.hand < 1:
            raise IllegalCommand(f"{p.name} has no hand and an empty netherworld")
        if p.hand:
            batch.emit(ev.CardsMoved(player=i, source="hand", dest="netherworld", count=p.hand, reason=label))
        batch.emit(ev.CardsMoved(player=i, source="netherworld", dest="hand", count=1, reason="从幽冥取回1张"))
    return batch.events


@COMMANDS.command(Param.player(), Param.count("rank", "The card's rank (0 to {n.direct_descent_max_rank}).", 0,
                                                     minimum=0, option=True),
                  label="降临", labels={'rank': '阶级'}, help="Descend a rank 0–{n.direct_descent_max_rank} card as a fighter ({n.descents_per_turn} per "
                       "turn, at most {n.max_fighters} fighters).", examples=("descend A --rank 1",))
def descend(state: State, ctx: Context, player: Any, rank: Any = 0) -> list[kev.Event]:
    """Put a rank 0–1 card from hand onto the field as a fighter (2 per turn, ≤ 5 fighters)."""
    n = ctx.numbers
    i = who(state, player)
    require_active(state, i, "descent")
    require_phase(state, ctx, (MAIN,), "descents")
    r = count(rank, "rank", minimum=0)
    p = state.players[i]
    if r > n.direct_descent_max_rank:
        raise IllegalCommand(f"a rank {r} card cannot descend directly (rank ≤ {n.direct_descent_max_rank}); "
                             f"rank it up onto a ready fighter of rank {r - 1} (rank_up)")
    if p.descents_used >= n.descents_per_turn:
        raise IllegalCommand(f"{p.name} used {p.descents_used}/{n.descents_per_turn} descents this turn")
    if p.field >= n.max_fighters:
        raise IllegalCommand(f"{p.name} has {p.field} fighters on the field (at most {n.max_fighters})")
    if p.hand < 1:
        raise IllegalCommand(f"{p.name} has no card in hand")
    return [
        ev.DescentMade(player=i, rank=r, reason=f"降临{p.descents_used + 1}/{n.descents_per_turn}"),
        ev.CardsMoved(player=i, source="hand", dest="field", count=1, reason=f"阶级{r}主战者降临"),
    ]


@COMMANDS.command(Param.player(), Param.count("rank", "The new card's rank.", 2, option=True),
                  label="升阶", labels={'rank': '阶级'}, help="Rank up onto a ready fighter of one rank less (unlimited, not a descent).",
                  examples=("rank-up A --rank 2",))
def rank_up(state: State, ctx: Context, player: Any, rank: Any = 2) -> list[kev.Event]:
    """Rank a card up onto a ready fighter of one rank less (unlimited; not a descent)."""
    i = who(state, player)
    require_active(state, i, "rank up")
    require_phase(state, ctx, (MAIN,), "ranking up")
    r = count(rank, "rank", minimum=1)
    p = state.players[i]
    if p.field < 1:
        raise IllegalCommand(f"{p.name} has no fighter to rank up onto")
    if p.hand < 1:
        raise IllegalCommand(f"{p.name} has no card in hand")
    return [ev.CardsMoved(player=i, source="hand", dest="source", count=1,
                          reason=f"升阶：阶级{r}叠放在阶级{r - 1}的战备主战者上（不消耗降临次数）")]


@COMMANDS.command(Param.player(), Param.count("fighters", "Fighters that died.", 1),
                  Param.count("assists", "Assist cards that died with them.", 0, minimum=0, option=True),
                  label="主战者战死", labels={'fighters': '主战者', 'assists': '协助牌'}, help="Fighters of a player died (they and their assists go to the netherworld).",
                  examples=("slain B --assists 1",))
def slain(state: State, ctx: Context, player: Any, fighters: Any = 1, assists: Any = 0) -> list[kev.Event]:
    """Fighters (and their assists) of ``player`` died: field → netherworld."""
    i = who(state, player)
    k = count(fighters, "fighters")
    a = count(assists, "assists", minimum=0)
    p = state.players[i]
    if k > p.field:
        raise IllegalCommand(f"{p.name} has only {p.field} fighter(s) on the field")
    out = [ev.CardsMoved(player=i, source="field", dest="netherworld", count=k, reason=f"{k}名主战者战死")]
    if a:
        # Assists stack behind fighters and are not counted as fighters on the field.
        out.append(ev.CardsMoved(player=i, source="assist", dest="netherworld", count=a,
                                 reason=f"{a}张协助牌随主战者送去幽冥"))
    return out


@COMMANDS.command(Param.player(), Param("source", "choice", "deck, hand, field or netherworld.", choices=ZONES),
                  Param("dest", "choice", "deck, hand, field or netherworld.", choices=ZONES),
                  Param.count("cards", "How many.", 1), Param.why(),
                  label="移动卡牌", labels={'source': '从', 'dest': '到', 'cards': '张数'}, help="Move cards between zones by a card effect.",
                  examples=('move A netherworld hand 1 --why "revive"',))
def move(state: State, ctx: Context, player: Any, source: str, dest: str, cards: Any = 1, why: str = "") -> list[kev.Event]:
    """Move cards between counted zones by a card effect (deck, hand, field, netherworld)."""
    i = who(state, player)
    k = count(cards, "cards")
    for z in (source, dest):
        if z not in ZONES:
            raise IllegalCommand(f"unknown zone {z!r}; zones: {', '.join(ZONES)}")
    if source == dest:
        raise IllegalCommand(f"moving cards from {source} to {source} changes nothing")
    p = state.players[i]
    have = getattr(p, source)
    if have is not None and have < k:
        raise IllegalCommand(f"{p.name} has {have} card(s) in {source}")
    why = why or "卡牌效果"
    n = ctx.numbers
    if dest == "field" and p.field + k > n.max_fighters:
        # RULES.md 2026-12: at most max_fighters per side by any route, effects included.
        raise IllegalCommand(f"{p.name} has {p.field} fighter(s); {k} more would exceed {n.max_fighters}")
    if dest != "hand":
        return [ev.CardsMoved(player=i, source=source, dest=dest, count=k, reason=why)]
    # The hand limit applies to every card gained, by any route (RULES.md 2026-12).
    room = max(n.hand_limit - p.hand, 0)
    out = []
    if min(k, room):
        out.append(ev.CardsMoved(player=i, source=source, dest="hand", count=min(k, room), reason=why))
    if k > room:
        out.append(ev.CardsMoved(player=i, source=source, dest="netherworld", count=k - room,
                                 reason=f"{why}：手牌已达上限{n.hand_limit}，改为送去幽冥（不触发送去幽冥效果）"))
    return out


@COMMANDS.command(Param.player(), Param("delta", "signed", "Change, e.g. -3 or +2."), Param.why(),
                  label="生命变化", labels={'delta': '变化'}, help="Change a player's life by an effect (0 loses).", examples=('life B -3 --why "fighter effect"',))
def life(state: State, ctx: Context, player: Any, delta: Any, why: str = "") -> list[kev.Event]:
    """Change a player's life by an effect: ``-3`` or ``+2``."""
    i = who(state, player)
    return [ev.LifeChanged(player=i, delta=signed(delta, "life change"), reason=why or "卡牌效果")]


@COMMANDS.command(Param.player(), Param.count("amount", "Battle damage taken.", minimum=0),
                  label="战斗伤害", labels={'amount': '伤害'}, help="A player takes battle damage (damage the first player deals on the first turn is "
                       "{n.first_turn_battle_damage}).",
                  examples=("battle B 4",))
def battle(state: State, ctx: Context, player: Any, amount: Any) -> list[kev.Event]:
    """``player`` takes battle damage; it is 0 on the first player's very first turn."""
    i = who(state, player)
    n = count(amount, "battle damage", minimum=0)
    amount_, why = first_turn_damage(state, ctx, i, n)
    return [ev.LifeChanged(player=i, delta=-amount_, reason=why)]


def first_turn_damage(state: State, ctx: Context, to: int, amount: int) -> tuple[int, str]:
    """Battle damage ``amount`` to player ``to``, and why. RULES.md 2026-12: on the first player's
    first turn the damage the first player **deals** becomes ``first_turn_battle_damage``; damage
    the first player takes (an attacker losing an exchange) is applied in full."""
    if is_first_turn(state) and to != state.active:
        zero = ctx.numbers.first_turn_battle_damage
        return zero, f"先手第一回合：先手造成的战斗伤害为{zero}（原为{amount}）"
    return amount, "战斗伤害"


@dataclass(frozen=True)
class AttackOutcome:
    """What one attack does, by the duel combat rules (pure data; see ``resolve_attack``)."""

    attacker_dies: bool
    target_dies: bool
    target_wounded: bool
    guard_drop: int
    damage_to: str | None  # "attacker" or "defender": whose player takes battle damage
    damage: int
    explanation: str


def resolve_attack(attack: int, target: int, guard: bool = False, pierce: bool = False,
                   wounded: bool = False) -> AttackOutcome:
    """The combat table. ``target`` is the target's attack (ready) or guard (``guard=True``).

    Ready vs ready: attack ≤ target → both die, the attacker's player takes the difference;
    otherwise the target dies and its player takes the difference. Ready vs guard: attack ≤ guard
    → the target is wounded, else it dies; no battle damage. Pierce against guard: attack ≤ guard
    → its guard also drops by the attack this turn; attack > guard → its player takes attack −
    guard. A wounded target dies whenever it is attacked.

    >>> resolve_attack(5, 3).damage, resolve_attack(5, 3).target_dies
    (2, True)
    """
    if not guard:
        if attack <= target:
            return AttackOutcome(True, True, False, 0, "attacker", target - attack,
                                 f"战备对战备：攻击{attack} ≤ 对方攻击{target}，双方战死，攻击方受到{target - attack}点战斗伤害")
        return AttackOutcome(False, True, False, 0, "defender", attack - target,
                             f"战备对战备：攻击{attack} > 对方攻击{target}，目标战死，被攻击方受到{attack - target}点战斗伤害")
    if attack <= target:
        drop = attack if pierce else 0
        pierce_note = f"；贯穿：本回合其守卫力-{attack}" if pierce else ""
        if wounded:
            return AttackOutcome(False, True, False, drop, None, 0,
                                 f"目标已受伤，再次被攻击而战死{pierce_note}")
        return AttackOutcome(False, False, True, drop, None, 0,
                             f"战备对守卫：攻击{attack} ≤ 守卫{target}，目标受伤，无战斗伤害{pierce_note}")
    if pierce:
        return AttackOutcome(False, True, False, 0, "defender", attack - target,
                             f"贯穿：攻击{attack} > 守卫{target}，目标战死，对方牌手受到{attack - target}点战斗伤害")
    return AttackOutcome(False, True, False, 0, None, 0,
                         f"战备对守卫：攻击{attack} > 守卫{target}，目标战死，无战斗伤害")


@COMMANDS.command(
    Param.player(),
    Param.count("attack", "The attacking fighter's attack (with its assists).", minimum=0),
    Param.count("target", "The target's attack, or its guard with --guard.", minimum=0),
    Param("guard", "flag", "The target is in guard state (sideways).", False, option=True),
    Param("pierce", "tristate", "The attack pierces (default: if the pierce skill was used this turn).", None,
          option=True),
    Param("wounded", "flag", "The target is already wounded.", False, option=True),
    Param.count("assists", "Assist cards behind the target (they die).", 0, minimum=0, option=True),
    label="攻击", labels={'attack': '攻击力', 'target': '目标数值', 'guard': '目标守卫', 'pierce': '贯穿', 'wounded': '目标已受伤', 'assists': '目标协助牌'}, help="Resolve an attack by the combat table: deaths, assists and battle damage are applied.\n\n"
         "Ready vs ready: the lower attack dies (both on a tie or less) and its player takes the difference; "
         "vs guard: wounded or slain, no damage unless piercing. First-turn damage is "
         "{n.first_turn_battle_damage}.",
    examples=("attack A 5 3", "attack A 4 6 --guard --pierce --assists 1"))
def attack(state: State, ctx: Context, player: Any, attack: Any, target: Any, guard: bool = False,
           pierce: bool | None = None, wounded: bool = False, assists: Any = 0) -> list[kev.Event]:
    """``player``'s fighter (attack ``attack``) attacks an enemy fighter (its attack, or its guard
    when ``guard``); deaths, the target's assists and battle damage are applied. ``pierce``
    defaults to the pierce skill used this turn (and uses it up)."""
    i = who(state, player)
    require_active(state, i, "attack")
    require_phase(state, ctx, (MAIN,), "attacks")
    atk = count(attack, "attack", minimum=0)
    value = count(target, "target's guard" if guard else "target's attack", minimum=0)
    n_assists = count(assists, "assists", minimum=0)
    me = state.players[i]
    j = (i + 1) % len(state.players)
    foe = state.players[j]
    if me.field < 1:
        raise IllegalCommand(f"{me.name} has no fighter on the field to attack with")
    if foe.field < 1:
        raise IllegalCommand(f"{foe.name} has no fighter on the field to attack")
    use_pierce = me.pierce if pierce is None else bool(pierce)
    out = resolve_attack(atk, value, guard, use_pierce, wounded)
    batch = Batch(state).emit(ev.AttackResolved(player=i, summary=out.explanation, pierce_used=use_pierce,
                                                reason=f"{me.name}发起攻击"))
    if n_assists:
        batch.emit(ev.CardsMoved(player=j, source="assist", dest="netherworld", count=n_assists,
                                 reason=f"{foe.name}的主战者被攻击：其{n_assists}张协助牌战死"))
    if out.target_dies:
        batch.emit(ev.CardsMoved(player=j, source="field", dest="netherworld", count=1, reason="被攻击的主战者战死"))
    if out.attacker_dies:
        batch.emit(ev.CardsMoved(player=i, source="field", dest="netherworld", count=1, reason="攻击的主战者战死"))
    if out.damage_to:
        k = i if out.damage_to == "attacker" else j
        amount, why = first_turn_damage(state, ctx, k, out.damage)
        batch.emit(ev.LifeChanged(player=k, delta=-amount, reason=why))
    return batch.events


def player_json(p: Player, state: State, ctx: Context) -> dict[str, Any]:
    n = ctx.numbers
    return {
        "life": p.life, "deck": p.deck, "hand": p.hand, "fighters": p.field, "netherworld": p.netherworld,
        "descents_used": p.descents_used, "descents_per_turn": n.descents_per_turn,
        "in_turn_skills_used": p.in_turn_skills_used, "in_turn_skills_per_turn": n.in_turn_skills_per_turn,
        "draw_skill_used": p.draw_skills_used >= n.draw_skills_per_turn, "pierce": p.pierce,
    }


def state_json(state: State, ctx: Context) -> dict[str, Any]:
    return {"first_turn": is_first_turn(state)}


def board_lines(s: dict[str, Any], ctx: Context) -> list[str]:
    """The game's part of the text board, from ``status_json`` (``s``)."""
    return [(f"{_mark(p, s)} {p['name']}: 生命 {p['life']} | 牌库 {p['deck']} 手牌 {p['hand']} 场上 {p['fighters']} "
             f"幽冥 {p['netherworld']} | 降临 {p['descents_used']}/{p['descents_per_turn']} "
             f"技能 {p['in_turn_skills_used']}/{p['in_turn_skills_per_turn']} "
             f"抽牌技能 {'已用' if p['draw_skill_used'] else '未用'}" + (" 贯穿" if p["pierce"] else ""))
            for p in s["players"]]


#: Older stores wrote this game's setup into ``GameStarted`` itself (see ``engine.tracker.events``).
LEGACY_SETUP = ev.DecksCounted
