"""The two-player 主战者 duel at the table: the board of fighters and assists, combat, life,
first-turn rules, per-turn skill and descent limits.

Tracked per player: life, the counts of deck, hand, netherworld (face up, and face down apart)
and removed cards; on the field, pieces (``state.py``): fighters with their assists and source
cards. Every card is counted somewhere, so the counts always add up to the deck size. Cards
gained at the hand limit go to the netherworld instead, by any route; drawing from an empty deck
loses.

Decisions beyond RULES.md (the seed is silent or loose; each is a house reading):
- Attacks: a fighter gains one attack when it descends (a rank-up is a descent of a rank ≥ 2
  card, so it gains one too; so does a card an effect puts on the field), for that turn only —
  the seed: "每个回合内，每张主战者降临时，便获得一次攻击次数". A fighter that attacked and survived
  turns to guard when its attacks run out; nothing in the rules turns a guard fighter ready again
  (only a card effect: ``stance … ready --why``).
- An attacked fighter fights with its assists' bonuses; then the assists die.
- A fighter that leaves the field takes its source cards to the netherworld, face up.
- Ranking up keeps the piece (its id, assists and wound); the new card's numbers replace the old.
- No direct attack on a player: the seed has none (only card texts such as 迫击炮！！！'s assist).
- A player with no deck file starts with ``deck.min_size`` cards minus the opening hand (the duel
  deck is exactly 40); life at 0 or less loses.
"""

from __future__ import annotations

from engine.i18n import N_, _
from dataclasses import dataclass

from typing import TYPE_CHECKING, Any, Mapping

from ...tracker import events as kev
from . import events as ev
from ...tracker.core import Batch, Context, IllegalCommand, count, require_active, require_phase, signed, who
from ...tracker.pieces import find_piece
from ...tracker.state import next_piece_id
from ...tracker.kit import turn_mark as _mark
from ...tracker.kit import Commands, Param
from . import sentences  # noqa: F401 - imported to register the game's log lines
from .board import (ATTACKS_PER_DESCENT, HOW, STANCE_NAMES, assist_ranks, assists_of, attack_of, card_numbers,
                    cards_on_field, deck_card, fighter_count, fighter_json, fighter_line, fighters_of, gain_to_hand,
                    guard_of, leave, own_fighter)
from .board import ZONE_NAMES as BOARD_ZONE_NAMES
from .view import board_view  # noqa: F401 - the board as the table page shows it (engine.live.board)
from .state import GUARD, READY, STANCES, DuelPlayer as Player, DuelState as State

if TYPE_CHECKING:  # the types only: reading cards and decks is not every command's work
    from ...decks import Deck

RULESET = "duel"
COMMANDS = Commands(RULESET)
ZONES = ("deck", "hand", "field", "netherworld", "removed")
ZONE_LABELS = tuple(BOARD_ZONE_NAMES[z] for z in ZONES)

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


def setup(ctx: Context, players: tuple[str, ...], first: int,
          decks: Mapping[int, Deck] | None = None) -> list[kev.Event]:
    n = ctx.numbers
    sizes = tuple((decks[i].size if decks and i in decks else ctx.defn.deck.min_size) - n.opening_hand
                  for i in range(len(players)))
    if min(sizes) < 0:
        raise IllegalCommand(_("a deck is smaller than the opening hand"))
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
    for _n in range(n_cards):
        p = batch.state.players[i]
        if p.deck is not None and p.deck == 0:
            batch.emit(ev.DrawFailed(player=i, reason=f"{why}：牌库已空，无法抽牌"))
            break
        gain_to_hand(batch, ctx, i, "deck", 1, why)
    return batch.events


@COMMANDS.command(Param.player(), Param.count("cards", N_("How many."), 1), Param.why(),
                  label="抽牌", labels={'cards': '张数'}, help=N_("Draw by a card effect (at the hand limit of {n.hand_limit} a card goes to the "
                       "netherworld; an empty deck loses)."), examples=("draw A 2",))
def draw(state: State, ctx: Context, player: Any, cards: Any = 1, why: str = "") -> list[kev.Event]:
    """Draw by a card effect (the draw skill is ``draw_skill``)."""
    i = who(state, player)
    return _draw(state, i, count(cards, N_("cards to draw")), ctx, why or "抽牌")


