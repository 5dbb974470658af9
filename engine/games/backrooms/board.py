"""The Backrooms board: units, specials, equipment and outposts as pieces, and the commands
that move them (summon, equip, attack, explore, stun, buff, damage, heal, destroy, discard,
return; the outpost commands damage/repair read a player's outpost or any piece).

What the tracker follows, and what it leaves to the table:
- every card on the field is a piece with its values; the discard is a list of card ids
  (pieces that went there and cards used from the hand);
- a card's pieces on the board plus its copies in the discard never exceed the copies in the
  deck list (a card returned to the hand may be summoned again); hand and deck sizes are kept
  by ``counts.py`` (a card entering from the hand is refused when the hand is empty);
- cost is paid automatically from the player's pool when a card enters.

Card types (game.yaml ``card_types``): entities and characters are units; items and effects
are specials; equipment stacks on a unit; outposts enter with ``place``.
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
from typing import Any

from ...tracker import events as kev
from ...tracker.core import Batch, Context, IllegalCommand, count, require_active, require_phase, signed, who
from ...tracker.kit import Param
from ...tracker import pieces
from ...tracker.pieces import find_card, find_piece
from ...tracker.state import next_piece_id
from . import events as ev
from .commands import COMMANDS
from .counts import take_from_hand
from .state import EQUIPMENT, OUTPOST, SPECIAL, UNIT, BackroomsPiece as Piece, BackroomsState as State

#: Card types (ids of game.yaml ``card_types``) by where they go on the board.
UNIT_TYPES = ("entity", "character")
SPECIAL_TYPES = ("item", "effect")
EQUIPMENT_TYPES = ("equipment",)
OUTPOST_TYPES = ("outpost",)
#: Effects used from the hand answer the opponent too ("对方单位发动攻击时才能使用"): the chain
#: orders them, so they are not bound to their owner's main phase.
RESPONSE_TYPES = ("effect",)
#: Effects may be laid face down in a special slot for free and paid when turned up (effects.yaml).
FACE_DOWN_FREE_TYPES = ("effect",)
#: The card data marks a human with this race (characters.yaml: "只有人类能【探索】"). A unit
#: card without any race counts as human when it is a character: the seed says humans are
#: "大部分为人物卡", and a character whose data says nothing is taken at its type's word.
HUMAN_RACE = "人类"
HUMAN_BY_DEFAULT_TYPES = ("character",)
#: Words of a card's text that let it lie in the special slots (a unit) or stay there (an item).
SPECIAL_SLOT_WORDS = "特殊放置区"
#: What each kind of piece is called on the board.
KIND_NAMES = {UNIT: "单位", SPECIAL: "特殊", EQUIPMENT: "装备", OUTPOST: "前哨站"}

OUTPOST_OPTION = Param.count("outpost", N_("Which outpost (1 = first on the board)."), 1, option=True, short="-o")
WHOSE = Param("player", "player", N_("Whose card (default: the player whose turn it is)."), None, option=True, label="玩家")


# ---------------------------------------------------------------------------- looking things up


def threshold(ctx: Context) -> int:
    return ctx.numbers.unit_destroyed_at_hp


def outpost_index(state: State, piece: Piece) -> int:
    return [o.id for o in state.outpost_pieces(piece.owner)].index(piece.id)


def standing_units(state: State, owner: int) -> tuple[Piece, ...]:
    """Units that stand in front of ``owner``'s outposts: explored ones do not (RULES.md 2026-12)."""
    return tuple(p for p in state.pieces_in(owner, UNIT) if not p.explored)


def used_copies(state: State, owner: int, card_id: str) -> int:
    """Copies of ``card_id`` of ``owner`` that are on the board, in the discard or left with a cut-out level."""
    on_board = sum(1 for p in state.pieces if p.owner == owner and p.card == card_id)
    gone = sum(1 for p in state.cut_out if p.owner == owner and p.card == card_id)
    return on_board + gone + state.players[owner].discard.count(card_id)


def check_copies(state: State, owner: int, card: Any) -> None:
    pieces.check_copies(state, owner, card, used_copies(state, owner, card.id), "on the board or in the discard")


def pay(batch: Batch, owner: int, cost: int, what: str) -> None:
    have = batch.state.players[owner].cost
    if cost > have:
        raise IllegalCommand(_("{name} has {have} cost; {what} costs {cost}").format(name=batch.state.players[owner].name, have=have, what=tr(what), cost=cost))
    if cost:
        batch.emit(ev.CostSpent(player=owner, amount=cost, reason=f"支付{what}的费用"))


