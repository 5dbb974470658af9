"""Rhodes Island Defense Manoeuvre (罗德岛防御作战演习) at the table: the operators on the board,
sanity, charges and skill timers.

The board (``board.py``): each side's deploy and action zone, one operator each (game.yaml's zone
capacities), on one lane. Operators enter by card from the deck list with their printed attack,
defense and block; each attacks once **or** moves one zone per turn, never moves on the turn it
was deployed (it may attack: RULES.md 2026-12), and a routed one does neither.

Combat (``fight``) from the pieces' current values: attack < defense → the attacker loses
``block_loss`` block; attack ≥ defense → the defender does, and attack > the defender's attack +
defense also routes it. Block is an operator's durability (game.yaml: 阻挡 = 耐久) and never goes
below 0: an operator worn down to 0 block has lost its fighting ability, so it is routed too.

Phases, where the seed orders them: the turn-start draw comes first, so board actions (deploy,
move, fight, the skill-slot charge, skills) wait for the action phase — ``next`` out of 回合开始 is the draw
(the tracker draws it when it counts the hand, below). Withdrawing, replacing and taking from the
preparation zone are also allowed in the end phase of one's turn.

Hand and deck sizes (``counts.py``), for each player whose deck list was given at ``track new``
(``state.decks``); without one they are not counted (shown as —) and nothing is refused for them.
The draw pile is the whole deck: the seed sets nothing aside ("双方牌组洗牌，然后各自抽取5张牌作为起始
手牌"), so it starts at the deck's size less game.yaml's ``opening_hand``, drawn at once. Every turn's
start draws ``draw_per_turn`` (on ``next`` out of 回合开始); the seed says nothing of an empty draw
pile, so that draw takes what is left (none: logged, no loss), and an effect's ``draw`` that asks
for more than is left is refused. From the hand: every deployment (also by effect, and a
replacement), a face-down charge (one card each; ``--by-effect`` charges take none), the
skill-slot charge, a skill activated (its card covers the operator), an action card; each refused
on an empty hand. Into the hand: the optional draw after a face-down charge (``charge --draw``),
the skill-slot charge's search for its operator (``charge-skill --search``), the preparation zone
(``take``), an operator a card effect returns (``withdraw --by-effect --to hand``). To the discard:
routed operators at their owner's turn end, ended skills, played actions, the cards that paid a
skill's charges. Other card effects: ``draw`` and ``transfer PLAYER FROM TO N`` (deck, hand, discard).

At the end of each turn (leaving the end phase): the active player's skill timers tick and the
skills at ≤ 0 go to the discard; the active player's routed operators still on the board go to
the discard (their skills with them); then every player with an opposing operator in their deploy
zone loses sanity — read from the board. Sanity 0 or less loses. Card effects are commands too,
since the rules cannot know them: ``deploy --by-effect`` (not the turn's deployment, any own zone),
``fight --by-effect`` (an extra attack), ``move --by-effect`` (on the deploy turn), ``withdraw
--by-effect`` (routed or not), ``adjust`` (attack, defense, block) and ``sanity``.
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
from typing import TYPE_CHECKING, Any, Mapping

from ...tracker import events as kev
from ...tracker.core import Batch, Context, IllegalCommand, count, require_active, require_phase, signed, who
from ...tracker.kit import Commands, Param
from ...tracker.kit import turn_mark as _mark
from ...tracker.pieces import check_copies, find_card, pick
from ...tracker.state import next_piece_id
from . import board
from . import counts
from . import events as ev
from . import sentences  # noqa: F401 - imported to register the game's log lines
from . import view
from .state import RidmOperator, RidmPlayer as Player, RidmState as State, operators

if TYPE_CHECKING:  # the types only: reading cards and decks is not every command's work
    from ...decks import Deck

RULESET = "ridm"
COMMANDS = Commands(RULESET)
SKILL = Param("skill", "text", N_("Skill card id or name."), metavar="SKILL")
STATS = ("attack", "defense", "block")
STAT_NAMES = {"attack": "攻击", "defense": "防御", "block": "阻挡"}
STAT_LABELS = tuple(STAT_NAMES[s] for s in STATS)


def setup(ctx: Context, players: tuple[str, ...], first: int,
          decks: Mapping[int, Deck] | None = None) -> list[kev.Event]:
    n = ctx.numbers
    return [
        kev.GameStarted(game=ctx.defn.id, ruleset=RULESET, players=players, first=first,
                       starting=(("sanity", n.starting_sanity),), reason=f"开局：理智{n.starting_sanity}"),
        *counts.dealt(ctx, decks or {}),
        kev.ReminderGiven(text=f"开局：洗牌，各抽{n.opening_hand}张", reason="开局"),
    ]


def first_phase(state: State, ctx: Context) -> str:
    return ctx.defn.phases[0].id


def on_turn_begin(state: State, ctx: Context) -> list[kev.Event]:
    return []


def _last(ctx: Context) -> str:
    return ctx.defn.phases[-1].id


def _acting(ctx: Context) -> tuple[str, ...]:
    """The phases between the turn-start draw and the turn end: where the board is played."""
    return tuple(p.id for p in ctx.defn.phases[1:-1])


def _own_turn(ctx: Context) -> tuple[str, ...]:
    """After the draw, until the turn ends: withdrawing, replacing, taking from the preparation zone."""
    return tuple(p.id for p in ctx.defn.phases[1:])


def _label(o: RidmOperator) -> str:
    return f"{o.id} {o.name}"


def timer_preview(state: State, ctx: Context, player: int) -> str:
    """"能天使·S2 剩2T→1T；… 到期" for the owner's timers as they will stand after this turn's tick."""
    tick = ctx.numbers.timer_tick
    bits = []
    for t in state.players[player].timers:
        after = t.left - tick
        who_ = f"{t.piece} {t.operator}" if t.piece else t.operator
        bits.append(f"{who_}·{t.skill} {t.left}T→" + ("到期" if after <= 0 else f"{after}T"))
    return "；".join(bits)


def invaded(state: State) -> list[tuple[int, RidmOperator]]:
    """(victim, invader) for every player whose deploy zone holds an opposing operator."""
    return [(i, o) for i in range(len(state.players)) for o in board.invaders(state, i)[:1]]


def on_enter(state: State, ctx: Context) -> list[kev.Event]:
    n = ctx.numbers
    me = state.players[state.active]
    phase = state.phase
    out: list[kev.Event] = []
    if phase == ctx.defn.phases[0].id:
        text = (f"{me.name}必须从牌组抽{n.draw_per_turn}张牌（进入下一阶段时自动抽，牌库{me.deck}）" if me.counted
                else f"{me.name}必须从牌组抽{n.draw_per_turn}张牌（抽完再进入下一阶段）")
        out.append(kev.ReminderGiven(text=text, player=state.active, reason=ctx.phase_name(phase)))
    elif phase == _last(ctx):
        preview = timer_preview(state, ctx, state.active)
        if preview:
            out.append(kev.ReminderGiven(text=f"技能计时：{preview}", player=state.active, reason=ctx.phase_name(phase)))
        routed = [_label(o) for o in operators(state) if o.owner == state.active and o.routed]
        gone = f"；横置干员{'、'.join(routed)}将送去弃置区（可先撤退或替换）" if routed else ""
        out.append(kev.ReminderGiven(text=f"准备区至多{n.prep_to_hand_max}张加入手牌{gone}",
                                    player=state.active, reason=ctx.phase_name(phase)))
        for i, o in invaded(state):
            if o.owner == state.active and o.routed:
                continue  # it leaves for the discard before the check
            out.append(kev.ReminderGiven(
                text=f"理智检查：{state.players[i].name}的部署区有敌方干员{_label(o)}，"
                     f"回合结束时理智−{n.sanity_loss_enemy_in_deploy}",
                player=i, reason="理智检查"))
    else:
        out.append(kev.ReminderGiven(
            text=f"主动部署{n.active_deployments_per_turn}次、技能槽充能{n.skill_slot_charges_per_turn}次；"
                 f"行动牌需理智≤要求（{me.name}理智{me.sanity}，充能{me.charges}）",
            player=state.active, reason=ctx.phase_name(phase)))
    return out


def _skill_leaves(state: State, o: RidmOperator, why: str) -> list[kev.Event]:
    t = board.covering(state, o)
    if t is None:
        return []
    return [ev.TimerExpired(player=o.owner, operator=t.operator, skill=t.skill, piece=o.id, reason=why)]


def on_exit(state: State, ctx: Context) -> list[kev.Event]:
    if state.phase == ctx.defn.phases[0].id:
        return counts.turn_draw(state, ctx)
    if state.phase != _last(ctx):
        return []
    n = ctx.numbers
    batch = Batch(state)
    me = state.players[state.active]
    if me.timers:
        batch.emit(ev.TimersTicked(player=state.active, amount=n.timer_tick,
                                   reason=f"{me.name}的回合结束：技能计时−{n.timer_tick}T"))
        for t in batch.state.players[state.active].timers:
            if t.left <= 0:
                batch.emit(ev.TimerExpired(player=state.active, operator=t.operator, skill=t.skill, piece=t.piece,
                                           reason="计时归零，技能送去弃置区"))
    for o in operators(batch.state):
        if o.owner == state.active and o.routed:
            batch.emit(*_skill_leaves(batch.state, o, "干员离场，技能送去弃置区"))
            batch.emit(ev.OperatorLeft(piece=o.id, to="discard", reason="回合结束：横置的己方干员送去弃置区"))
    for i, o in invaded(batch.state):
        batch.emit(ev.SanityChanged(player=i, delta=-n.sanity_loss_enemy_in_deploy,
                                    reason=f"回合结束理智检查：{state.players[i].name}的部署区有敌方干员{_label(o)}"))
    return batch.events


def losers(state: State, ctx: Context) -> list[tuple[int, str]]:
    return [(i, f"理智降至{p.sanity}") for i, p in enumerate(state.players) if p.sanity <= 0]


# ---------------------------------------------------------------------------- commands


@COMMANDS.command(Param.player(), Param("delta", "signed", N_("Change, e.g. -1 or +1.")), Param.why(),
                  label="理智变化", labels={'delta': '变化'}, help=N_("Change a commander's sanity by an effect (0 loses)."), examples=("sanity B -1",))
def sanity(state: State, ctx: Context, player: Any, delta: Any, why: str = "") -> list[kev.Event]:
    """Change a commander's sanity by an effect: ``-1`` or ``+1``."""
    i = who(state, player)
    return [ev.SanityChanged(player=i, delta=signed(delta, N_("sanity change")), reason=why or "卡牌效果")]