@COMMANDS.command(Param.player(), Param("kind", "choice", N_("draw1 or fill."), "draw1", choices=tuple(DRAW_SKILLS), choice_labels=tuple(DRAW_SKILLS.values())),
                  label="抽牌技能", labels={'kind': '选项'}, help=N_("The draw phase's draw skill, {n.draw_skills_per_turn} per turn: draw 1 or fill the hand "
                       "up to {n.draw_skill_fill_to}."), examples=("draw-skill A fill",))
def draw_skill(state: State, ctx: Context, player: Any, kind: str = "draw1") -> list[kev.Event]:
    """The draw phase's one draw skill: ``draw1`` or ``fill`` (up to the fill size)."""
    n = ctx.numbers
    i = who(state, player)
    require_active(state, i, N_("draw skill"))
    require_phase(state, ctx, (DRAW,), N_("the draw skill"))
    if kind not in DRAW_SKILLS:
        raise IllegalCommand(_("unknown draw skill {kind!r}; choose {DRAW_SKILLS}").format(kind=kind, DRAW_SKILLS=', '.join(DRAW_SKILLS)))
    p = state.players[i]
    if p.draw_skills_used >= n.draw_skills_per_turn:
        raise IllegalCommand(_("{name} already used the draw skill this turn ({draw_skills_per_turn} per turn)").format(name=p.name, draw_skills_per_turn=n.draw_skills_per_turn))
    cards = 1 if kind == "draw1" else max(0, n.draw_skill_fill_to - p.hand)
    used = ev.SkillUsed(player=i, kind=kind, draw_skill=True, reason=f"抽牌技能：{DRAW_SKILLS[kind]}")
    return [used] + _draw(Batch(state).emit(used).state, i, cards, ctx, f"抽牌技能（{DRAW_SKILLS[kind]}）")


@COMMANDS.command(Param.player(), Param("kind", "text", N_("send{n.in_turn_skill_discard_small}, "
                                        "send{n.in_turn_skill_discard_large}, sendall or pierce.")),
                  label="回合内技能", labels={'kind': '技能'}, help=N_("An in-turn skill (at most {n.in_turn_skills_per_turn} different ones per turn)."),
                  examples=("skill A send2",))
def skill(state: State, ctx: Context, player: Any, kind: str) -> list[kev.Event]:
    """An in-turn skill (send2, send3, sendall, pierce), at most the per-turn limit."""
    n = ctx.numbers
    i = who(state, player)
    require_active(state, i, N_("in-turn skill"))
    require_phase(state, ctx, (MAIN,), N_("in-turn skills"))
    skills = in_turn_skills(n)
    if kind not in skills:
        raise IllegalCommand(_("unknown in-turn skill {kind!r}; choose {skills}").format(kind=kind, skills=', '.join(skills)))
    label, k = skills[kind]
    p = state.players[i]
    if p.in_turn_skills_used >= n.in_turn_skills_per_turn:
        raise IllegalCommand(_("{name} used {in_turn_skills_used}/{in_turn_skills_per_turn} in-turn skills this turn").format(name=p.name, in_turn_skills_used=p.in_turn_skills_used, in_turn_skills_per_turn=n.in_turn_skills_per_turn))
    if kind in p.in_turn_skill_kinds:
        # RULES.md 2026-12: "最多只能执行其中2个选项" — two different options, not one twice.
        raise IllegalCommand(_("{name} already used {kind} this turn; in-turn skills are different options").format(name=p.name, kind=kind))
    used = ev.SkillUsed(player=i, kind=kind, draw_skill=False,
                        reason=f"回合内技能{p.in_turn_skills_used + 1}/{n.in_turn_skills_per_turn}：{label}")
    batch = Batch(state).emit(used)
    if k:
        if p.hand < k:
            raise IllegalCommand(_("{name} has {hand} card(s) in hand; {kind} needs {k}").format(name=p.name, hand=p.hand, kind=kind, k=k))
        batch.emit(ev.CardsMoved(player=i, source="hand", dest="netherworld", count=k, reason=label))
        batch.emit(*_draw(batch.state, i, 1, ctx, label))
    elif kind == "sendall":
        if p.netherworld < 1 and p.hand < 1:
            raise IllegalCommand(_("{name} has no hand and no face-up card in the netherworld").format(name=p.name))
        if p.hand:
            batch.emit(ev.CardsMoved(player=i, source="hand", dest="netherworld", count=p.hand, reason=label))
        gain_to_hand(batch, ctx, i, "netherworld", 1, "从幽冥取回1张")
    return batch.events