def free_slot(state: State, ctx: Context, owner: int, kind: str, wanted: Any) -> int:
    size = ctx.numbers.unit_slots if kind == UNIT else ctx.numbers.special_slots
    taken = {p.slot for p in state.pieces_in(owner, kind)}
    zone = KIND_NAMES[kind]
    if wanted not in (None, ""):
        slot = count(wanted, N_("slot"))
        if slot > size:
            raise IllegalCommand(_("there are {size} {kind} slots; no slot {slot}").format(size=size, kind=kind, slot=slot))
        if slot in taken:
            raise IllegalCommand(_("{kind} slot {slot} of {name} is taken").format(kind=kind, slot=slot, name=state.players[owner].name))
        return slot
    free = [k for k in range(1, size + 1) if k not in taken]
    if not free:
        raise IllegalCommand(_("all {size} {kind} slots of {name} are full ({zone}区已满)").format(size=size, kind=kind, name=state.players[owner].name, zone=zone))
    return free[0]


def targetable(piece: Piece, what: str) -> None:
    """Explored units cannot be attacked or chosen by effects (RULES.md §1)."""
    if piece.explored:
        raise IllegalCommand(_("{id} {name} is exploring until its owner's next turn: it cannot be {what}").format(id=piece.id, name=piece.name, what=tr(what)))


def may_act(piece: Piece, what: str) -> None:
    if piece.stunned:
        raise IllegalCommand(_("{id} {name} is stunned this turn: it cannot {what}").format(id=piece.id, name=piece.name, what=tr(what)))
    if piece.explored:
        raise IllegalCommand(_("{id} {name} is exploring until its owner's next turn: it cannot {what}").format(id=piece.id, name=piece.name, what=tr(what)))


def own_piece(state: State, token: Any) -> Piece:
    """The piece ``token`` names, the active player's first: a name both sides have (two 猎犬)
    means the one of the player acting."""
    try:
        return find_piece(state, token, owner=state.active, what=N_("unit"))
    except IllegalCommand:
        return find_piece(state, token, what=N_("unit"))


def is_human(card: Any) -> bool:
    race = card.get("race")
    return race == HUMAN_RACE if race else card.type in HUMAN_BY_DEFAULT_TYPES


def target_piece(state: State, token: Any, outpost: Any) -> Piece:
    """A player (then their ``outpost``-th outpost, as the commands always read it) or a piece."""
    try:
        i = who(state, token)
    except IllegalCommand:
        return find_piece(state, token)
    outposts = state.outpost_pieces(i)
    if not outposts:
        raise IllegalCommand(_("{name} has no outpost standing").format(name=state.players[i].name))
    k = count(outpost, N_("outpost number")) - 1
    if k >= len(outposts):
        raise IllegalCommand(_("{name} has {n_outposts} outpost(s); there is no outpost {k}").format(name=state.players[i].name, n_outposts=len(outposts), k=k + 1))
    return outposts[k]


# ---------------------------------------------------------------------------- what happens to pieces


def leave(batch: Batch, piece: Piece, to: str, why: str) -> None:
    """``piece`` leaves the board; its equipment goes to the discard with it, an outpost that
    goes is destroyed (and counted)."""
    if piece.kind == OUTPOST:
        batch.emit(ev.OutpostDestroyed(player=piece.owner, index=outpost_index(batch.state, piece), piece=piece.id,
                                       reason=why))
        return
    for item in batch.state.equipment_of(piece.id):
        batch.emit(ev.BackroomsPieceLeft(piece=item.id, to="discard", reason=f"随{piece.id} {piece.name}送入弃牌堆"))
    batch.emit(ev.BackroomsPieceLeft(piece=piece.id, to=to, reason=why))


def hurt(batch: Batch, ctx: Context, piece: Piece, amount: int, why: str) -> None:
    """``amount`` damage to ``piece``; at the threshold or below it leaves (units: the discard)."""
    if amount <= 0:
        return
    if piece.kind == OUTPOST:
        batch.emit(ev.OutpostDamaged(player=piece.owner, index=outpost_index(batch.state, piece), amount=amount,
                                     piece=piece.id, reason=why))
    else:
        batch.emit(ev.BackroomsPieceDamaged(piece=piece.id, amount=amount, reason=why))
    settle_hp(batch, ctx, piece.id)