def _operator_card(state: State, ctx: Context, player: int, token: Any) -> Any:
    card = find_card(state, ctx, player, token, types=("operator",), what=N_("operator card"))
    standing = sum(1 for o in operators(state) if o.owner == player and o.card == card.id)
    check_copies(state, player, card, standing, "on the board")
    return card


def _enter(state: State, ctx: Context, player: int, card: Any, zone: str, active: bool, why: str,
           side: int | None = None) -> ev.OperatorDeployed:
    return ev.OperatorDeployed(
        player=player, operator=card.name, active=active, piece=next_piece_id(state, player), card=card.id,
        side=player if side is None else side, zone=zone, attack=int(card["attack"]),
        defense=int(card["defense"]), block=int(card["block"]), reason=why)


@COMMANDS.command(Param.player(), Param.card("operator", N_("Operator card id or codename (part of it will do)."), label="干员"),
                  Param("by_effect", "flag", N_("Deployed by a card effect (not counted)."), False, option=True),
                  Param("zone", "choice", N_("Own zone it enters (action: by card effect only)."), board.DEPLOY,
                        option=True, choices=(board.DEPLOY, board.ACTION),
                        choice_labels=(board.ZONE_NAMES[board.DEPLOY], board.ZONE_NAMES[board.ACTION])),
                  label="部署干员", labels={'by_effect': '卡牌效果部署', 'zone': '区域'},
                  help=N_("Deploy an operator from hand into your deploy zone "
                       "({n.active_deployments_per_turn} active deployment per turn; card effects don't count)."),
                  examples=("deploy A 能天使", "deploy A texas --by-effect"))