# ---------------------------------------------------------------------------- fighters enter


def _room_for_a_fighter(state: State, ctx: Context, i: int) -> None:
    """RULES.md 2026-12: at most ``max_fighters`` per side by any route; assists do not count."""
    limit = ctx.numbers.max_fighters
    if fighter_count(state, i) >= limit:
        raise IllegalCommand(_("{name} has {fighter_count} fighters on the field (at most {limit})").format(name=state.players[i].name, fighter_count=fighter_count(state, i), limit=limit))


def _has_hand(state: State, i: int) -> None:
    if state.players[i].hand < 1:
        raise IllegalCommand(_("{name} has no card in hand").format(name=state.players[i].name))


def _entered(state: State, i: int, card: Any, source: str, stance: str, why: str,
             from_face_down: bool = False) -> ev.FighterEntered:
    rank, atk, grd = card_numbers(card)
    return ev.FighterEntered(player=i, piece=next_piece_id(state, i), card=card.id, name=card.name, rank=rank,
                             attack=atk, guard=grd, source=source, from_face_down=from_face_down, stance=stance,
                             attacks=ATTACKS_PER_DESCENT, reason=why)


@COMMANDS.command(Param.player(), Param.card(help=N_("The card from the hand (id or name, from the deck list).")),
                  Param("guard", "flag", N_("Descend in guard state (sideways)."), False, option=True),
                  label="降临", labels={"guard": "守卫"},
                  help=N_("Descend a rank 0–{n.direct_descent_max_rank} card from the hand as a fighter "
                       "({n.descents_per_turn} per turn, at most {n.max_fighters} fighters); it gains one attack "
                       "this turn."),
                  examples=("descend A 剑童", "descend B mortar --guard"))
def descend(state: State, ctx: Context, player: Any, card: Any, guard: bool = False) -> list[kev.Event]:
    n = ctx.numbers
    i = who(state, player)
    require_active(state, i, N_("descent"))
    require_phase(state, ctx, (MAIN,), N_("descents"))
    c = deck_card(state, ctx, i, card)
    rank = card_numbers(c)[0]
    p = state.players[i]
    if rank > n.direct_descent_max_rank:
        raise IllegalCommand(_("{name} is rank {rank}: it cannot descend directly (rank ≤ {direct_descent_max_rank}); rank it up onto a ready fighter of rank {rank2} (rank-up)").format(name=c.name, rank=rank, direct_descent_max_rank=n.direct_descent_max_rank, rank2=rank - 1))
    if p.descents_used >= n.descents_per_turn:
        raise IllegalCommand(_("{name} used {descents_used}/{descents_per_turn} descents this turn").format(name=p.name, descents_used=p.descents_used, descents_per_turn=n.descents_per_turn))
    _room_for_a_fighter(state, ctx, i)
    _has_hand(state, i)
    stance = GUARD if guard else READY
    return [ev.DescentMade(player=i, rank=rank, reason=f"降临{p.descents_used + 1}/{n.descents_per_turn}"),
            _entered(state, i, c, "hand", stance, f"{c.name}（阶级{rank}）以{STANCE_NAMES[stance]}状态降临")]


@COMMANDS.command(Param.player(), Param.card(help=N_("The higher-rank card from the hand.")),
                  Param.piece("fighter", N_("The ready fighter of one rank less it goes on."), label="主战者"),
                  label="升阶",
                  help=N_("Rank up: a card from the hand onto your ready fighter of exactly one rank less. "
                       "Unlimited, not a descent; the fighter keeps its id and assists, the covered card becomes a "
                       "source card, and it gains one attack this turn."),
                  examples=("rank-up A 剑灵 A1",))