def settle_hp(batch: Batch, ctx: Context, piece_id: str) -> None:
    piece = batch.state.piece(piece_id)
    if piece is None or not piece.has_hp or piece.hp > threshold(ctx):
        return
    what = "前哨站" if piece.kind == OUTPOST else "单位"
    leave(batch, piece, "discard", f"{what}生命值降至{piece.hp}（≤{threshold(ctx)}即摧毁）")


# ---------------------------------------------------------------------------- entering the board


@COMMANDS.command(Param.card(help=N_("Card id or name from the player's deck list (part of a name will do).")), WHOSE,
                  Param("slot", "count", N_("Slot to put it in (default: the first free one)."), None, option=True,
                        minimum=1),
                  Param("special", "flag", N_("Into a special slot: a unit whose text allows it, an item that stays, "
                                           "an effect laid face down (free; paid when turned up)."), False,
                        option=True),
                  label="召唤", labels={"slot": "位置", "special": "放入特殊放置区"},
                  help=N_("Summon a unit, or play an item or effect, from the deck list; its cost is paid from the "
                       "pool ({n.unit_slots} unit slots, {n.special_slots} special slots; main phase of your turn)."),
                  examples=("summon 笑魇", "summon almond-water", "summon 派对客 --special --slot 2"))
def summon(state: State, ctx: Context, card: Any, player: Any = None, slot: Any = None,
           special: bool = False) -> list[kev.Event]:
    i = state.active if player in (None, "") else who(state, player)
    c = find_card(state, ctx, i, card, types=UNIT_TYPES + SPECIAL_TYPES + EQUIPMENT_TYPES)
    if not (c.type in RESPONSE_TYPES and not special):
        require_active(state, i, N_("summon"))
        require_phase(state, ctx, ("main",), N_("summon"))
    if c.type in EQUIPMENT_TYPES:
        raise IllegalCommand(_("{name} is equipment: put it on a unit with equip {id} UNIT").format(name=c.name, id=c.id))
    check_copies(state, i, c)
    take_from_hand(state, i, c.name)
    cost = int(c.get("cost", 0) or 0)
    text = str(c.get("text", "") or "")
    batch = Batch(state)
    base = dict(player=i, piece=next_piece_id(state, i), card=c.id, name=c.name, cost=cost)
    if c.type in UNIT_TYPES:
        if special and SPECIAL_SLOT_WORDS not in text:
            raise IllegalCommand(_("{name}'s text does not let it lie in a special slot").format(name=c.name))
        kind = SPECIAL if special else UNIT
        where = free_slot(state, ctx, i, kind, slot)
        pay(batch, i, cost, c.name)
        batch.emit(ev.BackroomsPieceEntered(**base, kind=kind, slot=where, attack=int(c.get("attack", 0) or 0),
                                   hp=int(c.get("hp", 0) or 0), carry=int(c.get("carry", 0) or 0),
                                   reason=f"召唤至{KIND_NAMES[kind]}区{where}号位"))
        return batch.events
    face_down = special and c.type in FACE_DOWN_FREE_TYPES
    if special or SPECIAL_SLOT_WORDS in text:
        where = free_slot(state, ctx, i, SPECIAL, slot)
        if not face_down:
            pay(batch, i, cost, c.name)
        why = "背面放置（免费，翻开使用时支付费用）" if face_down else "放置于特殊放置区"
        batch.emit(ev.BackroomsPieceEntered(**base, kind=SPECIAL, slot=where, face_down=face_down,
                                   reason=f"{why}：{where}号位"))
        return batch.events
    if slot not in (None, ""):
        raise IllegalCommand(_("{name} is used at once and goes to the discard; it takes no slot (--special to keep it in a special slot)").format(name=c.name))
    pay(batch, i, cost, c.name)
    batch.emit(ev.BackroomsCardPlayed(player=i, card=c.id, name=c.name, reason="从手牌使用，送入弃牌堆"))
    return batch.events


@COMMANDS.command(Param.card(help=N_("Equipment card id or name from the player's deck list."), label="装备"),
                  Param.piece("unit", help=N_("The unit to equip (A3 or its name)."), label="单位"),
                  label="装备", help=N_("Put equipment on one of your units: each uses 1 of its carry value; "
                                   "refused when full. Its cost is paid from the pool (main phase of your turn)."),
                  examples=("equip 撬棍 A3", "equip flashlight 侦察员"))