def deploy(state: State, ctx: Context, player: Any, operator: str, by_effect: bool = False,
           zone: str = board.DEPLOY) -> list[kev.Event]:
    """Deploy an operator from hand (one active deployment per turn; by card effect: unlimited).

    With card data the operator becomes a piece with its printed numbers in the player's zone;
    a game without card data (and old logs) only counts the deployment."""
    i = who(state, player)
    p = state.players[i]
    if not by_effect:
        require_active(state, i, N_("active deployment"))
        require_phase(state, ctx, _acting(ctx), N_("active deployment"))
        if zone != board.DEPLOY:
            raise IllegalCommand(_("operators are deployed into the deploy zone (other zones: by a card effect, --by-effect)"))
        limit = ctx.numbers.active_deployments_per_turn
        if p.deployments_used >= limit:
            raise IllegalCommand(_("{name} already made {deployments_used}/{limit} active deployment(s) this turn (deployments by card effects: --by-effect)").format(name=p.name, deployments_used=p.deployments_used, limit=limit))
    why = "卡牌效果部署（不计次数）" if by_effect else f"主动部署{p.deployments_used + 1}/{ctx.numbers.active_deployments_per_turn}"
    if not ctx.cards:  # no numbers to put a piece down with: count it, as before the board
        counts.require_hand(state, i, 1, N_("deploy an operator"))
        return [ev.OperatorDeployed(player=i, operator=str(operator), active=not by_effect, reason=why)]
    card = _operator_card(state, ctx, i, operator)
    counts.require_hand(state, i, 1, N_("deploy an operator"))
    board.require_room(state, ctx, i, zone)
    return [_enter(state, ctx, i, card, zone, not by_effect, why)]


def _mine_now(state: State, ctx: Context, o: RidmOperator, what: str, phases: tuple[str, ...]) -> None:
    require_active(state, o.owner, _("{what} {piece}").format(what=tr(what), piece=o.id))
    require_phase(state, ctx, phases, what)


def _can_act(state: State, o: RidmOperator, what: str, once: bool = True) -> None:
    """Refuse a routed operator; with ``once``, one that already attacked or moved this turn."""
    if o.routed:
        raise IllegalCommand(_("{o} is routed: it can neither move nor attack (withdraw or replace it)").format(o=_label(o)))
    if once and o.acted_turn == state.turn:
        raise IllegalCommand(_("{o} has already attacked or moved this turn (once per turn: attack or move)").format(o=_label(o)))


@COMMANDS.command(Param.piece("operator", N_("Operator piece (A1) or its codename."), label="干员"),
                  Param("zone", "choice", N_("Zone one step along the lane (relative to the operator's owner)."),
                        choices=tuple(board.ZONE_WORDS), choice_labels=board.ZONE_WORD_LABELS),
                  Param("by_effect", "flag", N_("A card effect lets it move on the turn it was deployed (推进之王)."),
                        False, option=True),
                  label="移动干员", labels={'zone': '目标区域', 'by_effect': '卡牌效果'},
                  help=N_("Move an operator one zone instead of attacking (not on the turn it was deployed). "
                       "Lane: deploy — action — enemy-action — enemy-deploy."),
                  examples=("move A1 action", "move A1 enemy-deploy"))
def move(state: State, ctx: Context, operator: str, zone: str, by_effect: bool = False) -> list[kev.Event]:
    o = board.operator(state, operator)
    _mine_now(state, ctx, o, N_("move"), _acting(ctx))
    _can_act(state, o, N_("move"))
    if o.deployed_turn == state.turn and not by_effect:
        raise IllegalCommand(_("{o} was deployed this turn: it may attack but not move until your next turn").format(o=_label(o)))
    to = board.destination(state, o, zone)
    if to == (o.side, o.zone):
        raise IllegalCommand(_("{o} already stands in {where}").format(o=_label(o), where=board.where(state, o)))
    if not board.adjacent(state, (o.side, o.zone), to):
        raise IllegalCommand(_("{o} moves one zone per turn: from {where} it cannot reach {name}'s {zone}").format(o=_label(o), where=board.where(state, o), name=state.players[to[0]].name, zone=board.ZONE_NAMES[to[1]]))
    board.require_room(state, ctx, *to)
    return [ev.OperatorMoved(piece=o.id, side=to[0], zone=to[1],
                             reason=f"移动1格：{board.where(state, o)}→{state.players[to[0]].name}的{board.ZONE_NAMES[to[1]]}")]


