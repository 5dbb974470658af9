"""The Backrooms TCG (后室TCG) at the table: setup, phase hooks, limits and losses.

Every function is pure: state (and the game's numbers in ``ctx``) in, events out.

Decisions taken here beyond RULES.md (shown in the log as reasons):
- each player starts with one outpost on the field (otherwise "no outpost standing" would end
  every game before it began);
- a level cut sends every outpost of the old level away with it (RULES.md: the cut-out level
  is stacked with its outposts); a player then places a new outpost or carries one of those;
- the turn that saw a cut cannot end until every player has placed or carried (the seed repeats
  the obligation in every phase of that turn);
- a phase cannot end with an unresolved chain;
- an outpost is destroyed at 0 HP or less, like units (house clarification);
- the board (``board.py``): every card on the field is a piece; summons check the deck list's
  copies against the board and the discard;
- hand and deck sizes (``counts.py``) are tracked when a deck list was given: the draw pile is
  the deck less the G.O.I, the levels (public ones make the shared pile, independent ones the
  player's own pile) and the starting outpost; the opening hands and the draw phase draw from
  it; playing a card takes it from the hand; an empty deck draws nothing (the seed names no
  loss for it);
- an explored unit stays explored until its owner's next turn begins (the seed's "本回合" is a
  round here, and "cannot be attacked / does not shield its outpost" only bite in the
  opponent's turn); a stun lasts until its owner's turn has ended;
- effects used from the hand may be played in either player's turn (they answer attacks).
"""

from __future__ import annotations

from engine.i18n import N_, _
import secrets
from typing import TYPE_CHECKING, Any, Mapping

from ...tracker import events as kev
from . import events as ev
from ...tracker.core import Batch, Context, IllegalCommand, count, who
from ...tracker.kit import turn_mark as _mark
from ...tracker.kit import Param
from ...tracker.pieces import find_card
from ...tracker.state import next_piece_id
from . import board
from . import counts
from . import sentences  # noqa: F401 - imported to register the game's log lines
from .commands import COMMANDS, RULESET
from .state import BackroomsPlayer as Player, BackroomsState as State

if TYPE_CHECKING:  # the types only: reading cards and decks is not every command's work
    from ...decks import Deck

#: How much cost the prepare phase gives, by ``rules.cost_gain`` (the seed: the turn number,
#: counted across both players): (amount, the reason the log shows).
COST_GAIN = {"turn_number": lambda state: (state.turn, f"获得等于当前轮数（第{state.turn}轮）的费用")}
OUTPOST = board.OUTPOST_OPTION


# ---------------------------------------------------------------------------- setup


def public_levels_of(ctx: Context, deck: Deck) -> list[str]:
    """Names of the public level cards in ``deck``, in deck order (unknown ids are skipped)."""
    names = []
    for card_id, _rest in deck.entries:
        card = ctx.cards.get(card_id)
        if card is not None and card.type == "level" and card.get("scope") == "public":
            names.append(card.name)
    return names


def level_pile(ctx: Context, players: int, first: int, levels: tuple[str, ...] = (),
               decks: Mapping[int, Deck] | None = None) -> tuple[str, ...]:
    """The public level pile: ``levels`` as the players shuffled it at the table (card ids or
    names; unknown text is kept as typed), else every public level both players brought,
    shuffled here (RULES.md 2026-12: "开局时需洗入公共层级牌堆"). The pile lies face up, so its
    order is recorded in the game's start and shown to everyone; a replay never shuffles again."""
    if levels:
        return tuple((ctx.card(t).name if ctx.card(t) else t) for t in (x.strip() for x in levels) if t)
    pile = [name for i in range(players) if decks and i in decks for name in public_levels_of(ctx, decks[i])]
    secrets.SystemRandom().shuffle(pile)
    return tuple(pile)


