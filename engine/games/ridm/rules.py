"""Rhodes Island Defense Manoeuvre (罗德岛防御作战演习) at the table: sanity, skill timers, limits.

At the end of each turn (leaving the end phase): the active player's skill timers tick and the
skills at ≤ 0 expire; then every player with an enemy operator in their deploy zone loses sanity.
Sanity 0 or less loses. Skills and action cards named by card data take their duration, charge
cost, user and sanity requirement from it; otherwise the command gives them.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...decks import Deck
from ...tracker import events as kev
from . import events as ev
from ...tracker.core import Context, IllegalCommand, count, require_active, signed, who
from ...tracker.kit import turn_mark as _mark
from ...tracker.kit import Commands, Param, yes_no
from . import sentences  # noqa: F401 - imported to register the game's log lines
from .state import RidmPlayer as Player, RidmState as State

RULESET = "ridm"
COMMANDS = Commands(RULESET)
SKILL = Param("skill", "text", "Skill card id or name.", metavar="SKILL")


def setup(ctx: Context, players: tuple[str, ...], first: int, levels: tuple[str, ...] = (),
          decks: Mapping[int, Deck] | None = None) -> list[kev.Event]:
    n = ctx.numbers
    if levels:
        raise IllegalCommand("--levels is for backrooms; ridm has no levels")
    return [
        kev.GameStarted(game=ctx.defn.id, ruleset=RULESET, players=players, first=first,
                       starting=(("sanity", n.starting_sanity),), reason=f"开局：理智{n.starting_sanity}"),
        kev.ReminderGiven(text=f"开局：洗牌，各抽{n.opening_hand}张", reason="开局"),
    ]


def first_phase(state: State, ctx: Context) -> str:
    return ctx.defn.phases[0].id


def on_turn_begin(state: State, ctx: Context) -> list[kev.Event]:
    return []


def _last(ctx: Context) -> str:
    return ctx.defn.phases[-1].id


def timer_preview(state: State, ctx: Context, player: int) -> str:
    """"能天使·S2 剩2T→1T；… 到期" for the owner's timers as they will stand after this turn's tick."""
    tick = ctx.numbers.timer_tick
    bits = []
    for t in state.players[player].timers:
        after = t.left - tick
        bits.append(f"{t.operator}·{t.skill} {t.left}T→" + ("到期" if after <= 0 else f"{after}T"))
    return "；".join(bits)


def on_enter(state: State, ctx: Context) -> list[kev.Event]:
    n = ctx.numbers
    me = state.players[state.active]
    phase = state.phase
    out: list[kev.Event] = []
    if phase == ctx.defn.phases[0].id:
        out.append(kev.ReminderGiven(text=f"{me.name}必须从牌组抽{n.draw_per_turn}张牌", player=state.active,
                                    reason=ctx.phase_name(phase)))
    elif phase == _last(ctx):
        preview = timer_preview(state, ctx, state.active)
        if preview:
            out.append(kev.ReminderGiven(text=f"技能计时：{preview}", player=state.active, reason=ctx.phase_name(phase)))
        out.append(kev.ReminderGiven(text=f"准备区至多{n.prep_to_hand_max}张加入手牌；横置干员送去弃置区",
                                    player=state.active, reason=ctx.phase_name(phase)))
        for i, p in enumerate(state.players):
            if p.enemy_in_deploy:
                out.append(kev.ReminderGiven(
                    text=f"理智检查：{p.name}的部署区有敌方干员，回合结束时理智−{n.sanity_loss_enemy_in_deploy}",
                    player=i, reason="理智检查"))
    else:
        out.append(kev.ReminderGiven(
            text=f"主动部署{n.active_deployments_per_turn}次、技能槽充能{n.skill_slot_charges_per_turn}次；"
                 f"行动牌需理智≤要求（{me.name}理智{me.sanity}，充能{me.charges}）",
            player=state.active, reason=ctx.phase_name(phase)))
    return out


def on_exit(state: State, ctx: Context) -> list[kev.Event]:
    if state.phase != _last(ctx):
        return []
    n = ctx.numbers
    out: list[kev.Event] = []
    me = state.players[state.active]
    if me.timers:
        out.append(ev.TimersTicked(player=state.active, amount=n.timer_tick,
                                   reason=f"{me.name}的回合结束：技能计时−{n.timer_tick}T"))
        for t in me.timers:
            if t.left - n.timer_tick <= 0:
                out.append(ev.TimerExpired(player=state.active, operator=t.operator, skill=t.skill,
                                           reason="计时归零，技能送去弃置区"))
    for i, p in enumerate(state.players):
        if p.enemy_in_deploy:
            out.append(ev.SanityChanged(player=i, delta=-n.sanity_loss_enemy_in_deploy,
                                        reason=f"回合结束理智检查：{p.name}的部署区有敌方干员"))
    return out


def losers(state: State, ctx: Context) -> list[tuple[int, str]]:
    return [(i, f"理智降至{p.sanity}") for i, p in enumerate(state.players) if p.sanity <= 0]


# ---------------------------------------------------------------------------- commands


@COMMANDS.command(Param.player(), Param("delta", "signed", "Change, e.g. -1 or +1."), Param.why(),
                  label="理智变化", labels={'delta': '变化'}, help="Change a commander's sanity by an effect (0 loses).", examples=("sanity B -1",))
def sanity(state: State, ctx: Context, player: Any, delta: Any, why: str = "") -> list[kev.Event]:
    """Change a commander's sanity by an effect: ``-1`` or ``+1``."""
    i = who(state, player)
    return [ev.SanityChanged(player=i, delta=signed(delta, "sanity change"), reason=why or "卡牌效果")]