def rank_up(state: State, ctx: Context, player: Any, card: Any, fighter: Any) -> list[kev.Event]:
    i = who(state, player)
    require_active(state, i, N_("rank up"))
    require_phase(state, ctx, (MAIN,), N_("ranking up"))
    c = deck_card(state, ctx, i, card)
    rank, atk, grd = card_numbers(c)
    f = own_fighter(state, fighter, owner=i)
    if rank < 1:
        raise IllegalCommand(_("{name} is rank 0: there is no fighter of a rank below it to rank up onto").format(name=c.name))
    if f.rank != rank - 1:
        raise IllegalCommand(_("{name} (rank {rank}) ranks up onto a fighter of rank {rank2}; {id} {name2} is rank {rank3}").format(name=c.name, rank=rank, rank2=rank - 1, id=f.id, name2=f.name, rank3=f.rank))
    if f.stance != READY:
        raise IllegalCommand(_("rank-up needs a ready fighter; {id} {name} is in guard state").format(id=f.id, name=f.name))
    _has_hand(state, i)
    return [ev.FighterRankedUp(player=i, piece=f.id, card=c.id, name=c.name, rank=rank, attack=atk, guard=grd,
                               attacks=ATTACKS_PER_DESCENT,
                               reason=f"升阶：{c.name}（阶级{rank}）叠放在{f.id} {f.name}（阶级{f.rank}）上，"
                                      f"{f.name}成为本源牌（不消耗降临次数）")]


@COMMANDS.command(Param.player(), Param.card(help=N_("The card from the hand that assists.")),
                  Param.piece("fighter", N_("Your fighter it stands behind."), label="主战者"),
                  label="协助",
                  help=N_("Place a card from the hand behind your fighter as its assist: the assists' ranks together "
                       "may not exceed the fighter's assist limit (its rank); their bonuses add to its attack and "
                       "guard (never below 0)."),
                  examples=("assist A 盾兵 A2",))
def assist(state: State, ctx: Context, player: Any, card: Any, fighter: Any) -> list[kev.Event]:
    i = who(state, player)
    require_active(state, i, N_("assist"))
    require_phase(state, ctx, (MAIN,), N_("assists"))
    c = deck_card(state, ctx, i, card)
    rank = card_numbers(c)[0]
    f = own_fighter(state, fighter, owner=i)
    used = assist_ranks(state, f)
    if used + rank > f.rank:
        raise IllegalCommand(_("{id} {name}'s assist limit is {rank} (its rank); its assists have ranks {used} together, {name2} (rank {rank2}) would make {used2}").format(id=f.id, name=f.name, rank=f.rank, used=used, name2=c.name, rank2=rank, used2=used + rank))
    _has_hand(state, i)
    bonus_atk, bonus_grd = c.get("assist_attack") or 0, c.get("assist_guard") or 0
    return [ev.AssistPlaced(player=i, piece=next_piece_id(state, i), fighter=f.id, card=c.id, name=c.name, rank=rank,
                            attack_bonus=bonus_atk, guard_bonus=bonus_grd,
                            reason=f"{c.name}协助{f.id} {f.name}（协助加成{bonus_atk:+d}/{bonus_grd:+d}，"
                                   f"协助阶级{used + rank}/{f.rank}）")]


@COMMANDS.command(Param.piece("fighter", N_("Your fighter."), label="主战者"),
                  Param("stance", "choice", N_("ready or guard."), choices=STANCES, choice_labels=tuple(STANCE_NAMES[s] for s in STANCES)),
                  Param.why(),
                  label="切换状态", labels={"stance": "状态"},
                  help=N_("Turn a fighter to guard (or ready). By the rules a ready fighter with an attack left may "
                       "turn to guard in your main phase; any other switch is a card effect: name it with --why."),
                  examples=("stance A1 guard", 'stance A1 ready --why "某卡效果"'))
