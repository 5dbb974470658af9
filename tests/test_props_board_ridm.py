"""ridm's board under random play (hypothesis state machine on the pure decider).

After every step: at most one operator per zone (game.yaml's capacity); block never below 0; a
routed operator never moves or attacks; sanity is lost only at a turn end, by exactly the players
whose deploy zone holds an opposing operator; piece ids are never reused; each player's cards are
all somewhere: draw pile + hand + discard + charge slot + skill slot + preparation zone + operators
on the board + skills covering them = the deck list (the whole deck is the draw pile at the start;
setup takes nothing out), no count below 0; undo restores the exact earlier state, and the log
refolds to the state and survives the codec.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine.games.ridm import board
from engine.games.ridm.counts import ZONE_NAMES
from engine.games.ridm.events import SanityChanged
from engine.games.ridm.state import operators
from engine.tracker import codec
from engine.tracker import events as kev
from engine.tracker.state import State, apply, fold

from test_board_ridm import CARDS, DECK
from track_helpers import InlineGame, try_checked, undo_checked

PLAYERS = st.sampled_from(["A", "B"])
OPERATOR_CARDS = [c for c in DECK if CARDS[c].type == "operator"] + ["nobody"]
ZONES = list(board.ZONE_WORDS)
ZONES_OF_CARDS = list(ZONE_NAMES)
DECK_SIZE = sum(DECK.values())


def forward(state: State, piece_id: str) -> list[str]:
    """The zone words one step along the lane from ``piece_id`` (most moves random play tries)."""
    o = state.piece(piece_id)
    if o is None:
        return []
    return [w for w in ZONES if board.adjacent(state, (o.side, o.zone), board.destination(state, o, w))]


#: Command names, repeated by how often random play tries them.
NAMES = (["next"] * 3 + ["undo"] * 2 + ["deploy"] * 5 + ["move"] * 8 + ["fight"] * 7 + ["withdraw", "replace"] * 2
         + ["adjust", "charge", "charge_skill", "activate", "end_skill", "take", "sanity"]
         + ["charge", "draw", "transfer", "action"])


def draw_command(data, state: State) -> tuple[str, dict]:
    """A command with arguments drawn from what is on the board now (and some that do not fit)."""
    draw = lambda options: data.draw(st.sampled_from(options))  # noqa: E731
    ids = [p.id for p in state.pieces] + ["A9"]
    mine = [p.id for p in state.pieces if p.owner == state.active] or ids
    theirs = [p.id for p in state.pieces if p.owner != state.active] or ids
    active = state.players[state.active].name
    player = lambda: draw([active, active, active, "A", "B"])  # noqa: E731
    # Outside the action phase little but next is legal; in it, the board is played.
    name = draw(NAMES if state.phase == "main" else ["next"] * 4 + NAMES)
    args = {
        "deploy": lambda: {"player": player(), "operator": draw(OPERATOR_CARDS), "by_effect": draw([False, False, True]),
                           "zone": draw(["deploy", "deploy", "action"])},
        "move": lambda: {"operator": (o := draw(mine)), "zone": draw(ZONES + forward(state, o) * 4),
                         "by_effect": draw([False, False, False, True])},
        "fight": lambda: {"attacker": draw(mine), "defender": draw(theirs + ids[:1]),
                          "by_effect": draw([False, False, False, True])},
        "withdraw": lambda: {"operator": draw(mine), "by_effect": draw([False, False, True]),
                             "to": draw(["prep", "prep", "hand"])},
        "replace": lambda: {"operator": draw(mine), "card": draw(OPERATOR_CARDS)},
        "adjust": lambda: {"operator": draw(ids), "stat": draw(["attack", "defense", "block"]), "delta": draw([-3, -1, 1, 2])},
        "charge": lambda: {"player": player(), "cards": draw([1, 1, 2, 7]), "draw": draw([0, 0, 1, 2]),
                           "by_effect": draw([False, False, True])},
        "charge_skill": lambda: {"player": player(), "skill": draw(["blade-s", "wall-s"]), "search": draw([False, True])},
        "draw": lambda: {"player": player(), "cards": draw([1, 1, 3, 20])},
        "transfer": lambda: {"player": player(), "source": draw(ZONES_OF_CARDS), "dest": draw(ZONES_OF_CARDS),
                             "cards": draw([1, 1, 2, 20])},
        "action": lambda: {"player": player(), "name": "集结", "requirement": draw([0, 3])},
        "activate": lambda: {"player": player(), "skill": draw(["blade-s", "wall-s"])},
        "end_skill": lambda: {"player": player(), "skill": draw(["斩击", "坚壁"])},
        "take": lambda: {"player": player(), "card": draw(["剑士", "铁壁", "玻璃"])},
        "sanity": lambda: {"player": player(), "delta": draw([-1, 1])},
    }.get(name, dict)()
    return name, args


def turn_end_losses(before, events) -> tuple[set[int], set[int]]:
    """(players who should lose sanity, players who did) over a ``next`` leaving the end phase:
    the board just before the next turn begins decides."""
    state, expected, lost = before, set(), set()
    for e in events:
        if isinstance(e, (kev.TurnBegan, kev.GameEnded)):
            break
        if isinstance(e, SanityChanged):
            lost.add(e.player)
        state = apply(state, e)
    expected = {i for i in range(len(state.players)) if board.invaders(state, i)}
    return expected, lost


class RidmBoardMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.g = InlineGame("ridm", decks={"A": DECK, "B": DECK}, cards=CARDS)
        self.done = [self.g.state]
        self.cap = {z: board.capacity(self.g.ctx, z) for z in (board.DEPLOY, board.ACTION)}

    @initialize(opening=st.sampled_from(["empty", "at the gate", "inside", "both in front"]))
    def opening(self, opening):
        """Random play seldom walks an operator three zones: some runs start with one at the gate
        of B's deploy zone, or inside it."""
        if opening == "empty":
            return
        g = self.g
        g.next_to(1, "main")
        g.do("deploy", player="A", operator="scout")
        if opening == "both in front":
            g.next_to(2, "main")
            g.do("deploy", player="B", operator="twin")
        steps = ((3, "action"), (5, "enemy-action")) + (((7, "enemy-deploy"),) if opening == "inside" else ())
        for turn, zone in steps:
            g.next_to(turn, "main")
            g.do("move", operator="A1", zone=zone)
        self.done = [g.state]

    @rule(command=st.data())
    def act(self, command):
        before = self.g.state
        name, args = draw_command(command, before)
        if name == "undo":
            return self.undo()
        if before.over:
            return
        events = try_checked(self, name, **args)
        if events is None:
            return
        after = self.g.state
        # A routed operator neither moved nor attacked.
        for o in operators(before):
            if o.routed:
                now = after.piece(o.id)
                assert now is None or (now.acted_turn, now.side, now.zone) == (o.acted_turn, o.side, o.zone), \
                    f"routed {o.id} acted"
        # Sanity is lost from the board only: at a turn end, by exactly the invaded players.
        if name == "next" and before.phase == self.g.ctx.defn.phases[-1].id:
            expected, lost = turn_end_losses(before, events)
            assert lost == expected, f"turn-end sanity loss {lost}, board says {expected}"
        elif name != "sanity":
            assert not [e for e in events if isinstance(e, SanityChanged)], f"{name} changed sanity"
        # Piece ids are never reused (by the game in effect: an undone piece's id comes back).
        new = {p.id for p in after.pieces} - {p.id for p in before.pieces}
        earlier = {p.id for s in self.done for p in s.pieces}
        assert not new & earlier, f"piece id reused: {new & earlier}"
        self.done.append(after)

    def undo(self):
        undo_checked(self)

    @invariant()
    def board_limits_hold(self):
        s = self.g.state
        for side in range(len(s.players)):
            for zone, cap in self.cap.items():
                assert cap is None or len(board.standing(s, side, zone)) <= cap
        for o in operators(s):
            assert o.block >= 0 and o.attack >= 0 and o.defense >= 0
            assert o.routed or o.block > 0, f"{o.id} at block 0 but not routed"
        for p in s.players:
            assert p.deployments_used <= self.g.ctx.numbers.active_deployments_per_turn
            assert p.charges >= 0 and len(p.skill_slot) <= p.charges
            assert all(t.left > 0 for t in p.timers) or s.phase != self.g.ctx.defn.phases[0].id
            for t in p.timers:
                assert not t.piece or s.piece(t.piece) is not None, "a skill outlived its operator"

    @invariant()
    def every_card_is_somewhere(self):
        s = self.g.state
        for i, p in enumerate(s.players):
            assert min(p.deck, p.hand, p.discard, p.charge_cards) >= 0, f"{p.name}: a count below 0"
            assert p.charge_cards + len(p.skill_slot) <= p.charges
            board_ = sum(1 for o in operators(s) if o.owner == i) + len(p.timers)
            zones = p.deck + p.hand + p.discard + p.charge_cards + len(p.skill_slot) + len(p.prep) + board_
            assert zones == DECK_SIZE, (f"{p.name}: deck {p.deck} hand {p.hand} discard {p.discard} charge "
                                        f"{p.charge_cards} slot {len(p.skill_slot)} prep {len(p.prep)} board {board_}")

    @invariant()
    def the_log_refolds_and_survives_the_codec(self):
        self.steps = getattr(self, "steps", 0) + 1
        if self.steps % 8:  # a whole refold per step would make the run quadratic
            return
        assert fold(self.g.events) == self.g.state
        text = codec.canonical(codec.encode(self.g.state))
        assert codec.decode(json.loads(text), State) == self.g.state


TestRidmBoard = RidmBoardMachine.TestCase
TestRidmBoard.settings = settings(max_examples=30, stateful_step_count=120, deadline=None,
                                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