def equip(state: State, ctx: Context, card: Any, unit: Any) -> list[kev.Event]:
    u = own_piece(state, unit)
    i = u.owner
    require_active(state, i, N_("equip"))
    require_phase(state, ctx, ("main",), N_("equip"))
    if u.kind != UNIT:
        raise IllegalCommand(_("{id} {name} is not a unit in a unit slot; only units carry equipment").format(id=u.id, name=u.name))
    targetable(u, N_("equipped"))
    c = find_card(state, ctx, i, card, types=EQUIPMENT_TYPES, what=N_("equipment"))
    check_copies(state, i, c)
    take_from_hand(state, i, c.name)
    carried = len(state.equipment_of(u.id))
    if carried >= u.carry:
        raise IllegalCommand(_("{id} {name} carries {carried}/{carry}: no room for {name2}").format(id=u.id, name=u.name, carried=carried, carry=u.carry, name2=c.name))
    batch = Batch(state)
    cost = int(c.get("cost", 0) or 0)
    pay(batch, i, cost, c.name)
    batch.emit(ev.BackroomsPieceEntered(player=i, piece=next_piece_id(state, i), card=c.id, name=c.name, kind=EQUIPMENT,
                               cost=cost, host=u.id, reason=f"装备于{u.id} {u.name}（承载{carried + 1}/{u.carry}）"))
    return batch.events


# ---------------------------------------------------------------------------- battle


@COMMANDS.command(Param.piece("unit", help=N_("Your attacking unit (A3 or its name)."), label="攻击者"),
                  Param.piece("target", help=N_("An opposing unit, or an outpost once no unit stands before it."),
                              label="目标"),
                  label="攻击", help=N_("A unit attacks an opposing unit or outpost (battle phase, once per unit per "
                                   "turn): the target takes the attacker's attack, the attacker the target's attack "
                                   "back; at {n.unit_destroyed_at_hp} HP or less a piece is destroyed."),
                  examples=("attack A3 B2", "attack 笑魇 B1"))
def attack(state: State, ctx: Context, unit: Any, target: Any) -> list[kev.Event]:
    a = own_piece(state, unit)
    require_active(state, a.owner, N_("attack"))
    require_phase(state, ctx, ("battle",), N_("attack"))
    if a.kind != UNIT:
        raise IllegalCommand(_("{id} {name} is not a unit in a unit slot; it cannot attack").format(id=a.id, name=a.name))
    may_act(a, N_("attack"))
    if a.attacked:
        raise IllegalCommand(_("{id} {name} has already attacked this turn").format(id=a.id, name=a.name))
    t = find_piece(state, target, owner=state.other(a.owner), what=_("piece of {player}").format(player=state.players[state.other(a.owner)].name))
    if t.kind not in (UNIT, OUTPOST):
        raise IllegalCommand(_("{id} {name} is a {kind}: only units and outposts can be attacked").format(id=t.id, name=t.name, kind=t.kind))
    targetable(t, N_("attacked"))
    if t.kind == OUTPOST:
        guards = standing_units(state, t.owner)
        if guards:
            raise IllegalCommand(_("{id} {name} is shielded by {names}: an outpost can be attacked only when no unit stands before it").format(id=t.id, name=t.name, names=', '.join((f'{g.id} {g.name}' for g in guards))))
    batch = Batch(state)
    batch.emit(ev.BackroomsUnitAttacked(piece=a.id, target=t.id, reason="战斗阶段攻击"))
    # Both blows are struck at once: the counter-damage is the defender's attack before it is hit.
    hit, back = a.attack, t.attack
    hurt(batch, ctx, t, hit, f"{a.id} {a.name}的攻击（攻{hit}）")
    if batch.state.piece(a.id) is not None:
        hurt(batch, ctx, batch.state.piece(a.id), back, f"{t.id} {t.name}的反伤（攻{back}）")
    return batch.events


# ---------------------------------------------------------------------------- states


@COMMANDS.command(Param.piece("unit", help=N_("Your human unit (A3 or its name)."), label="单位"),
                  label="探索", help=N_("A human unit explores (main phase of your turn): until your next turn it cannot attack, "
                                   "use effects, be attacked or targeted, nor shield its outpost; at the end of the "
                                   "turn you may search the deck for one item or equipment."),
                  examples=("explore A3",))