def stance(state: State, ctx: Context, fighter: Any, stance: str, why: str = "") -> list[kev.Event]:
    f = own_fighter(state, fighter)
    if f.stance == stance:
        raise IllegalCommand(_("{id} {name} is already in {stance} state").format(id=f.id, name=f.name, stance=stance))
    why = str(why).strip()
    if not why:
        require_active(state, f.owner, N_("turning a fighter"))
        require_phase(state, ctx, (MAIN,), N_("turning a fighter"))
        if stance == READY:
            raise IllegalCommand(_("the rules give no way from guard back to ready; a card effect that does it: say which with --why"))
        if f.attacks_left < 1:
            # The seed: a ready fighter with no attack left "也不能自发变为守卫状态".
            raise IllegalCommand(_("{id} {name} has no attack left this turn, so it cannot turn to guard of its own accord (a card effect: --why)").format(id=f.id, name=f.name))
    return [ev.StanceChanged(player=f.owner, piece=f.id, name=f.name, stance=stance,
                             reason=why or "主动转为守卫状态")]


@COMMANDS.command(Param.piece("fighter", N_("The fighter the effect changes."), label="主战者"),
                  Param("attack", "signed", N_("Change of its attack, e.g. +2 or -3."), 0, option=True, label="攻击力"),
                  Param("guard", "signed", N_("Change of its guard."), 0, option=True, label="守卫力"),
                  Param.count("attacks", N_("Attacks more this turn."), 0, minimum=0, option=True),
                  Param("lasting", "flag", N_("While it stays on the field (default: this turn only)."), False,
                        option=True, label="持续"),
                  Param("why", "text", N_("The card whose effect it is."), option=True, label="原因"),
                  label="效果增减", labels={"attacks": "攻击次数"},
                  help=N_("A card effect changes a fighter's attack or guard (this turn, or --lasting) or gives it "
                       "more attacks this turn; its numbers never go below 0."),
                  examples=('boost A1 --attack +2 --why "纸符"', 'boost B2 --guard -3 --why "冥火"',
                            'boost A3 --attacks 1 --why "剑圣：变回战备状态，可再攻击1次"'))
def boost(state: State, ctx: Context, fighter: Any, why: str, attack: Any = 0, guard: Any = 0, attacks: Any = 0,
          lasting: bool = False) -> list[kev.Event]:
    f = own_fighter(state, fighter)
    why = str(why).strip()
    if not why:
        raise IllegalCommand(_("boost: say which card's effect it is with --why"))
    atk, grd, more = int(attack), int(guard), count(attacks, N_("attacks"), minimum=0)
    if not (atk or grd or more):
        raise IllegalCommand(_("boost: give --attack, --guard or --attacks (a change of 0 changes nothing)"))
    if more and lasting:
        raise IllegalCommand(_("extra attacks are for this turn only; --lasting is for attack and guard"))
    return [ev.FighterBoosted(player=f.owner, piece=f.id, name=f.name, attack=atk, guard=grd, attacks=more,
                              this_turn=not lasting, reason=why)]


# ---------------------------------------------------------------------------- combat


@COMMANDS.command(Param.piece("fighter", N_("Your ready fighter that attacks."), label="攻击者"),
                  Param.piece("target", N_("The opponent's fighter it attacks."), label="目标"),
                  Param("pierce", "tristate", N_("This attack pierces (default: if the pierce skill is pending; "
                        "--pierce for a card's 贯穿, --pierce no to not pierce)."), None, option=True, label="贯穿"),
                  label="攻击",
                  help=N_("Attack with a ready fighter, resolved from the pieces' current numbers: ready vs ready the "
                       "lower attack dies (both on a tie or less) and its player takes the difference; vs guard the "
                       "target is wounded or slain, no damage unless piercing; a wounded target dies; every assist "
                       "of the target dies; the attacker turns to guard when its attacks run out. Damage the first "
                       "player deals on the first turn is {n.first_turn_battle_damage}."),
                  examples=("attack A1 B2", "attack A3 B1 --pierce"))