def exchange(state: State, ctx: Context, attacker: RidmOperator, defender: RidmOperator,
             counted: bool = True) -> list[kev.Event]:
    """The events of ``attacker`` attacking ``defender`` by the combat rules, from current values."""
    loss = ctx.numbers.block_loss
    atk, d, t = attacker.attack, defender.defense, defender.attack
    extra = "" if counted else "（卡牌效果追加攻击，不计次数）"
    out: list[kev.Event] = [ev.OperatorAttacked(attacker=attacker.id, defender=defender.id, attack=atk, defense=d,
                                                target_attack=t, counted=counted,
                                                reason=f"{_label(attacker)}攻击{_label(defender)}{extra}")]
    if atk < d:
        loser, why = attacker, f"攻击{atk} < 防御{d}：进攻失败"
        routs = False
    else:
        loser, why = defender, f"攻击{atk} ≥ 防御{d}：防守失败"
        routs = atk > t + d
    lost = min(loss, loser.block)  # block is durability: it stops at 0
    if lost:
        out.append(ev.BlockLost(piece=loser.id, amount=lost, reason=f"{why}，{_label(loser)}失去{lost}点阻挡"))
    if routs:
        out.append(ev.OperatorRouted(piece=loser.id, reason=f"攻击{atk} > 对方攻击{t}+防御{d}={t + d}：被击溃"))
    elif loser.block - lost <= 0:
        out.append(ev.OperatorRouted(piece=loser.id, reason="阻挡归零，失去战斗能力"))
    return out


@COMMANDS.command(Param.piece("attacker", N_("Your operator that attacks (A1)."), label="攻击者"),
                  Param.piece("defender", N_("The opposing operator it attacks (B2)."), label="被攻击者"),
                  Param("by_effect", "flag", N_("An extra attack a card effect grants (not the turn's one)."), False,
                        option=True),
                  label="干员攻击", labels={'by_effect': '卡牌效果'},
                  help=N_("An operator attacks an opposing one, once per turn instead of moving: attack < defense → "
                       "the attacker loses {n.block_loss} block; otherwise the defender does, and is routed when "
                       "attack > its attack + defense. Block 0 also routes."),
                  examples=("fight A1 B1",))
def fight(state: State, ctx: Context, attacker: str, defender: str, by_effect: bool = False) -> list[kev.Event]:
    a = board.operator(state, attacker, N_("attacker"))
    _mine_now(state, ctx, a, N_("attack"), _acting(ctx))
    _can_act(state, a, N_("attack"), once=not by_effect)
    d = board.operator(state, defender, N_("defender"))
    if d.owner == a.owner:
        raise IllegalCommand(_("{a} cannot attack {d}: both are {name}'s").format(a=_label(a), d=_label(d), name=state.players[a.owner].name))
    if d.routed:
        raise IllegalCommand(_("{d} is already routed").format(d=_label(d)))
    return exchange(state, ctx, a, d, counted=not by_effect)


@COMMANDS.command(Param.count("attack", N_("Attacker's attack."), minimum=0),
                  Param.count("defense", N_("Defender's defense."), minimum=0),
                  Param.count("target_attack", N_("Defender's attack (for routing)."), minimum=0),
                  label="交战推演", labels={'attack': '攻击', 'defense': '防御', 'target_attack': '对方攻击'},
                  help=N_("Work out an exchange from numbers: who loses block, and whether the defender is routed "
                       "(changes nothing; fight applies it to the pieces)."),
                  examples=("odds 6 3 2",), query=True)
def odds(state: State, ctx: Context, attack: Any, defense: Any, target_attack: Any) -> tuple[bool, str]:
    """Work out one exchange by the combat rules, changing nothing. Returns (True, explanation)."""
    atk = count(attack, N_("attack"), minimum=0)
    d = count(defense, N_("defense"), minimum=0)
    t = count(target_attack, N_("target's attack"), minimum=0)
    loss = ctx.numbers.block_loss
    if atk < d:
        return True, f"攻击{atk} < 防御{d}：进攻失败，攻击者失去{loss}点阻挡"
    text = f"攻击{atk} ≥ 防御{d}：防守失败，被攻击者失去{loss}点阻挡"
    if atk > t + d:
        text += f"；攻击{atk} > 对方攻击{t}+防御{d}={t + d}：被攻击者被击溃（横置）"
    return True, text


def _routed_mine(state: State, ctx: Context, token: str, what: str, done: str) -> RidmOperator:
    o = board.operator(state, token)
    _mine_now(state, ctx, o, what, _own_turn(ctx))
    if not o.routed:
        raise IllegalCommand(_("only a routed operator can be {done}; {o} is not routed").format(done=tr(done), o=_label(o)))
    return o


@COMMANDS.command(Param.piece("operator", N_("Your routed operator (A1)."), label="干员"),
                  Param("by_effect", "flag", N_("A card effect returns it, routed or not (战术撤离)."), False, option=True),
                  Param("to", "choice", N_("Where it goes: the preparation zone, or (by a card effect) its owner's hand."),
                        "prep", option=True, choices=("prep", "hand"), choice_labels=("准备区", "手牌")),
                  label="撤退干员", labels={'by_effect': '卡牌效果', 'to': '去向'},
                  help=N_("On your turn, withdraw a routed operator to the preparation zone."),
                  examples=("withdraw A1", "withdraw A2 --by-effect", "withdraw B1 --by-effect --to hand"))