@COMMANDS.command(Param.player(), Param("operator", "text", "Operator codename."),
                  Param("by_effect", "flag", "Deployed by a card effect (not counted).", False, option=True),
                  label="部署干员", labels={'operator': '干员', 'by_effect': '卡牌效果部署'}, help="Deploy an operator ({n.active_deployments_per_turn} active deployment per turn).",
                  examples=("deploy A 能天使",))
def deploy(state: State, ctx: Context, player: Any, operator: str, by_effect: bool = False) -> list[kev.Event]:
    """Deploy an operator from hand (one active deployment per turn; by card effect: unlimited)."""
    i = who(state, player)
    p = state.players[i]
    if not by_effect:
        require_active(state, i, "active deployment")
        limit = ctx.numbers.active_deployments_per_turn
        if p.deployments_used >= limit:
            raise IllegalCommand(f"{p.name} already made {p.deployments_used}/{limit} active deployment(s) this turn "
                                 f"(deployments by card effects: --by-effect)")
    why = "卡牌效果部署（不计次数）" if by_effect else f"主动部署{p.deployments_used + 1}/{ctx.numbers.active_deployments_per_turn}"
    return [ev.OperatorDeployed(player=i, operator=str(operator), active=not by_effect, reason=why)]


@COMMANDS.command(Param.player(), Param.count("cards", "Hand cards put face down.", 1),
                  label="盖放充能", labels={'cards': '张数'}, help="Charge with hand cards face down (+{n.charge_per_card} charge each, then draw 1 each).",
                  examples=("charge A 2",))
def charge(state: State, ctx: Context, player: Any, cards: Any = 1) -> list[kev.Event]:
    """Put hand cards face down into the charge slot: ``charge_per_card`` charges each, then draw 1 each."""
    i = who(state, player)
    k = count(cards, "cards")
    gained = k * ctx.numbers.charge_per_card
    return [ev.ChargeAdded(player=i, count=gained, reason=f"盖放{k}张手牌充能+{gained}，然后可抽{k}张")]


@COMMANDS.command(Param.player(), SKILL,
                  label="技能槽充能", labels={'skill': '技能'}, help="{n.skill_slot_charges_per_turn} per turn: a skill card into the skill slot as a charge "
                       "(then search its operator).", examples=('charge-skill A "S2 真银斩"',))
def charge_skill(state: State, ctx: Context, player: Any, skill: str) -> list[kev.Event]:
    """Once per turn: a skill card face up into the skill slot as a charge; search its operator."""
    i = who(state, player)
    require_active(state, i, "skill-slot charge")
    p = state.players[i]
    limit = ctx.numbers.skill_slot_charges_per_turn
    if p.skill_slot_charges_used >= limit:
        raise IllegalCommand(f"{p.name} already charged the skill slot {limit} time(s) this turn")
    card = ctx.card(str(skill))
    user = f"，从牌组检索{card['user']}" if card is not None and card.type == "skill" else "，从牌组检索其干员"
    return [ev.ChargeAdded(player=i, count=1, skill_slot=True, reason=f"技能槽充能：{skill}{user}")]