def attack(state: State, ctx: Context, fighter: Any, target: Any, pierce: bool | None = None) -> list[kev.Event]:
    f = own_fighter(state, fighter, what=N_("attacking fighter"))
    i = f.owner
    require_active(state, i, N_("attack"))
    require_phase(state, ctx, (MAIN,), N_("attacks"))
    j = state.other(i)
    me, foe = state.players[i], state.players[j]
    if not fighters_of(state, j):
        raise IllegalCommand(_("{foe_name} has no fighter to attack; the rules have no direct attack on a player (a card effect that allows one: life {foe_name} -N --why …)").format(foe_name=foe.name))
    t = own_fighter(state, target, what=N_("target"))
    if t.owner == i:
        raise IllegalCommand(_("{id} {name} is {me_name}'s own fighter; attack one of {foe_name}'s").format(id=t.id, name=t.name, me_name=me.name, foe_name=foe.name))
    if f.stance != READY:
        raise IllegalCommand(_("only ready fighters attack; {id} {name} is in guard state").format(id=f.id, name=f.name))
    if f.attacks_left < 1:
        raise IllegalCommand(_("{id} {name} has no attack left this turn (a fighter gains {ATTACKS_PER_DESCENT} when it descends or ranks up)").format(id=f.id, name=f.name, ATTACKS_PER_DESCENT=ATTACKS_PER_DESCENT))
    atk = attack_of(state, f)
    vs_guard = t.stance == GUARD
    value = guard_of(state, t) if vs_guard else attack_of(state, t)
    pending = me.pierce
    pierces = pending if pierce is None else bool(pierce)
    out = resolve_attack(atk, value, vs_guard, pierces, t.wounded)
    summary = f"{f.id} {f.name} → {t.id} {t.name}，{out.explanation}"
    if pending and not pierces:
        summary += "；本回合的贯穿未用于这次攻击"
    batch = Batch(state).emit(ev.AttackResolved(player=i, summary=summary, pierce_used=pending,
                                                attacker=f.id, target=t.id, reason=f"{me.name}发起攻击"))
    for a in assists_of(batch.state, t.id):
        batch.emit(ev.PieceLeft(player=j, piece=a.id, name=a.name, dest="netherworld", how="slain",
                                reason=f"{t.id} {t.name}被攻击：其协助牌全部战死"))
    if out.target_dies:
        leave(batch, ctx, t.id, "slain", why="被攻击的主战者战死")
    else:
        if out.target_wounded and not t.wounded:
            batch.emit(ev.FighterWounded(player=j, piece=t.id, name=t.name, reason="攻击力不大于守卫力"))
        if out.guard_drop:
            batch.emit(ev.GuardLowered(player=j, piece=t.id, name=t.name, amount=out.guard_drop,
                                       reason="贯穿：本回合守卫力下降攻击力的数值"))
    if out.attacker_dies:
        leave(batch, ctx, f.id, "slain", why="攻击的主战者战死")
    if out.damage_to and out.damage:
        k = i if out.damage_to == "attacker" else j
        amount, why = first_turn_damage(state, ctx, k, out.damage)
        batch.emit(ev.LifeChanged(player=k, delta=-amount, reason=why))
    if not out.attacker_dies and batch.state.piece(f.id).attacks_left < 1:
        # The seed: a ready fighter whose attacks drop to 0 by attacking turns to guard.
        batch.emit(ev.StanceChanged(player=i, piece=f.id, name=f.name, stance=GUARD,
                                    reason="攻击次数变为0，转为守卫状态"))
    return batch.events


# ---------------------------------------------------------------------------- pieces leave


def _leaves(how: str, label: str, help: str, example: str):
    @COMMANDS.command(Param.piece(help=N_("The fighter or assist (A3, or its card's name).")), Param.why(),
                      label=label, help=help, examples=(example,), name={"destroyed": "destroy",
                                                                          "annihilated": "annihilate"}.get(how, how))
    def command(state: State, ctx: Context, piece: Any, why: str = "") -> list[kev.Event]:
        p = find_piece(state, piece)
        batch = Batch(state)
        leave(batch, ctx, p.id, how, face_down=how == "annihilated", why=str(why).strip())
        return batch.events

    return command


slain = _leaves("slain", "主战者战死", N_("A fighter or assist dies (战死): to the netherworld face up, with a fighter's "
                "assists and source cards."), "slain B2")
destroy = _leaves("destroyed", "消灭", N_("A card effect destroys a fighter or assist (消灭): to the netherworld face up, "
                  "with a fighter's assists and source cards."), 'destroy B2 --why "迫击炮！！！"')