def explore(state: State, ctx: Context, unit: Any) -> list[kev.Event]:
    u = own_piece(state, unit)
    require_active(state, u.owner, N_("explore"))
    require_phase(state, ctx, ("main",), N_("explore"))
    if u.kind != UNIT:
        raise IllegalCommand(_("{id} {name} is not a unit in a unit slot").format(id=u.id, name=u.name))
    card = ctx.cards.get(u.card)
    if card is not None and not is_human(card):
        raise IllegalCommand(_("{id} {name} is not human ({value}): only humans explore").format(id=u.id, name=u.name, value=card.get('race') or card.type))
    may_act(u, N_("explore"))
    if u.attacked:
        raise IllegalCommand(_("{id} {name} has attacked this turn; it cannot explore as well").format(id=u.id, name=u.name))
    return [ev.BackroomsUnitExplored(piece=u.id, reason="至己方下一轮开始前不可攻击、发动效果、被攻击或被选中，"
                                                        "也不为前哨站抵挡；本轮结束时可检索1张道具或装备")]


@COMMANDS.command(Param.piece(), Param.why(), label="眩晕",
                  help=N_("Stun a unit or special: it cannot act until its owner's turn has ended."),
                  examples=('stun B2 --why "闪光弹"',))
def stun(state: State, ctx: Context, piece: Any, why: str = "") -> list[kev.Event]:
    p = find_piece(state, piece)
    if p.kind not in (UNIT, SPECIAL):
        raise IllegalCommand(_("{id} {name} is a {kind}: only units and specials can be stunned").format(id=p.id, name=p.name, kind=p.kind))
    targetable(p, N_("targeted"))
    if p.stunned:
        raise IllegalCommand(_("{id} {name} is already stunned").format(id=p.id, name=p.name))
    return [ev.BackroomsPieceStunned(piece=p.id, reason=why or "卡牌效果")]


# ---------------------------------------------------------------------------- card effects on values


def _effect_target(state: State, token: Any, outpost: Any = 1) -> Piece:
    p = target_piece(state, token, outpost)
    targetable(p, N_("targeted"))
    return p


@COMMANDS.command(Param.piece(), Param("delta", "signed", N_("Change, +2 or -1."), label="变化"),
                  Param("attack", "flag", N_("Change the attack (the default)."), False, option=True),
                  Param("hp", "flag", N_("Change the HP (current and printed together)."), False, option=True),
                  Param.why(), label="增减数值", labels={"attack": "攻击", "hp": "生命"},
                  help=N_("A card effect changes a piece's attack (default) or HP; attack never goes below 0; "
                       "HP at {n.unit_destroyed_at_hp} or less destroys it."),
                  examples=('buff A3 +2 --why "撬棍"', 'buff B2 -1 --hp --why "辐射"'))
def buff(state: State, ctx: Context, piece: Any, delta: Any, attack: bool = False, hp: bool = False,
         why: str = "") -> list[kev.Event]:
    p = _effect_target(state, piece)
    n = signed(delta, N_("change"))
    if attack and hp:
        raise IllegalCommand(_("buff changes one value at a time: --attack or --hp"))
    if not p.has_hp:
        raise IllegalCommand(_("{id} {name} has no attack or HP to change (buff the unit it is on)").format(id=p.id, name=p.name))
    why = why or "卡牌效果"
    batch = Batch(state)
    if hp:
        batch.emit(ev.BackroomsPieceBuffed(piece=p.id, stat="hp", amount=n, reason=why))
        settle_hp(batch, ctx, p.id)
        return batch.events
    if p.attack + n < 0:
        if p.attack == 0:
            raise IllegalCommand(_("{id} {name} has 0 attack already").format(id=p.id, name=p.name))
        why, n = f"{why}（攻击值最低为0，原为{n:+d}）", -p.attack
    batch.emit(ev.BackroomsPieceBuffed(piece=p.id, stat="attack", amount=n, reason=why))
    return batch.events


#: ``damage``/``repair`` name a player (then an outpost by --outpost, as before pieces) or any
#: piece id; the parameter keeps the player kind so old logs' titles and completion read as before.
PLAYER_OR_PIECE = Param.player(help=N_("A player (then their outpost --outpost N) or a piece id (A3)."))