def setup(ctx: Context, players: tuple[str, ...], first: int, levels: tuple[str, ...] = (),
          decks: Mapping[int, Deck] | None = None) -> list[kev.Event]:
    n = ctx.numbers
    pile = level_pile(ctx, len(players), first, levels, decks)
    if not pile:
        raise IllegalCommand(_("backrooms needs a public level pile: give --levels \"L1,L2,…\" or each player's --deck with public level cards"))
    second = (first + 1) % len(players)
    events: list[kev.Event] = [
        kev.GameStarted(game=ctx.defn.id, ruleset=RULESET, players=players, first=first,
                        setup=ev.LevelPileLaid(level_pile=pile, reason="公共层级牌堆洗好，正面朝上"),
                       starting=(("cost", n.starting_cost), ("carries_left", n.outpost_carries_per_game)),
                       reason=f"开局：费用{n.starting_cost}，首个层级：{pile[0]}"),
    ]
    events += [ev.OutpostPlaced(player=i, hp=n.outpost_hp, reason="开局：各放置1座前哨站") for i in range(len(players))]
    # After the outposts: the starting outpost comes from the deck, not from a hand.
    events += counts.opening(ctx, players, first, decks)
    events.append(kev.ReminderGiven(
        text=f"开局：先手{players[first]}抽{n.opening_hand_first}张，后手{players[second]}抽{n.opening_hand_second}张",
        reason="开局抽牌"))
    return events


# ---------------------------------------------------------------------------- levels


def is_cut_turn(state: State, ctx: Context) -> bool:
    """The first turn of rounds 6, 11, 16… (after every ``level_cycle_rounds`` completed rounds)."""
    period = ctx.numbers.level_cycle_rounds
    first_of_round = (state.turn - 1) % len(state.players) == 0
    return first_of_round and state.round > 1 and (state.round - 1) % period == 0