annihilate = _leaves("annihilated", "湮灭", N_("A card effect annihilates a fighter or assist (湮灭): to the netherworld "
                     "face down (counted apart); a fighter's assists and source cards go face up."),
                     'annihilate B2 --why "某卡效果"')


# ---------------------------------------------------------------------------- card effects


@COMMANDS.command(Param.player(), Param("source", "choice", N_("deck, hand, field, netherworld or removed."), choices=ZONES,
                        choice_labels=ZONE_LABELS),
                  Param("dest", "choice", N_("deck, hand, field, netherworld or removed."), choices=ZONES,
                        choice_labels=ZONE_LABELS),
                  Param.count("cards", N_("How many."), 1),
                  Param.card(help=N_("Onto the field: the card that enters as a fighter."), default=None, option=True),
                  Param.piece(help=N_("From the field: the piece that leaves."), default=None, option=True),
                  Param("face_down", "flag", N_("The netherworld's face-down side: into it (annihilated), out of it, "
                        "or netherworld → netherworld to turn cards face down."), False, option=True),
                  Param("guard", "flag", N_("Onto the field in guard state."), False, option=True),
                  Param.why(),
                  label="移动卡牌", labels={'source': '从', 'dest': '到', 'cards': '张数', 'face_down': '背面',
                                          'guard': '守卫'},
                  help=N_("Move cards between zones by a card effect. Onto the field name the --card (at most "
                       "{n.max_fighters} fighters; not a descent); off the field name the --piece; into the hand "
                       "obeys the hand limit of {n.hand_limit}."),
                  examples=('move A netherworld hand 1 --why "revive"', 'move A deck field --card 剑童 --why "效果"',
                            'move B field hand --piece B2', 'move A netherworld netherworld 2 --face-down'))
def move(state: State, ctx: Context, player: Any, source: str, dest: str, cards: Any = 1, card: Any = None,
         piece: Any = None, face_down: bool = False, guard: bool = False, why: str = "") -> list[kev.Event]:
    i = who(state, player)
    k = count(cards, N_("cards"))
    for z in (source, dest):
        if z not in ZONES:
            raise IllegalCommand(_("unknown zone {z!r}; zones: {ZONES}").format(z=z, ZONES=', '.join(ZONES)))
    if source == dest and not (source == "netherworld" and face_down):
        raise IllegalCommand(_("moving cards from {source} to {source} changes nothing").format(source=source))
    if face_down and "netherworld" not in (source, dest):
        raise IllegalCommand(_("--face-down is for the netherworld (annihilated cards lie there face down)"))
    if "field" in (source, dest) and k != 1:
        raise IllegalCommand(_("cards enter and leave the field one by one: name each --card or --piece"))
    if card not in (None, "") and dest != "field":
        raise IllegalCommand(_("--card names a card that enters the field; move … field --card …"))
    if piece not in (None, "") and source != "field":
        raise IllegalCommand(_("--piece names a piece that leaves the field; move … field … --piece …"))
    why = str(why).strip() or "卡牌效果"
    p = state.players[i]
    batch = Batch(state)
    if source == "field":
        if piece in (None, ""):
            raise IllegalCommand(_("which piece leaves the field? --piece A3"))
        gone = find_piece(state, piece, owner=i)
        how = {"netherworld": "annihilated" if face_down else "sent", "removed": "removed"}.get(dest, "returned")
        leave(batch, ctx, gone.id, how, dest=dest, face_down=face_down, why=f"{why}：{HOW[how]}")
        return batch.events
    if dest == "field":
        if card in (None, ""):
            raise IllegalCommand(_("which card enters the field? --card NAME"))
        _room_for_a_fighter(state, ctx, i)
    from_face_down = face_down and source == "netherworld" and dest != "netherworld"
    have = getattr(p, "netherworld_face_down" if from_face_down else source)
    if have is not None and have < k:
        raise IllegalCommand((_("{name} has {have} card(s) in {source} face down") if from_face_down
                              else _("{name} has {have} card(s) in {source}")).format(name=p.name, have=have, source=source))
    if dest == "field":
        c = deck_card(state, ctx, i, card)
        stance = GUARD if guard else READY
        return [_entered(state, i, c, source, stance, f"{why}：{c.name}以{STANCE_NAMES[stance]}状态上场（不消耗降临次数）",
                         from_face_down)]
    if dest == "hand":
        gain_to_hand(batch, ctx, i, source, k, why, from_face_down)
        return batch.events
    return [ev.CardsMoved(player=i, source=source, dest=dest, count=k, face_down=face_down and dest == "netherworld",
                          from_face_down=from_face_down, reason=why)]