@COMMANDS.command(PLAYER_OR_PIECE, Param.count("amount", N_("Damage dealt.")), OUTPOST_OPTION, Param.why(),
                  label="受到伤害", labels={"amount": "伤害", "outpost": "前哨站"},
                  help=N_("Damage a piece, or one of a player's outposts (destroyed at {n.unit_destroyed_at_hp} HP "
                       "or less; {n.outposts_destroyed_to_lose} outposts destroyed or none standing loses)."),
                  examples=("damage B 7 --outpost 1", 'damage B2 3 --why "镇静剂"'))
def damage(state: State, ctx: Context, player: Any, amount: Any, outpost: Any = 1, why: str = "") -> list[kev.Event]:
    p = _effect_target(state, player, outpost)
    if not p.has_hp:
        raise IllegalCommand(_("{id} {name} has no HP").format(id=p.id, name=p.name))
    batch = Batch(state)
    hurt(batch, ctx, p, count(amount, N_("damage")), why or "攻击/效果伤害")
    return batch.events


def _heal(state: State, ctx: Context, token: Any, amount: Any, outpost: Any, why: str, beyond_max: bool) -> list[kev.Event]:
    """Restore HP, up to the printed HP unless a card says it may go beyond (RULES.md 2026-12)."""
    p = _effect_target(state, token, outpost)
    if not p.has_hp:
        raise IllegalCommand(_("{id} {name} has no HP").format(id=p.id, name=p.name))
    n = count(amount, N_("HP restored"))
    why = why or "卡牌效果"
    if not beyond_max:
        if p.hp >= p.max_hp:
            raise IllegalCommand(_("{id} {name} is at its full {max_hp} HP (--beyond-max if a card lets it exceed that)").format(id=p.id, name=p.name, max_hp=p.max_hp))
        if p.hp + n > p.max_hp:
            why, n = f"{why}（至多回复至{p.max_hp}，原为+{n}）", p.max_hp - p.hp
    if p.kind == OUTPOST:
        return [ev.OutpostRepaired(player=p.owner, index=outpost_index(state, p), amount=n, piece=p.id, reason=why)]
    return [ev.BackroomsPieceHealed(piece=p.id, amount=n, reason=why)]


BEYOND_MAX = Param("beyond_max", "flag", N_("A card lets the piece exceed its printed HP."), False, option=True)


@COMMANDS.command(Param.piece(), Param.count("amount", N_("HP restored.")), Param.why(), BEYOND_MAX,
                  label="回复", labels={"amount": "回复", "beyond_max": "可超过上限"},
                  help=N_("A card effect restores a unit's or an outpost's HP, up to its printed HP unless a card "
                       "says otherwise."),
                  examples=('heal A3 2 --why "杏仁水"', 'heal A1 5 --beyond-max --why "加固"'))
def heal(state: State, ctx: Context, piece: Any, amount: Any, why: str = "", beyond_max: bool = False) -> list[kev.Event]:
    return _heal(state, ctx, piece, amount, 1, why, beyond_max)


@COMMANDS.command(PLAYER_OR_PIECE, Param.count("amount", N_("HP restored.")), OUTPOST_OPTION, Param.why(), BEYOND_MAX,
                  label="修复前哨站", labels={"amount": "回复", "outpost": "前哨站", "beyond_max": "可超过上限"},
                  help=N_("Repair one of a player's outposts (up to its {n.outpost_hp} HP unless a card says otherwise)."),
                  examples=("repair A 5", 'repair A 5 --beyond-max --why "加固"'))
def repair(state: State, ctx: Context, player: Any, amount: Any, outpost: Any = 1, why: str = "",
           beyond_max: bool = False) -> list[kev.Event]:
    p = target_piece(state, player, outpost)
    if p.kind != OUTPOST:
        raise IllegalCommand(_("{id} {name} is not an outpost (heal restores a unit's HP)").format(id=p.id, name=p.name))
    return _heal(state, ctx, player, amount, outpost, why, beyond_max)


# ---------------------------------------------------------------------------- leaving the board


def _remove(state: State, token: Any, to: str, verb: str, why: str, outposts: bool) -> list[kev.Event]:
    p = find_piece(state, token)
    targetable(p, N_("targeted"))
    if p.kind == OUTPOST and not outposts:
        raise IllegalCommand(_("{id} {name} is an outpost: it can be destroyed (destroy), not sent to the {to}").format(id=p.id, name=p.name, to=to))
    batch = Batch(state)
    leave(batch, p, to, f"{why or '卡牌效果'}：{verb}")
    return batch.events