@COMMANDS.command(Param.player(), SKILL,
                  Param("operator", "text", "Its operator (default: from card data).", None, option=True),
                  Param.count("duration", "Turns (default: from card data).", None, minimum=0, option=True),
                  Param.count("cost", "Charges to pay (default: from card data).", None, minimum=0, option=True),
                  label="发动技能", labels={'skill': '技能', 'operator': '干员', 'duration': '持续', 'cost': '充能消耗'}, help="Activate a skill: pay its charges and start its timer (ticks at the end of your turns).",
                  examples=("activate A S2 --operator 能天使 --duration 2 --cost 1",))
def activate(state: State, ctx: Context, player: Any, skill: str, operator: str | None = None,
             duration: Any = None, cost: Any = None) -> list[kev.Event]:
    """Activate a skill: pay its charges and start its timer (values from card data when known)."""
    i = who(state, player)
    p = state.players[i]
    card = ctx.card(str(skill))
    if card is not None and card.type == "skill":
        skill = card.name
        operator = operator or card["user"]
        duration = card["duration"] if duration is None else duration
        cost = card["charge"] if cost is None else cost
    if not operator:
        raise IllegalCommand(f"unknown skill {skill!r}: give its operator and duration (--operator, --duration)")
    if duration is None:
        raise IllegalCommand(f"unknown skill {skill!r}: give its duration in turns (--duration)")
    turns = count(duration, "duration", minimum=0)
    pay = count(cost if cost is not None else 0, "charge cost", minimum=0)
    if pay > p.charges:
        raise IllegalCommand(f"{p.name} has {p.charges} charge(s); {skill} needs {pay}")
    out: list[kev.Event] = []
    if pay:
        out.append(ev.ChargesSpent(player=i, count=pay, reason=f"发动{skill}的充能"))
    out.append(ev.SkillActivated(player=i, operator=str(operator), skill=str(skill), duration=turns,
                                 reason=f"覆盖{operator}发动，持续{turns}T"))
    return out


@COMMANDS.command(Param.player(), Param("skill", "text", "Skill or operator.", metavar="SKILL"),
                  label="技能结束", labels={'skill': '技能'}, help="A skill leaves before its timer runs out.", examples=("end-skill A S2",))
def end_skill(state: State, ctx: Context, player: Any, skill: str) -> list[kev.Event]:
    """A skill leaves early (its operator left the field, a card effect)."""
    i = who(state, player)
    for t in state.players[i].timers:
        if t.skill == skill or t.operator == skill:
            return [ev.TimerExpired(player=i, operator=t.operator, skill=t.skill, reason="提前结束")]
    raise IllegalCommand(f"{state.players[i].name} has no skill {skill!r} in effect")


@COMMANDS.command(Param.player(), Param("present", "tristate", "yes: an enemy operator is in PLAYER's deploy "
                                                              "zone; no: it left.", True),
                  label="部署区敌方干员", labels={'present': '有敌方干员'}, help="Record an enemy operator entering (or leaving) a player's deploy zone: "
                       "−{n.sanity_loss_enemy_in_deploy} sanity at each turn end.", examples=("invade B yes",))
def invade(state: State, ctx: Context, player: Any, present: Any = True) -> list[kev.Event]:
    """Record whether an enemy operator stands in ``player``'s deploy zone (sanity check at turn end)."""
    i = who(state, player)
    flag = yes_no(present, "present")
    if state.players[i].enemy_in_deploy == flag:
        raise IllegalCommand(f"{state.players[i].name}'s deploy zone already {'holds' if flag else 'has no'} an enemy operator")
    why = "敌方干员进入部署区" if flag else "敌方干员离开部署区"
    return [ev.DeployZoneChanged(player=i, enemy_present=flag, reason=why)]