def withdraw(state: State, ctx: Context, operator: str, by_effect: bool = False, to: str = "prep") -> list[kev.Event]:
    if to == "hand" and not by_effect:
        raise IllegalCommand(_("a withdrawn operator goes to the preparation zone; to the hand only by a card effect (--by-effect --to hand)"))
    if by_effect:
        o = board.operator(state, operator)
        if to == "hand":
            return [*_skill_leaves(state, o, "干员离场，技能送去弃置区"),
                    ev.OperatorLeft(piece=o.id, to="hand", reason=f"卡牌效果：{_label(o)}返回手牌")]
        why = f"卡牌效果：{_label(o)}放回准备区"
    else:
        o = _routed_mine(state, ctx, operator, N_("withdraw"), N_("withdrawn"))
        why = f"撤退横置干员{_label(o)}至准备区"
    return [*_skill_leaves(state, o, "干员离场，技能送去弃置区"), ev.OperatorLeft(piece=o.id, to="prep", reason=why)]


@COMMANDS.command(Param.piece("operator", N_("Your routed operator (A1)."), label="干员"),
                  Param.card("card", N_("Operator card from hand that takes its place."), label="替换干员"),
                  label="替换干员",
                  help=N_("On your turn, replace a routed operator with one from hand (the routed one goes to the "
                       "preparation zone; the new one stands where it stood and is deployed this turn)."),
                  examples=("replace A1 星熊",))
def replace(state: State, ctx: Context, operator: str, card: str) -> list[kev.Event]:
    o = _routed_mine(state, ctx, operator, N_("replace"), N_("replaced"))
    new = _operator_card(state, ctx, o.owner, card)
    counts.require_hand(state, o.owner, 1, N_("replace an operator"))
    batch = Batch(state)
    batch.emit(*_skill_leaves(state, o, "干员离场，技能送去弃置区"),
               ev.OperatorLeft(piece=o.id, to="prep", reason=f"横置干员{_label(o)}被替换，放置于准备区"))
    # A replacement is its own action in the seed, not the turn's active deployment.
    batch.emit(_enter(batch.state, ctx, o.owner, new, o.zone, False, f"替换{_label(o)}（不计为主动部署）", side=o.side))
    return batch.events


@COMMANDS.command(Param.piece("operator", N_("Operator piece (A1)."), label="干员"),
                  Param("stat", "choice", N_("Which value."), choices=STATS, choice_labels=STAT_LABELS),
                  Param("delta", "signed", N_("Change, e.g. +2 or -1.")), Param.why(),
                  label="数值变化", labels={'stat': '数值', 'delta': '变化'},
                  help=N_("A card effect changes an operator's current attack, defense or block (never below 0; "
                       "block 0 routes)."),
                  examples=('adjust A1 attack +2 --why "源石技艺强化"',))
def adjust(state: State, ctx: Context, operator: str, stat: str, delta: Any, why: str = "") -> list[kev.Event]:
    o = board.operator(state, operator)
    change = max(signed(delta, _("{stat} change").format(stat=stat)), -getattr(o, stat))
    if change == 0:
        raise IllegalCommand(_("{o}'s {stat} is already 0").format(o=_label(o), stat=stat))
    out: list[kev.Event] = [ev.OperatorAdjusted(piece=o.id, stat=stat, delta=change, reason=why or "卡牌效果")]
    if stat == "block" and o.block + change == 0 and not o.routed:
        out.append(ev.OperatorRouted(piece=o.id, reason="阻挡归零，失去战斗能力"))
    return out


@COMMANDS.command(Param.player(), Param("card", "text", N_("Card in the preparation zone (name or part of it)."), label="卡牌"),
                  label="准备区加入手牌",
                  help=N_("At your turn end, take a card from the preparation zone to hand (at most {n.prep_to_hand_max})."),
                  examples=("take A 能天使",))
def take(state: State, ctx: Context, player: Any, card: str) -> list[kev.Event]:
    i = who(state, player)
    require_active(state, i, N_("taking from the preparation zone"))
    require_phase(state, ctx, (_last(ctx),), N_("taking from the preparation zone"))
    p, limit = state.players[i], ctx.numbers.prep_to_hand_max
    if p.prep_taken >= limit:
        raise IllegalCommand(_("{name} already took {limit} card(s) from the preparation zone this turn").format(name=p.name, limit=limit))
    name = pick(card, sorted(set(p.prep)), lambda c: (c,), _("card in {player}'s preparation zone").format(player=p.name))
    return [ev.PrepTaken(player=i, card=name, reason=f"准备区加入手牌 {p.prep_taken + 1}/{limit}")]


@COMMANDS.command(Param.player(), Param.count("cards", N_("How many."), 1), Param.why(),
                  label="抽牌", labels={'cards': '张数'},
                  help=N_("Draw by a card effect (refused when the deck holds fewer; the turn-start draw of "
                       "{n.draw_per_turn} is made by next)."),
                  examples=('draw A 2 --why "紧急补给"',))
def draw(state: State, ctx: Context, player: Any, cards: Any = 1, why: str = "") -> list[kev.Event]:
    i = who(state, player)
    return [counts.draw_event(state, i, count(cards, N_("cards to draw")), why or "卡牌效果抽牌")]