#: The card effects that take a piece off the board: (command, where it goes, what the log says,
#: label, help, example, whether an outpost may be named — it is then destroyed and counted).
LEAVING = (
    ("destroy", "discard", "破坏", "破坏",
     N_("A card effect destroys a piece (to the discard with its equipment; an outpost counts as destroyed)."),
     'destroy B2 --why "现实故障"', True),
    ("discard", "discard", "送入弃牌堆", "弃置", N_("A card effect sends a unit or special to the discard "
     "(with its equipment)."), 'discard A4 --why "使用完毕"', False),
    ("return", "hand", "返回手牌", "返回手牌", N_("A card effect returns a unit or special to its owner's hand "
     "(its equipment goes to the discard)."), 'return B2 --why "撤离"', False),
    ("remove", "removed", "移出游戏", "移除", N_("A card effect removes a piece from the game (it cannot be "
     "recycled)."), 'remove B2 --why "虚空吞噬"', False),
)


def _leaving(word: str, to: str, verb: str, label: str, help: str, example: str, outposts: bool) -> None:
    def run(state: State, ctx: Context, piece: Any, why: str = "") -> list[kev.Event]:
        return _remove(state, piece, to, verb, why, outposts)

    # ``return`` is a Python keyword: the table knows it as ``return_``, players type ``return``.
    name = f"{word}_" if word == "return" else word
    run.__name__ = name
    COMMANDS.command(Param.piece(), Param.why(), label=label, help=help, examples=(example,), name=name,
                     words=(word,))(run)


for _spec in LEAVING:
    _leaving(*_spec)


# ---------------------------------------------------------------------------- views


def piece_json(p: Piece, state: State) -> dict[str, Any]:
    return {"id": p.id, "card": p.card, "name": p.name, "kind": p.kind, "slot": p.slot, "cost": p.cost,
            "attack": p.attack, "hp": p.hp, "max_hp": p.max_hp, "carry": p.carry,
            "equipment": [{"id": q.id, "card": q.card, "name": q.name} for q in state.equipment_of(p.id)],
            "attacked": p.attacked, "explored": p.explored, "stunned": p.stunned, "face_down": p.face_down}


def board_json(owner: int, state: State) -> dict[str, Any]:
    by_slot = lambda kind: [piece_json(p, state) for p in sorted(state.pieces_in(owner, kind), key=lambda q: q.slot)]
    return {"units": by_slot(UNIT), "specials": by_slot(SPECIAL),
            "outposts": [piece_json(p, state) for p in state.outpost_pieces(owner)],
            "discard": list(state.players[owner].discard)}


def piece_text(p: dict[str, Any]) -> str:
    """``A3 笑魇 攻3 HP2/4 承载1/2 [装备：A5 撬棍]`` (a piece of ``board_json``)."""
    parts = [p["id"], p["name"]]
    if p["kind"] == UNIT or p["max_hp"]:
        # An outpost strikes back only when its card gives it an attack.
        parts += ([f"攻{p['attack']}"] if p["kind"] != OUTPOST or p["attack"] else []) + [f"HP{p['hp']}/{p['max_hp']}"]
        if p["kind"] != OUTPOST:
            parts.append(f"承载{len(p['equipment'])}/{p['carry']}")
    if p["equipment"]:
        parts.append("[装备：" + "、".join(f"{q['id']} {q['name']}" for q in p["equipment"]) + "]")
    parts += [word for key, word in (("attacked", "已攻击"), ("explored", "探索中"), ("stunned", "眩晕"),
                                     ("face_down", "背面")) if p[key]]
    return " ".join(parts)


def side_lines(p: dict[str, Any], ctx: Context) -> list[str]:
    out = ["    前哨：" + ("；".join(piece_text(o) for o in p["outposts"]) or "（无）")]
    out.append(f"    单位（{len(p['units'])}/{ctx.numbers.unit_slots}）：" +
               ("；".join(f"{u['slot']}号 {piece_text(u)}" for u in p["units"]) or "（空）"))
    if p["specials"]:
        out.append(f"    特殊（{len(p['specials'])}/{ctx.numbers.special_slots}）：" +
                   "；".join(f"{u['slot']}号 {piece_text(u)}" for u in p["specials"]))
    return out
