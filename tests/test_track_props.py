"""Property-based (stateful) tests: random legal and illegal command sequences for each game.

Invariants after every step: a refused command changes nothing (state and stored log); the
rules' limits hold; undo restores the exact earlier state and redo the exact later one; the
log replayed from the store equals the live state.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import json

from engine.tracker import IllegalCommand, Store

from engine.live import LiveGame
from engine.tracker import codec
from engine.live import session
from engine.tracker.replay import Replay
from engine.tracker.state import State

PLAYERS = st.sampled_from(["A", "B", "a", "2", "C"])
SMALL = st.integers(-2, 12)
BIG = st.integers(-1, 25)
#: Piece ids, those on the board and those never made, so look-ups fail as well as succeed.
PIECES = st.sampled_from(["A1", "A2", "A3", "B1", "B2", "B3", "C1"])


def cmd(command: str, weight: int = 1, /, **args) -> list:
    return [st.fixed_dictionaries(args).map(lambda a, n=command: (n, a))] * weight


COMMANDS = {
    "backrooms": [
        *cmd("next", 8), *cmd("spend", 2, player=PLAYERS, amount=BIG), *cmd("gain", player=PLAYERS, amount=SMALL),
        *cmd("damage", 3, player=PLAYERS, amount=BIG, outpost=st.integers(0, 3)),
        *cmd("repair", player=PLAYERS, amount=SMALL, outpost=st.integers(1, 2)),
        *cmd("place", player=PLAYERS), *cmd("carry", 2, player=PLAYERS, outpost=st.integers(1, 2)),
        *cmd("chain_push", player=PLAYERS, text=st.sampled_from(["弃牌", "无效", ""]),
             negates=st.sampled_from([None, 1, 2, 4])),
        *cmd("chain_negate", link=st.integers(0, 3)), *cmd("chain_resolve", one=st.booleans()),
        *cmd("summon", 3, card=st.sampled_from(["笑魇", "猎犬", "M.E.G.探员", "杏仁水", "嗡鸣"]), player=PLAYERS),
        *cmd("equip", card=st.sampled_from(["撬棍", "手电筒"]), unit=PIECES),
        *cmd("attack", 3, unit=PIECES, target=PIECES), *cmd("heal", piece=PIECES, amount=SMALL),
        *cmd("explore", unit=PIECES), *cmd("destroy", piece=PIECES),
    ],
    "duel": [
        *cmd("next", 6), *cmd("draw", player=PLAYERS, cards=st.integers(0, 3)),
        *cmd("draw_skill", player=PLAYERS, kind=st.sampled_from(["draw1", "fill", "x"])),
        *cmd("skill", 2, player=PLAYERS, kind=st.sampled_from(["send2", "send3", "sendall", "pierce", "y"])),
        *cmd("descend", 3, player=PLAYERS, card=st.sampled_from(["侦察鹰", "野战炮手", "外门剑修", "盾卫伍长"]),
             guard=st.booleans()),
        *cmd("rank_up", player=PLAYERS, card=st.sampled_from(["野战炮手", "外门剑修"]), fighter=PIECES),
        *cmd("assist", player=PLAYERS, card=st.sampled_from(["侦察鹰", "火线工兵"]), fighter=PIECES),
        *cmd("attack", 3, fighter=PIECES, target=PIECES, pierce=st.sampled_from([None, True, False])),
        *cmd("slain", piece=PIECES),
        *cmd("move", player=PLAYERS, source=st.sampled_from(["deck", "hand", "field", "netherworld", "sky"]),
             dest=st.sampled_from(["deck", "hand", "netherworld"]), cards=st.integers(0, 12)),
        *cmd("life", 2, player=PLAYERS, delta=st.integers(-8, 3)), *cmd("battle", 2, player=PLAYERS, amount=st.integers(-1, 9)),
    ],
    "ridm": [
        *cmd("next", 6), *cmd("sanity", player=PLAYERS, delta=st.integers(-1, 1)),
        *cmd("deploy", 2, player=PLAYERS, operator=st.sampled_from(["陈", "德克萨斯", "银灰"]), by_effect=st.booleans()),
        *cmd("move", 2, operator=PIECES, zone=st.sampled_from(["deploy", "action", "enemy-action", "enemy-deploy"])),
        *cmd("fight", 2, attacker=PIECES, defender=PIECES), *cmd("withdraw", operator=PIECES),
        *cmd("charge", player=PLAYERS, cards=st.integers(0, 3)),
        *cmd("charge_skill", player=PLAYERS, skill=st.sampled_from(["S1", "S2"])),
        *cmd("activate", 2, player=PLAYERS, skill=st.sampled_from(["S1", "S2"]), operator=st.sampled_from(["能天使", None]),
             duration=st.integers(-1, 3), cost=st.integers(0, 3)),
        *cmd("end_skill", player=PLAYERS, skill=st.sampled_from(["S1", "S2", "能天使"])),
        *cmd("action", player=PLAYERS, name=st.just("行动"), requirement=st.integers(-1, 3)),
    ],
}


class TrackerMachine(RuleBasedStateMachine):
    GAME = "backrooms"

    def __init__(self):
        super().__init__()
        # Snapshots every few entries, so resuming and undoing across them is exercised too.
        self._every, session.SNAPSHOT_EVERY = session.SNAPSHOT_EVERY, 7
        self.dir = Path(tempfile.mkdtemp(prefix="track-props-"))
        self.store = Store(self.dir / "g.sqlite")
        kwargs = {"levels": ("L0", "L1")} if self.GAME == "backrooms" else {}
        # The shipped card data, so pieces enter the board and snapshots and undo carry them.
        self.live = LiveGame.new(self.store, self.GAME, ("A", "B"), **kwargs)
        self.numbers = self.live.defn.rules
        self.done = [self.live.state]      # model: state after each command in effect
        self.undone: list = []             # model: states undone, for redo

    def teardown(self):
        session.SNAPSHOT_EVERY = self._every
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @rule(command=st.data())
    def act(self, command):
        name, args = command.draw(st.one_of(COMMANDS[self.GAME]))
        before, seq = self.live.state, self.live.replay.last_seq
        try:
            self.live.do(name, **args)
        except IllegalCommand:
            assert self.live.state == before, "a refused command changed the state"
            assert self.store.last_seq(self.live.id) == seq, "a refused command was stored"
            return
        self.done.append(self.live.state)
        self.undone.clear()

    @precondition(lambda self: len(self.done) > 1)
    @rule()
    def undo(self):
        self.live.undo()
        self.undone.append(self.done.pop())
        assert self.live.state == self.done[-1], "undo did not restore the exact earlier state"

    @precondition(lambda self: self.undone)
    @rule()
    def redo(self):
        self.live.redo()
        self.done.append(self.undone.pop())
        assert self.live.state == self.done[-1], "redo did not restore the exact later state"

    @rule()
    def replay_from_store(self):
        again = LiveGame(self.store, self.live.id)
        assert again.state == self.live.state
        full = LiveGame(self.store, self.live.id, use_snapshots=False)
        assert full.state == self.live.state
        self.live = again if len(self.done) % 2 else full   # carry on from a resumed game

    @rule()
    def snapshot_restores_the_replayed_state(self):
        """A snapshot written now and restored gives exactly the state, undo stack and redo stack
        of replaying the log; and the state survives the codec through canonical JSON."""
        replay = self.live.replay
        restored = Replay()
        restored.restore(replay.snapshot(), lambda seq: self.store.digest_at(self.live.id, seq))
        assert restored.state == replay.state == self.live.state
        assert [s for s, _ in restored.applied] == [s for s, _ in replay.applied]
        assert restored.redo == replay.redo and restored.last_seq == replay.last_seq
        text = codec.canonical(codec.encode(self.live.state))
        assert codec.decode(json.loads(text), State) == self.live.state

    @invariant()
    def the_chain_verifies(self):
        assert self.store.verify(self.live.id)[0] == self.live.replay.last_seq

    @invariant()
    def turn_structure_holds(self):
        s = self.live.state
        assert s.turn >= 1 and s.round == (s.turn + 1) // 2
        assert s.active == (s.first + s.turn - 1) % 2
        assert s.phase in [p.id for p in self.live.defn.phases]
        assert s.over == (s.end_reason != "")

    @invariant()
    def game_limits_hold(self):
        s, n = self.live.state, self.numbers
        for p in s.players:
            if self.GAME == "backrooms":
                assert p.cost >= 0
                assert all(hp > n.unit_destroyed_at_hp for hp in p.outposts)
                assert 0 <= p.carries_left <= n.outpost_carries_per_game
                assert p.outposts_destroyed <= n.outposts_destroyed_to_lose
                if not s.over:
                    assert p.outposts or p.must_place_outpost
                    assert p.outposts_destroyed < n.outposts_destroyed_to_lose
            elif self.GAME == "duel":
                assert p.descents_used <= n.descents_per_turn
                assert p.in_turn_skills_used <= n.in_turn_skills_per_turn
                assert p.draw_skills_used <= n.draw_skills_per_turn
                fighters = [x for x in s.pieces_of(s.players.index(p)) if type(x).__name__ == "DuelFighter"]
                assert len(fighters) <= n.max_fighters and p.hand >= 0 and p.deck >= 0 and p.netherworld >= 0
                if not s.over:
                    assert p.life > 0 and not p.decked_out
            else:
                assert p.deployments_used <= n.active_deployments_per_turn
                assert p.skill_slot_charges_used <= n.skill_slot_charges_per_turn
                assert p.charges >= 0 and all(t.left >= 0 for t in p.timers)
                if not s.over:
                    assert p.sanity > 0


SETTINGS = settings(max_examples=25, stateful_step_count=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


class BackroomsMachine(TrackerMachine):
    GAME = "backrooms"


class DuelMachine(TrackerMachine):
    GAME = "duel"


class RidmMachine(TrackerMachine):
    GAME = "ridm"


TestBackrooms = BackroomsMachine.TestCase
TestBackrooms.settings = SETTINGS
TestDuel = DuelMachine.TestCase
TestDuel.settings = SETTINGS
TestRidm = RidmMachine.TestCase
TestRidm.settings = SETTINGS