@COMMANDS.command(Param.player(), Param("source", "choice", N_("deck, hand or discard."), choices=tuple(counts.ZONE_NAMES),
                        choice_labels=tuple(counts.ZONE_NAMES.values())),
                  Param("dest", "choice", N_("deck, hand or discard."), choices=tuple(counts.ZONE_NAMES),
                        choice_labels=tuple(counts.ZONE_NAMES.values())),
                  Param.count("cards", N_("How many."), 1), Param.why(),
                  label="移动卡牌", labels={'source': '从', 'dest': '到', 'cards': '张数'},
                  help=N_("Move cards between the deck, the hand and the discard by a card effect "
                       "(operators on the board: deploy, withdraw)."),
                  examples=('transfer A discard hand 1 --why "回收"', 'transfer B hand discard 2 --why "弃牌"'))
def transfer(state: State, ctx: Context, player: Any, source: str, dest: str, cards: Any = 1,
             why: str = "") -> list[kev.Event]:
    i = who(state, player)
    return [counts.moved(state, i, source, dest, count(cards, N_("cards")), why or "卡牌效果")]


@COMMANDS.command(Param.player(), Param.count("cards", N_("Hand cards put face down."), 1),
                  Param.count("draw", N_("Cards drawn after charging (optional, at most one per card)."), 0, minimum=0,
                              option=True),
                  Param("by_effect", "flag", N_("Charges a card effect gives: no hand card is put down."), False,
                        option=True),
                  label="盖放充能", labels={'cards': '张数', 'draw': '抽牌', 'by_effect': '卡牌效果'},
                  help=N_("Charge with hand cards face down (+{n.charge_per_card} charge each, then you may draw 1 each: --draw)."),
                  examples=("charge A 2", "charge A 1 --draw 1", "charge A 1 --by-effect"))
def charge(state: State, ctx: Context, player: Any, cards: Any = 1, draw: Any = 0,
           by_effect: bool = False) -> list[kev.Event]:
    """Put hand cards face down into the charge slot: ``charge_per_card`` charges each, then draw 1 each."""
    i = who(state, player)
    # Left open as before the board: card effects charge too (紧急补给, 冲锋号角 at turn start),
    # and the store's tests lean on a command that is always legal.
    k = count(cards, N_("cards"))
    drawn = count(draw, N_("cards to draw"), minimum=0)
    gained = k * ctx.numbers.charge_per_card
    if by_effect:
        if drawn:
            raise IllegalCommand(_("the draw after charging follows hand cards put face down, not a card effect's charges"))
        return [ev.ChargeAdded(player=i, count=gained, reason=f"卡牌效果充能+{gained}")]
    if drawn > k:
        raise IllegalCommand(_("charging {k} card(s) lets {name} draw at most {k}").format(k=k, name=state.players[i].name))
    counts.require_hand(state, i, k, _("put {k} card(s) face down").format(k=k))
    out: list[kev.Event] = [ev.ChargeAdded(player=i, count=gained, from_hand=k,
                                           reason=f"盖放{k}张手牌充能+{gained}，然后可抽{k}张")]
    if drawn:
        out.append(counts.draw_event(state, i, drawn, "充能后抽牌"))
    return out


@COMMANDS.command(Param.player(), SKILL,
                  Param("search", "flag", N_("Then take the skill's operator from the deck into the hand (optional)."),
                        False, option=True),
                  label="技能槽充能", labels={'skill': '技能', 'search': '检索干员'},
                  help=N_("{n.skill_slot_charges_per_turn} per turn: a skill card from hand into the skill slot as a charge "
                       "(then you may search its operator: --search)."),
                  examples=('charge-skill A "S2 真银斩"', "charge-skill A amiya-s1 --search"))
def charge_skill(state: State, ctx: Context, player: Any, skill: str, search: bool = False) -> list[kev.Event]:
    """Once per turn: a skill card face up into the skill slot as a charge; search its operator."""
    i = who(state, player)
    require_active(state, i, N_("skill-slot charge"))
    require_phase(state, ctx, _acting(ctx), N_("skill-slot charge"))
    p = state.players[i]
    limit = ctx.numbers.skill_slot_charges_per_turn
    if p.skill_slot_charges_used >= limit:
        raise IllegalCommand(_("{name} already charged the skill slot {limit} time(s) this turn").format(name=p.name, limit=limit))
    counts.require_hand(state, i, 1, N_("charge the skill slot"))
    card = ctx.card(str(skill))
    known = card is not None and card.type == "skill"
    user = f"，可从牌组检索{card['user']}" if known else "，可从牌组检索其干员"
    name = card.name if known else str(skill)
    out: list[kev.Event] = [ev.ChargeAdded(player=i, count=1, skill_slot=True, card=name, from_hand=1,
                                           reason=f"技能槽充能：{name}{user}")]
    if search:
        out.append(counts.draw_event(state, i, 1, f"技能槽充能后检索{card['user'] if known else '其干员'}", N_("search")))
    return out


def _covered(state: State, player: int, token: Any, operator_name: str) -> RidmOperator | None:
    """The player's operator piece a skill will cover: named by ``token`` (id or name), else the
    only piece of the skill's user; None when no such operator is on the board."""
    mine = [o for o in operators(state) if o.owner == player]
    if token:
        for o in mine:
            if o.id.casefold() == str(token).strip().casefold():
                return o
        operator_name = str(token)
    named = [o for o in mine if o.name == operator_name]
    if len(named) > 1:
        raise IllegalCommand(_("{name} has {n_named} {operator_name} on the board: name the one the skill covers (--operator {id})").format(name=state.players[player].name, n_named=len(named), operator_name=operator_name, id=named[0].id))
    return named[0] if named else None