def next_cut_round(state: State, ctx: Context) -> int:
    period = ctx.numbers.level_cycle_rounds
    return ((max(state.round, 1) - 1) // period + 1) * period + 1


def rounds_to_cut(state: State, ctx: Context) -> int:
    """Rounds until the next cut: 5 in round 1, 1 in round 5, 5 again in round 6."""
    return next_cut_round(state, ctx) - max(state.round, 1)


def next_level(state: State) -> str | None:
    if not state.level_pile:
        return None
    return state.level_pile[(state.level_index + 1) % len(state.level_pile)]


# ---------------------------------------------------------------------------- hooks


def first_phase(state: State, ctx: Context) -> str:
    return ctx.defn.phases[0].id


def on_turn_begin(state: State, ctx: Context) -> list[kev.Event]:
    if not is_cut_turn(state, ctx):
        return []
    index = (state.level_index + 1) % len(state.level_pile)
    cycled = "（层级牌堆用尽，从第一张重新开始）" if index == 0 else ""
    return [ev.LevelCut(
        cut_out=state.level or "", cut_in=state.level_pile[index], level_index=index,
        reason=f"第{state.round}回合开始：每{ctx.numbers.level_cycle_rounds}回合切出层级{cycled}")]


def _placement_reminders(state: State, ctx: Context) -> list[kev.Event]:
    out = []
    for i, p in enumerate(state.players):
        if p.must_place_outpost:
            carry = f"或带入前哨（剩余{p.carries_left}次）" if p.carries_left and p.cut_out_outposts else ""
            out.append(kev.ReminderGiven(text=f"{p.name}须放置新前哨站{carry}", player=i, reason="层级切出后"))
    return out


def on_enter(state: State, ctx: Context) -> list[kev.Event]:
    n = ctx.numbers
    phase = state.phase
    me = state.players[state.active]
    out: list[kev.Event] = []
    if phase == "draw":
        if is_cut_turn(state, ctx):
            out.append(kev.ReminderGiven(text=f"层级切出：当前层级为{state.level}", reason="层级切换"))
        if state.turn == 1:
            # RULES.md 2026-12: the draw of 1 starts with turn 2; the opening hand is turn 1's draw.
            out.append(kev.ReminderGiven(text=f"第1{ctx.defn.terms.turn}不抽牌（{me.name}开局已抽{n.opening_hand_first}张）",
                                        player=state.active, reason="抽牌阶段"))
        elif me.counted:
            out += counts.turn_draw(state, ctx)
        else:
            out.append(kev.ReminderGiven(text=f"{me.name}抽{n.draw_per_turn}张牌", player=state.active, reason="抽牌阶段"))
        nxt = next_level(state)
        out.append(kev.ReminderGiven(text=f"{rounds_to_cut(state, ctx)}回合后切出层级：下一层级是{nxt}",
                                    reason="层级倒计时"))
    if phase == n.cost_phase:
        gain, why = COST_GAIN[n.cost_gain](state)
        out.append(ev.CostGained(player=state.active, amount=gain, reason=f"{ctx.phase_name(phase)}：{why}"))
        out.append(kev.ReminderGiven(text=f"{me.name}获得{gain}费用（共{me.cost + gain}）", player=state.active,
                                    reason=ctx.phase_name(phase)))
    if phase == ctx.defn.phases[-1].id:
        for u in state.pieces_in(state.active, "unit"):
            if u.explored:
                # RULES.md 2026-12: the search is optional ("可从牌组中检索").
                out.append(kev.ReminderGiven(text=f"{u.id} {u.name}探索完成：{me.name}可从牌组检索1张道具或装备",
                                            player=state.active, reason="探索"))
    description = ctx.defn.phase(phase).description
    if description and phase not in ("draw", n.cost_phase):
        out.append(kev.ReminderGiven(text=description, reason=ctx.phase_name(phase)))
    return out + _placement_reminders(state, ctx)


def on_exit(state: State, ctx: Context) -> list[kev.Event]:
    if state.chain:
        raise IllegalCommand(_("the chain has {n_chain} unresolved link(s): resolve it before leaving {phase_name} (chain resolve)").format(n_chain=len(state.chain), phase_name=ctx.phase_name(state.phase)))
    if state.phase == ctx.defn.phases[-1].id:
        waiting = [p.name for p in state.players if p.must_place_outpost]
        if waiting:
            raise IllegalCommand(_("after the level cut {waiting} must place a new outpost (place) or carry one (carry) before the turn ends").format(waiting=', '.join(waiting)))
    return []


def losers(state: State, ctx: Context) -> list[tuple[int, str]]:
    limit = ctx.numbers.outposts_destroyed_to_lose
    out = []
    for i, p in enumerate(state.players):
        if p.outposts_destroyed >= limit:
            out.append((i, f"的前哨站已被摧毁{p.outposts_destroyed}座（{limit}座即失败）"))
        elif not p.outposts and not p.must_place_outpost:
            out.append((i, "场上没有前哨站"))
    return out


# ---------------------------------------------------------------------------- commands


@COMMANDS.command(Param.player(), Param.count("amount", N_("Cost to pay.")), Param.why(),
                  label="花费费用", labels={'amount': '费用'}, help=N_("Pay cost from a player's pool (refused beyond what the pool holds)."),
                  examples=('spend A 3 --why "summon Smiler"',))
def spend(state: State, ctx: Context, player: Any, amount: Any, why: str = "") -> list[kev.Event]:
    """Pay cost from a player's pool; refused beyond what the pool holds."""
    i = who(state, player)
    n = count(amount, N_("cost to spend"))
    have = state.players[i].cost
    if n > have:
        raise IllegalCommand(_("{name} has {have} cost; cannot spend {n}").format(name=state.players[i].name, have=have, n=n))
    return [ev.CostSpent(player=i, amount=n, reason=why or "花费费用")]


@COMMANDS.command(Param.player(), Param.count("amount", N_("Cost gained.")), Param.why(),
                  label="获得费用", labels={'amount': '费用'}, help=N_("Gain cost from a card effect (the prepare-phase gain is automatic)."),
                  examples=('gain B 2 --why "Almond Water"',))
def gain(state: State, ctx: Context, player: Any, amount: Any, why: str = "") -> list[kev.Event]:
    """Cost gained from a card effect (the prepare-phase gain is automatic)."""
    i = who(state, player)
    return [ev.CostGained(player=i, amount=count(amount, N_("cost to gain")), reason=why or "卡牌效果")]


@COMMANDS.command(Param.player(), Param.card(help=N_("The outpost card from the deck list (optional)."), label="前哨卡",
                                              default=""),
                  label="放置前哨站", help=N_("Place an outpost ({n.outpost_hp} HP, free; after a level cut each "
                                        "player must place one or carry)."), examples=("place A", "place A 阿尔法基地"))
def place(state: State, ctx: Context, player: Any, card: Any = "") -> list[kev.Event]:
    """Build an outpost (free), or place the new outpost a level cut demands."""
    i = who(state, player)
    why = "层级切出后放置新前哨站" if state.players[i].must_place_outpost else "建立前哨站（免费）"
    counts.take_from_hand(state, i, N_("an outpost"))
    named = {}
    if str(card or "").strip():
        c = find_card(state, ctx, i, card, types=board.OUTPOST_TYPES, what=N_("outpost card"))
        board.check_copies(state, i, c)
        # Outposts have the game's HP, not a printed one (outposts.yaml); attack only if the card has one.
        named = dict(card=c.id, name=c.name, attack=int(c.get("attack", 0) or 0))
    return [ev.OutpostPlaced(player=i, hp=ctx.numbers.outpost_hp, piece=next_piece_id(state, i), reason=why, **named)]


@COMMANDS.command(Param.player(), OUTPOST,
                  label="带入前哨站", labels={'outpost': '前哨站'}, help=N_("After a level cut, carry an outpost into the new level instead of placing one "
                       "({n.outpost_carries_per_game} per game)."), examples=("carry B",))
def carry(state: State, ctx: Context, player: Any, outpost: Any = 1) -> list[kev.Event]:
    """After a cut, carry an outpost of the old level into the new one instead of placing a new one."""
    i = who(state, player)
    p = state.players[i]
    if not p.must_place_outpost:
        raise IllegalCommand(_("{name} can carry an outpost only right after a level cut, before placing one").format(name=p.name))
    if p.carries_left <= 0:
        raise IllegalCommand(_("{name} has carried {outpost_carries_per_game} times already (the limit per game); place a new outpost instead").format(name=p.name, outpost_carries_per_game=ctx.numbers.outpost_carries_per_game))
    if not p.cut_out_outposts:
        raise IllegalCommand(_("{name} had no outpost on the cut-out level to carry").format(name=p.name))
    k = count(outpost, N_("outpost number")) - 1
    if k >= len(p.cut_out_outposts):
        raise IllegalCommand(_("{name} had {n_cut_out_outposts} outpost(s) on the old level; no outpost {k}").format(name=p.name, n_cut_out_outposts=len(p.cut_out_outposts), k=k + 1))
    left = p.carries_left - 1
    return [ev.OutpostCarried(player=i, index=k, reason=f"带入下一层级（本局剩余{left}次）")]


@COMMANDS.command(Param.player(), Param("text", "text", N_("The effect, as said at the table.")),
                  Param("negates", "count", N_("Link number this effect negates."), None, option=True, minimum=1),
                  label="发动效果（连锁）", labels={'text': '效果', 'negates': '无效连锁'}, help=N_("Activate an effect or respond to the chain with one."),
                  examples=('chain push B "negate an effect" --negates 1',), words=("chain", "push"),
                  aliases=("push",))
def chain_push(state: State, ctx: Context, player: Any, text: str, negates: Any = None) -> list[kev.Event]:
    """Add a link to the chain (a response); ``negates`` = the link number it negates on resolving."""
    i = who(state, player)
    target = None
    if negates not in (None, ""):
        target = count(negates, N_("negated link"))
        if target > len(state.chain):
            raise IllegalCommand(_("the chain has {n_chain} link(s); there is no link {target} to negate").format(n_chain=len(state.chain), target=target))
    if not str(text).strip():
        raise IllegalCommand(_("a chain link needs a description of the effect"))
    return [ev.ChainLinkAdded(player=i, text=str(text).strip(), negates=target,
                              reason="发动效果" if not state.chain else "连锁响应")]


@COMMANDS.command(Param.count("link", N_("Link number.")), label="无效连锁", labels={'link': '连锁'}, help=N_("Negate a link now; it still resolves, as nothing."),
                  examples=("chain negate 1",), words=("chain", "negate"), aliases=("negate",))
def chain_negate(state: State, ctx: Context, link: Any) -> list[kev.Event]:
    """Negate a link now (by an effect outside the chain); it will still resolve, as nothing."""
    k = count(link, N_("link number"))
    found = [l for l in state.chain if l.number == k]
    if not found:
        raise IllegalCommand(_("there is no link {k} in the chain").format(k=k))
    if found[0].negated:
        raise IllegalCommand(_("link {k} is already negated").format(k=k))
    return [ev.ChainLinkNegated(link=k, reason="被无效")]


@COMMANDS.command(Param("one", "flag", N_("Resolve only the last link."), False, option=True),
                  label="处理连锁", labels={'one': '只处理最后一个'}, help=N_("Resolve the chain last-in-first-out and show the order."),
                  examples=("chain resolve",), words=("chain", "resolve"), aliases=("resolve",))
def chain_resolve(state: State, ctx: Context, one: bool = False) -> list[kev.Event]:
    """Resolve the chain last-in-first-out (or only its top link with ``one``)."""
    if not state.chain:
        raise IllegalCommand(_("the chain is empty"))
    batch = Batch(state)
    order: list[int] = []
    while batch.state.chain:
        link = batch.state.chain[-1]
        order.append(link.number)
        what = "无效化，不产生效果" if link.negated else "处理"
        batch.emit(ev.ChainLinkResolved(link=link.number, text=link.text, negated=link.negated,
                                        reason=f"连锁后发先至：连锁{link.number}{what}"))
        if link.negates and not link.negated:
            target = [l for l in batch.state.chain if l.number == link.negates]
            if target and not target[0].negated:
                batch.emit(ev.ChainLinkNegated(link=link.negates, reason=f"连锁{link.number}的效果使其无效"))
        if one:
            break
    if not batch.state.chain:
        batch.emit(ev.ChainCleared(order=tuple(order), reason="连锁处理完毕"))
    return batch.events


# ---------------------------------------------------------------------------- views


def player_json(p: Player, state: State, ctx: Context) -> dict[str, Any]:
    i = state.players.index(p)
    return {"cost": p.cost, "outposts_destroyed": p.outposts_destroyed,
            "carries_left": p.carries_left, "must_place_outpost": p.must_place_outpost, **board.board_json(i, state),
            **counts.counts_json(p)}


def state_json(state: State, ctx: Context) -> dict[str, Any]:
    return {
        "level": state.level, "next_level": next_level(state), "rounds_to_cut": rounds_to_cut(state, ctx),
        "level_pile": list(state.level_pile), "cuts": state.cuts,
        "chain": [{"link": l.number, "player": state.players[l.player].name, "text": l.text,
                   "negates": l.negates, "negated": l.negated} for l in state.chain],
        "last_resolution": list(state.last_resolution),
    }


def board_lines(s: dict[str, Any], ctx: Context) -> list[str]:
    """The game's part of the text board, from ``status_json`` (``s``)."""
    out = [f"层级：{s['level']} | {s['rounds_to_cut']}回合后切出，下一层级：{s['next_level']}",
           "公共层级牌堆（正面朝上）：" + " → ".join(s["level_pile"])]
    for p in s["players"]:
        extra = "  ⚠须放置/带入前哨" if p["must_place_outpost"] else ""
        out.append(f"{_mark(p, s)} {p['name']}: 费用 {p['cost']} | 前哨已摧毁 {p['outposts_destroyed']} | "
                   f"可带入 {p['carries_left']} | {counts.counts_text(p)} | "
                   f"弃牌堆 {len(p['discard']) + p.get('discard_unnamed', 0)}{extra}")
        out += board.side_lines(p, ctx)
    if s.get("chain"):
        out.append("连锁：" + " ← ".join(
            f"{l['link']}.{l['player']}:{l['text']}" + ("（已无效）" if l["negated"] else "") for l in s["chain"]))
    if s.get("last_resolution"):
        out.append("上次连锁处理顺序：" + " → ".join(s["last_resolution"]))
    return out


def board_view(s: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The board as the table page shows it (``engine.live.board``; built in ``view.py``)."""
    from .view import board_view as view

    return view(s, ctx)


#: Older stores wrote this game's setup into ``GameStarted`` itself (see ``engine.tracker.events``).
LEGACY_SETUP = ev.LevelPileLaid
