"""The duel board under random play (hypothesis state machine on the pure decider, no store).

Random legal and illegal commands — descents, rank-ups, assists, stances, attacks, effects that
move pieces and cards or change their numbers, skills, turns — and after every step: at most ``max_fighters`` fighters a
side, a fighter's assists within its assist limit, every card counted (deck + hand + field +
netherworld face up and down + removed = the deck size), attack and guard never below 0, a
refused command changes nothing, and undo restores the exact earlier state.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from engine.games.duel.board import assist_ranks, attack_of, cards_counted, fighters_of, guard_of
from engine.games.duel.state import DuelAssist, DuelFighter

from test_board_duel import CARDS, DECK_SIZE, LIST, N
from track_helpers import InlineGame, try_checked, undo_checked

NAMES = st.sampled_from([c.name for c in CARDS.values()] + ["knight", "无此牌"])
PLAYERS = st.sampled_from(["A", "B"])
ZONES = st.sampled_from(["deck", "hand", "netherworld", "removed", "field"])


class DuelBoard(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.g = InlineGame("duel", decks={"A": dict(LIST), "B": dict(LIST)}, cards=CARDS)
        self.done = [self.g.state]

    def _piece(self, data, owner=None):
        """Mostly a piece of ``owner`` (None: the active player's), sometimes any id at all."""
        s = self.g.state
        owner = s.active if owner is None else owner
        own = [p.id for p in s.pieces if p.owner == owner]
        every = [p.id for p in s.pieces] + ["Z9"]
        return data.draw(st.sampled_from(own) if own and data.draw(st.integers(0, 4)) else st.sampled_from(every))

    def _player(self, data):
        s = self.g.state
        return data.draw(st.sampled_from([s.players[s.active].name] * 4 + ["A", "B"]))

    def _try(self, name, **args):
        if try_checked(self, name, **args) is not None:
            self.done.append(self.g.state)

    @precondition(lambda self: not self.g.state.over)
    @rule()
    def next_phase(self):
        self._try("next")

    @precondition(lambda self: not self.g.state.over)
    @rule()
    def to_the_next_main_phase(self):
        for _ in range(len(self.g.ctx.defn.phases)):
            self._try("next")
            if self.g.state.phase == "main" or self.g.state.over:
                return

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), card=NAMES, guard=st.booleans())
    def descend(self, data, card, guard):
        self._try("descend", player=self._player(data), card=card, guard=guard)

    @precondition(lambda self: not self.g.state.over)
    @rule(card=NAMES, data=st.data())
    def rank_up(self, card, data):
        self._try("rank_up", player=self._player(data), card=card, fighter=self._piece(data))

    @precondition(lambda self: not self.g.state.over)
    @rule(card=NAMES, data=st.data())
    def assist(self, card, data):
        self._try("assist", player=self._player(data), card=card, fighter=self._piece(data))

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), stance=st.sampled_from(["ready", "guard"]), why=st.sampled_from(["", "效果"]))
    def stance(self, data, stance, why):
        self._try("stance", fighter=self._piece(data), stance=stance, why=why)

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), attack=st.integers(-12, 4), guard=st.integers(-12, 4), attacks=st.integers(0, 1),
          lasting=st.booleans())
    def boost(self, data, attack, guard, attacks, lasting):
        self._try("boost", fighter=self._piece(data), attack=attack, guard=guard, attacks=attacks, lasting=lasting,
                  why="效果")

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), pierce=st.sampled_from([None, True, False]))
    def attack(self, data, pierce):
        s = self.g.state
        args = {"fighter": self._piece(data), "target": self._piece(data, owner=s.other(s.active))}
        if pierce is not None:
            args["pierce"] = pierce
        self._try("attack", **args)

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), kind=st.sampled_from(["pierce", "send2", "send3", "sendall"]))
    def skill(self, data, kind):
        self._try("skill", player=self._player(data), kind=kind)

    @precondition(lambda self: not self.g.state.over)
    @rule(player=PLAYERS, cards=st.integers(1, 3))
    def draw(self, player, cards):
        self._try("draw", player=player, cards=cards)

    @precondition(lambda self: not self.g.state.over)
    @rule(how=st.sampled_from(["slain", "destroy", "annihilate"]), data=st.data())
    def leave(self, how, data):
        self._try(how, piece=self._piece(data))

    @precondition(lambda self: not self.g.state.over)
    @rule(player=PLAYERS, source=ZONES, dest=ZONES, cards=st.integers(1, 7), card=NAMES, data=st.data(),
          face_down=st.booleans(), guard=st.booleans())
    def move(self, player, source, dest, cards, card, data, face_down, guard):
        args = dict(player=player, source=source, dest=dest, cards=cards, face_down=face_down, guard=guard)
        if dest == "field":
            args["card"] = card
        if source == "field":
            args["piece"] = self._piece(data)
        self._try("move", **args)

    @precondition(lambda self: len(self.done) > 1)
    @rule()
    def undo(self):
        undo_checked(self)

    @invariant()
    def board_limits_hold(self):
        s = self.g.state
        for i in range(len(s.players)):
            assert len(fighters_of(s, i)) <= N.max_fighters
            assert cards_counted(s, i) == DECK_SIZE, "a card went missing or appeared"
            p = s.players[i]
            assert min(p.hand, p.deck, p.netherworld, p.netherworld_face_down, p.removed) >= 0
            assert p.hand <= N.hand_limit
            for f in fighters_of(s, i):
                assert assist_ranks(s, f) <= f.rank
                assert attack_of(s, f) >= 0 and guard_of(s, f) >= 0 and f.attacks_left >= 0
        fighters = {p.id for p in s.pieces if isinstance(p, DuelFighter)}
        assert all(a.fighter in fighters for a in s.pieces if isinstance(a, DuelAssist)), "an assist behind nobody"
        assert len({p.id for p in s.pieces}) == len(s.pieces)


DuelBoard.TestCase.settings = settings(max_examples=60, stateful_step_count=50, deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestDuelBoard = DuelBoard.TestCase