@COMMANDS.command(Param.player(), Param("requirement", "text", "Sanity requirement, or an action card."),
                  label="能否使用行动牌", labels={'requirement': '理智要求'}, help="Whether an action card is playable now (sanity ≤ its requirement). Exit code 1 when not.",
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
        req = count(requirement, "sanity requirement", minimum=0)
        label = f"理智要求{req}的行动牌"
    have = state.players[i].sanity
    ok = have <= req
    return ok, f"{state.players[i].name}理智{have}，{label}{'可以' if ok else '不能'}使用"


@COMMANDS.command(Param.player(), Param("name", "text", "Action card id or name."),
                  Param.count("requirement", "Sanity requirement (default: from card data).", None, minimum=0,
                              option=True),
                  label="使用行动牌", labels={'name': '行动牌', 'requirement': '理智要求'}, help="Play an action card (refused while sanity is above its requirement).",
                  examples=("action A 紧急撤离 --requirement 2",))
def action(state: State, ctx: Context, player: Any, name: str, requirement: Any = None) -> list[kev.Event]:
    """Play an action card; refused while the player's sanity is above its requirement."""
    i = who(state, player)
    card = ctx.card(str(name))
    if requirement is None:
        if card is None or card.type != "action":
            raise IllegalCommand(f"unknown action card {name!r}: give its sanity requirement (--requirement)")
        requirement = card["sanity"]
    ok, text = playable(state, ctx, player, requirement)
    if not ok:
        raise IllegalCommand(text)
    return [ev.ActionPlayed(player=i, name=card.name if card else str(name), requirement=int(requirement), reason=text)]


@COMMANDS.command(Param.count("attack", "Attacker's attack.", minimum=0),
                  Param.count("defense", "Defender's defense.", minimum=0),
                  Param.count("target_attack", "Defender's attack (for routing).", minimum=0),
                  label="交战推演", labels={'attack': '攻击', 'defense': '防御', 'target_attack': '对方攻击'}, help="Work out an exchange: who loses block, and whether the defender is routed (changes nothing).",
                  examples=("fight 6 3 2",), query=True)
def fight(state: State, ctx: Context, attack: Any, defense: Any, target_attack: Any) -> tuple[bool, str]:
    """Work out one exchange by the combat rules (changes nothing; players move the cards):
    attack < defense → the attacker loses block; attack ≥ defense → the defender loses block;
    attack > the defender's attack + defense → the defender is also routed (tapped).
    Returns (True, explanation)."""
    atk = count(attack, "attack", minimum=0)
    d = count(defense, "defense", minimum=0)
    t = count(target_attack, "target's attack", minimum=0)
    loss = ctx.numbers.block_loss
    if atk < d:
        return True, f"攻击{atk} < 防御{d}：进攻失败，攻击者失去{loss}点阻挡"
    text = f"攻击{atk} ≥ 防御{d}：防守失败，被攻击者失去{loss}点阻挡"
    if atk > t + d:
        text += f"；攻击{atk} > 对方攻击{t}+防御{d}={t + d}：被攻击者被击溃（横置）"
    return True, text


def player_json(p: Player, state: State, ctx: Context) -> dict[str, Any]:
    n = ctx.numbers
    return {
        "sanity": p.sanity, "charges": p.charges,
        "timers": [{"operator": t.operator, "skill": t.skill, "turns_left": t.left} for t in p.timers],
        "deployments_used": p.deployments_used, "deployments_per_turn": n.active_deployments_per_turn,
        "skill_slot_charged": p.skill_slot_charges_used >= n.skill_slot_charges_per_turn,
        "enemy_in_deploy": p.enemy_in_deploy,
    }


def state_json(state: State, ctx: Context) -> dict[str, Any]:
    return {}


def board_lines(s: dict[str, Any], ctx: Context) -> list[str]:
    """The game's part of the text board, from ``status_json`` (``s``)."""
    out = []
    for p in s["players"]:
        timers = "；".join(f"{t['operator']}·{t['skill']} {t['turns_left']}T" for t in p["timers"]) or "无"
        invaded = " | ⚠部署区有敌方干员" if p["enemy_in_deploy"] else ""
        out.append(f"{_mark(p, s)} {p['name']}: 理智 {p['sanity']} | 充能 {p['charges']} | "
                   f"部署 {p['deployments_used']}/{p['deployments_per_turn']} | "
                   f"技能槽充能 {'已用' if p['skill_slot_charged'] else '未用'} | 计时 {timers}{invaded}")
    return out