@COMMANDS.command(Param.player(), Param("delta", "signed", N_("Change, e.g. -3 or +2.")), Param.why(),
                  label="生命变化", labels={'delta': '变化'}, help=N_("Change a player's life by an effect (0 loses)."), examples=('life B -3 --why "fighter effect"',))
def life(state: State, ctx: Context, player: Any, delta: Any, why: str = "") -> list[kev.Event]:
    """Change a player's life by an effect: ``-3`` or ``+2``."""
    i = who(state, player)
    return [ev.LifeChanged(player=i, delta=signed(delta, N_("life change")), reason=why or "卡牌效果")]


@COMMANDS.command(Param.player(), Param.count("amount", N_("Battle damage taken."), minimum=0),
                  label="战斗伤害", labels={'amount': '伤害'}, help=N_("A player takes battle damage by a card effect (`attack` "
                       "applies its own; damage the first player deals on the first turn is "
                       "{n.first_turn_battle_damage})."),
                  examples=("battle B 4",))
def battle(state: State, ctx: Context, player: Any, amount: Any) -> list[kev.Event]:
    """``player`` takes battle damage; it is 0 on the first player's very first turn."""
    i = who(state, player)
    n = count(amount, N_("battle damage"), minimum=0)
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


def player_json(p: Player, state: State, ctx: Context) -> dict[str, Any]:
    n = ctx.numbers
    i = state.players.index(p)
    return {
        "life": p.life, "deck": p.deck, "hand": p.hand,
        "fighters": [fighter_json(state, f) for f in fighters_of(state, i)],
        "fighter_count": fighter_count(state, i), "field_cards": cards_on_field(state, i), "netherworld": p.netherworld,
        "netherworld_face_down": p.netherworld_face_down, "removed": p.removed,
        "max_fighters": n.max_fighters, "hand_limit": n.hand_limit,
        "descents_used": p.descents_used, "descents_per_turn": n.descents_per_turn,
        "in_turn_skills_used": p.in_turn_skills_used, "in_turn_skills_per_turn": n.in_turn_skills_per_turn,
        "draw_skill_used": p.draw_skills_used >= n.draw_skills_per_turn, "draw_skills_used": p.draw_skills_used,
        "draw_skills_per_turn": n.draw_skills_per_turn, "pierce": p.pierce,
    }


def state_json(state: State, ctx: Context) -> dict[str, Any]:
    return {"first_turn": is_first_turn(state)}


def board_lines(s: dict[str, Any], ctx: Context) -> list[str]:
    """The game's part of the text board, from ``status_json`` (``s``): each player, then their fighters."""
    out = []
    for p in s["players"]:
        out.append(f"{_mark(p, s)} {p['name']}: 生命 {p['life']} | 牌库 {p['deck']} 手牌 {p['hand']}/{p['hand_limit']} "
                   f"场上 {p['fighter_count']}/{p['max_fighters']}名（{p['field_cards']}张） "
                   f"幽冥 {p['netherworld']}（背面 {p['netherworld_face_down']}）"
                   + (f" 除外 {p['removed']}" if p["removed"] else "")
                   + f" | 降临 {p['descents_used']}/{p['descents_per_turn']} "
                   f"技能 {p['in_turn_skills_used']}/{p['in_turn_skills_per_turn']} "
                   f"抽牌技能 {'已用' if p['draw_skill_used'] else '未用'}" + (" 贯穿" if p["pierce"] else ""))
        out += [f"    {fighter_line(f)}" for f in p["fighters"]]
    return out


#: Older stores wrote this game's setup into ``GameStarted`` itself (see ``engine.tracker.events``).
LEGACY_SETUP = ev.DecksCounted