@COMMANDS.command(Param.player(), SKILL,
                  Param("operator", "text", N_("The operator it covers: piece id or codename (default: its user from card data)."), None, option=True),
                  Param.count("duration", N_("Turns (default: from card data)."), None, minimum=0, option=True),
                  Param.count("cost", N_("Charges to pay (default: from card data)."), None, minimum=0, option=True),
                  label="发动技能", labels={'skill': '技能', 'operator': '干员', 'duration': '持续', 'cost': '充能消耗'},
                  help=N_("Activate a skill: cover its operator, pay its charges and start its timer (ticks at the end of your turns)."),
                  examples=("activate A amiya-s1", "activate A S2 --operator 能天使 --duration 2 --cost 1"))
def activate(state: State, ctx: Context, player: Any, skill: str, operator: str | None = None,
             duration: Any = None, cost: Any = None) -> list[kev.Event]:
    """Activate a skill: pay its charges and start its timer (values from card data when known)."""
    i = who(state, player)
    require_active(state, i, N_("activating a skill"))
    require_phase(state, ctx, _acting(ctx), N_("activating a skill"))
    counts.require_hand(state, i, 1, N_("activate a skill (its card covers the operator from the hand)"))
    p = state.players[i]
    card = ctx.card(str(skill))
    user = None
    if card is not None and card.type == "skill":
        skill, user = card.name, card["user"]
        duration = card["duration"] if duration is None else duration
        cost = card["charge"] if cost is None else cost
    if not (operator or user):
        raise IllegalCommand(_("unknown skill {skill!r}: give its operator and duration (--operator, --duration)").format(skill=skill))
    if duration is None:
        raise IllegalCommand(_("unknown skill {skill!r}: give its duration in turns (--duration)").format(skill=skill))
    piece = _covered(state, i, operator, user or "")
    if piece is not None:
        if user and piece.name != user:
            raise IllegalCommand(_("{skill} is {user}'s skill, not {piece}'s").format(skill=skill, user=user, piece=_label(piece)))
        already = board.covering(state, piece)
        if already is not None:
            raise IllegalCommand(_("{piece} is already covered by {skill} ({left}T left)").format(piece=_label(piece), skill=already.skill, left=already.left))
    name = piece.name if piece is not None else str(operator or user)
    turns = count(duration, N_("duration"), minimum=0)
    pay = count(cost if cost is not None else 0, N_("charge cost"), minimum=0)
    if pay > p.charges:
        raise IllegalCommand(_("{name} has {charges} charge(s); {skill} needs {pay}").format(name=p.name, charges=p.charges, skill=skill, pay=pay))
    out: list[kev.Event] = []
    if pay:
        out.append(ev.ChargesSpent(player=i, count=pay, reason=f"发动{skill}的充能"))
    target = _label(piece) if piece is not None else f"{name}（不在场上）"
    out.append(ev.SkillActivated(player=i, operator=name, skill=str(skill), duration=turns,
                                 piece=piece.id if piece is not None else "",
                                 reason=f"覆盖{target}发动，持续{turns}T"))
    return out


@COMMANDS.command(Param.player(), Param("skill", "text", N_("Skill, operator or piece id."), metavar="SKILL"),
                  label="技能结束", labels={'skill': '技能'}, help=N_("A skill leaves before its timer runs out."), examples=("end-skill A S2",))
def end_skill(state: State, ctx: Context, player: Any, skill: str) -> list[kev.Event]:
    """A skill leaves early (a card effect)."""
    i = who(state, player)
    for t in state.players[i].timers:
        if skill in (t.skill, t.operator) or (t.piece and t.piece.casefold() == skill.strip().casefold()):
            return [ev.TimerExpired(player=i, operator=t.operator, skill=t.skill, piece=t.piece, reason="提前结束")]
    raise IllegalCommand(_("{name} has no skill {skill!r} in effect").format(name=state.players[i].name, skill=skill))


@COMMANDS.command(Param.player(), Param("requirement", "text", N_("Sanity requirement, or an action card.")),
                  label="能否使用行动牌", labels={'requirement': '理智要求'}, help=N_("Whether an action card is playable now (sanity ≤ its requirement). Exit code 1 when not."),
                  examples=("can-play A 2",), name="playable", words=("can-play",), aliases=("can",), query=True)
def playable(state: State, ctx: Context, player: Any, requirement: Any) -> tuple[bool, str]:
    """Whether ``player`` may play an action card with sanity ``requirement`` now (sanity ≤ requirement).

    ``requirement`` is a number or the id/name of an action card.
    """
    i = who(state, player)
    card = ctx.card(str(requirement))
    if card is not None and card.type == "action":
        req, label = card["sanity"], f"{card.name}（理智要求{card['sanity']}）"
    else:
        req = count(requirement, N_("sanity requirement"), minimum=0)
        label = f"理智要求{req}的行动牌"
    have = state.players[i].sanity
    ok = have <= req
    return ok, f"{state.players[i].name}理智{have}，{label}{'可以' if ok else '不能'}使用"


@COMMANDS.command(Param.player(), Param("name", "text", N_("Action card id or name.")),
                  Param.count("requirement", N_("Sanity requirement (default: from card data)."), None, minimum=0,
                              option=True),
                  label="使用行动牌", labels={'name': '行动牌', 'requirement': '理智要求'}, help=N_("Play an action card (refused while sanity is above its requirement)."),
                  examples=("action A 紧急撤离 --requirement 2",))
def action(state: State, ctx: Context, player: Any, name: str, requirement: Any = None) -> list[kev.Event]:
    """Play an action card; refused while the player's sanity is above its requirement."""
    i = who(state, player)
    card = ctx.card(str(name))
    if requirement is None:
        if card is None or card.type != "action":
            raise IllegalCommand(_("unknown action card {name!r}: give its sanity requirement (--requirement)").format(name=name))
        requirement = card["sanity"]
    ok, text = playable(state, ctx, player, requirement)
    if not ok:
        raise IllegalCommand(text)
    counts.require_hand(state, i, 1, N_("play an action card"))
    return [ev.ActionPlayed(player=i, name=card.name if card else str(name), requirement=int(requirement), reason=text)]


# ---------------------------------------------------------------------------- the board as data and text


def operator_json(o: RidmOperator, state: State) -> dict[str, Any]:
    t = board.covering(state, o)
    return {
        "id": o.id, "card": o.card, "name": o.name, "owner": state.players[o.owner].name,
        "zone": o.zone, "side": state.players[o.side].name,
        "attack": o.attack, "defense": o.defense, "block": o.block, "max_block": o.max_block,
        "base_attack": o.base_attack, "base_defense": o.base_defense,
        "routed": o.routed, "deployed_this_turn": o.deployed_turn == state.turn, "acted": o.acted_turn == state.turn,
        "skill": None if t is None else {"skill": t.skill, "turns_left": t.left},
    }


def player_json(p: Player, state: State, ctx: Context) -> dict[str, Any]:
    n = ctx.numbers
    i = state.players.index(p)
    zone = lambda z: (lambda o: None if o is None else operator_json(o, state))(board.occupant(state, i, z))  # noqa: E731
    return {
        "sanity": p.sanity, "charges": p.charges,
        # The covered piece shows on the operator (its "skill"); these keys stay as before the board.
        "timers": [{"operator": t.operator, "skill": t.skill, "turns_left": t.left} for t in p.timers],
        "deployments_used": p.deployments_used, "deployments_per_turn": n.active_deployments_per_turn,
        "skill_slot_charged": p.skill_slot_charges_used >= n.skill_slot_charges_per_turn,
        "enemy_in_deploy": bool(board.invaders(state, i)),
        "deploy_zone": zone(board.DEPLOY), "action_zone": zone(board.ACTION),
        "operators": [o.id for o in operators(state) if o.owner == i],
        "prep": list(p.prep), "prep_count": len(p.prep), "prep_taken": p.prep_taken,
        "skill_slot": list(p.skill_slot), "skill_slot_count": len(p.skill_slot),
        "charge_slot": p.charges,
        # None (shown —) when the game was started without this player's deck list.
        "deck": p.deck, "hand": p.hand,
        "discard": p.discard if p.counted else None,
        "charge_cards": p.charge_cards if p.counted else None,
    }


def state_json(state: State, ctx: Context) -> dict[str, Any]:
    return {"operators": [operator_json(o, state) for o in operators(state)]}


def _operator_text(o: Mapping[str, Any], zone_owner: str) -> str:
    bits = [f"{o['id']} {o['name']}"]
    if o["owner"] != zone_owner:
        bits.append(f"（{o['owner']}的干员）")
    bits.append(f" 攻{o['attack']} 防{o['defense']} 阻挡{o['block']}/{o['max_block']}")
    if o["routed"]:
        bits.append(" 横置")
    if o["deployed_this_turn"]:
        bits.append(" 本回合部署")
    if o["acted"]:
        bits.append(" 已行动")
    if o["skill"]:
        bits.append(f" 技能：{o['skill']['skill']} {o['skill']['turns_left']}T")
    return "".join(bits)


def board_lines(s: dict[str, Any], ctx: Context) -> list[str]:
    """The game's part of the text board, from ``status_json`` (``s``)."""
    out = []
    for p in s["players"]:
        timers = "；".join(f"{t['operator']}·{t['skill']} {t['turns_left']}T" for t in p["timers"]) or "无"
        invaded_ = " | ⚠部署区有敌方干员" if p["enemy_in_deploy"] else ""
        out.append(f"{_mark(p, s)} {p['name']}: 理智 {p['sanity']} | 充能 {p['charges']} | "
                   f"部署 {p['deployments_used']}/{p['deployments_per_turn']} | "
                   f"技能槽充能 {'已用' if p['skill_slot_charged'] else '未用'} | 计时 {timers}{invaded_}")
        for key, name in (("deploy_zone", "部署区"), ("action_zone", "行动区")):
            o = p[key]
            out.append(f"    {name}：" + (_operator_text(o, p["name"]) if o else "（空）"))
        prep = "、".join(p["prep"])
        slot = "、".join(p["skill_slot"]) or "无"
        out.append(f"    {counts.line(p)} | 准备区 {p['prep_count']}" + (f"（{prep}）" if prep else "")
                   + f" | 充能槽 {p['charge_slot']} | 技能槽 {slot}")
    return out


def board_view(s: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The board as the table page shows it (``engine.live.board``), from ``status_json`` ``s``:
    what ``board_lines`` prints, each operator a piece in its zone (``view.py``)."""
    return view.board_view(s, ctx)
