"""A hypothesis state machine on the backrooms board (pure decider, no store): random summons,
equipment, attacks, damage, heals, buffs, draws, moves between zones, searches, returns,
phase changes and undos, with the board's invariants checked after every step (cards conserved
among deck, hand, board, discard, removed and under cut-out levels among them)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine.games.backrooms.counts import ZONES
from engine.tracker.state import fold

from test_board_backrooms import CARDS, DECK
from track_helpers import LEVELS, InlineGame, try_checked, undo_checked

SUMMONABLE = sorted(c for c in DECK if CARDS[c].type in ("entity", "character", "item", "effect"))
UNITS = sorted(c for c in DECK if CARDS[c].type in ("entity", "character"))
EQUIPMENT = sorted(c for c in DECK if CARDS[c].type == "equipment")
HUMAN = "scout"


def _number(piece_id: str) -> int:
    return int(piece_id[1:])


class BoardMachine(RuleBasedStateMachine):
    @initialize(first=st.integers(0, 1))
    def start(self, first):
        self.g = InlineGame("backrooms", decks={"A": DECK, "B": DECK}, cards=CARDS, levels=LEVELS, first=first)
        self.n = self.g.ctx.numbers
        self.done = [self.g.state]

    # ------------------------------------------------------------------ helpers

    def _do(self, name, **args):
        before = self.g.state
        if try_checked(self, name, **args) is None:
            return
        after = self.g.state
        issued = {p.id for p in before.pieces} | {p.id for p in before.cut_out}
        for p in after.pieces:
            if p.id not in issued:
                assert _number(p.id) > before.pieces_made[p.owner], f"id {p.id} was given before"
        self.done.append(after)

    def _pick(self, data, pieces):
        return data.draw(st.sampled_from(pieces)).id if pieces else "Z9"

    # ------------------------------------------------------------------ rules

    @precondition(lambda self: not self.g.state.over)
    @rule(card=st.sampled_from(SUMMONABLE), special=st.sampled_from((False, False, False, True)),
          go=st.integers(0, 3))
    def summon(self, card, special, go):
        if go:  # mostly in the main phase, where summoning is allowed; sometimes wherever it is
            self._to("main")
        self._do("summon", card=card, special=special)

    @precondition(lambda self: not self.g.state.over)
    @rule(cards=st.lists(st.sampled_from(UNITS), min_size=1, max_size=3))
    def summon_units(self, cards):
        """Units are what the board is about: a second, denser way to bring them in."""
        self._to("main")
        for card in cards:
            self._do("summon", card=card)

    @precondition(lambda self: not self.g.state.over and self._units())
    @rule(card=st.sampled_from(EQUIPMENT), data=st.data())
    def equip(self, card, data):
        self._do("equip", card=card, unit=self._pick(data, [p for p in self.g.state.pieces if p.kind == "unit"]))

    def _units(self):
        return [p for p in self.g.state.pieces if p.kind == "unit"]

    @precondition(lambda self: not self.g.state.over and self._units())
    @rule(data=st.data())
    def attack(self, data):
        if data.draw(st.integers(0, 3)):
            self._to("battle")
        s = self.g.state
        mine = [p for p in s.pieces if p.owner == s.active and p.kind == "unit"]
        theirs = [p for p in s.pieces if p.owner != s.active and p.kind in ("unit", "outpost")]
        self._do("attack", unit=self._pick(data, mine), target=self._pick(data, theirs))

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), amount=st.integers(1, 25))
    def damage(self, data, amount):
        self._do("damage", player=self._pick(data, list(self.g.state.pieces)), amount=amount, why="效果")

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), amount=st.integers(1, 10), beyond=st.booleans())
    def heal(self, data, amount, beyond):
        self._do("heal", piece=self._pick(data, list(self.g.state.pieces)), amount=amount, beyond_max=beyond)

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data(), delta=st.integers(-6, 6).filter(bool), hp=st.booleans())
    def buff(self, data, delta, hp):
        self._do("buff", piece=self._pick(data, list(self.g.state.pieces)), delta=f"{delta:+d}", hp=hp)

    @precondition(lambda self: not self.g.state.over and self._units())
    @rule(data=st.data())
    def explore_or_stun(self, data):
        target = self._pick(data, [p for p in self.g.state.pieces if p.kind == "unit"])
        if data.draw(st.booleans()):
            self._do("explore", unit=target)
        else:
            self._do("stun", piece=target, why="效果")

    @precondition(lambda self: not self.g.state.over)
    @rule(phase=st.sampled_from(("draw", "main", "main", "battle", "battle", "end")))
    def next(self, phase):
        self._to(phase)

    def _to(self, phase):
        """Press next until ``phase`` (at most one turn's worth), placing outposts a cut demands."""
        if self.g.state.phase == phase:
            return
        for _ in range(len(self.g.ctx.defn.phases)):
            if self.g.state.over:
                return
            s = self.g.state
            if s.phase == "end":
                for p in s.players:
                    if p.must_place_outpost:
                        self._do("place", player=p.name)
            self._do("next")
            if self.g.state.phase == phase:
                return

    @precondition(lambda self: not self.g.state.over)
    @rule(seat=st.integers(0, 1), cards=st.integers(1, 8))
    def draw(self, seat, cards):
        self._do("draw", player=self.g.state.players[seat].name, cards=cards, why="效果")

    @precondition(lambda self: not self.g.state.over)
    @rule(seat=st.integers(0, 1), source=st.sampled_from(ZONES), dest=st.sampled_from(ZONES),
          cards=st.integers(1, 12), card=st.sampled_from((None, None, *sorted(DECK))))
    def move(self, seat, source, dest, cards, card):
        self._do("move", player=self.g.state.players[seat].name, source=source, dest=dest, cards=cards, card=card)

    @precondition(lambda self: not self.g.state.over and self._units())
    @rule(data=st.data(), to=st.sampled_from(("return_", "remove", "discard", "destroy")))
    def leave(self, data, to):
        self._do(to, piece=self._pick(data, list(self.g.state.pieces)), why="效果")

    @precondition(lambda self: not self.g.state.over)
    @rule(data=st.data())
    def explore_and_search(self, data):
        """A human explores in the main phase and searches at the end of the turn (deck → hand)."""
        self._to("main")
        self._do("summon", card=HUMAN)
        s = self.g.state
        humans = [p for p in s.pieces if p.owner == s.active and p.card == HUMAN]
        if humans:
            self._do("explore", unit=humans[-1].id)
        self._to("end")
        self._do("search", unit=self._pick(data, self._units()), card=data.draw(st.sampled_from((None, *EQUIPMENT))))

    @precondition(lambda self: not self.g.state.over)
    @rule(card=st.sampled_from(("", "base")))
    def place(self, card):
        self._do("place", player=self.g.state.players[self.g.state.active].name, card=card)

    @precondition(lambda self: not self.g.state.over)
    @rule()
    def gain(self):
        self._do("gain", player=self.g.state.players[self.g.state.active].name, amount=10, why="测试")

    @precondition(lambda self: len(self.done) > 1)
    @rule()
    def undo(self):
        undo_checked(self)

    # ------------------------------------------------------------------ invariants

    @invariant()
    def the_log_folds_to_the_board(self):
        assert fold(self.g.events) == self.g.state

    @invariant()
    def board_limits_hold(self):
        s, n = self.g.state, self.n
        for owner in range(len(s.players)):
            assert len(s.pieces_in(owner, "unit")) <= n.unit_slots
            assert len(s.pieces_in(owner, "special")) <= n.special_slots
            for kind, size in (("unit", n.unit_slots), ("special", n.special_slots)):
                slots = [p.slot for p in s.pieces_in(owner, kind)]
                assert len(set(slots)) == len(slots) and all(1 <= k <= size for k in slots)
            assert s.players[owner].cost >= 0
            assert s.players[owner].outposts == tuple(o.hp for o in s.outpost_pieces(owner))
        for p in s.pieces:
            if p.kind in ("unit", "special"):
                assert len(s.equipment_of(p.id)) <= p.carry
            if p.kind == "equipment":
                assert s.piece(p.host) is not None and s.piece(p.host).kind == "unit", "equipment without its unit"
            if p.has_hp:
                assert p.hp > n.unit_destroyed_at_hp, f"{p.id} at {p.hp} HP is still on the board"
            assert p.attack >= 0

    @invariant()
    def cards_are_conserved_among_the_zones(self):
        """deck + hand + board + discard + removed + under cut-out levels = the draw pile at the
        start plus the starting outpost setup took out of it (the whole DECK: it holds no G.O.I
        or level)."""
        s = self.g.state
        for owner, p in enumerate(s.players):
            assert p.deck >= 0 and p.hand >= 0
            board = sum(1 for q in s.pieces if q.owner == owner)
            held = p.deck + p.hand + board + len(p.discard) + p.discard_unnamed + p.removed + p.under_levels
            assert held == sum(DECK.values()), f"{p.name}: {held} cards where the deck list has {sum(DECK.values())}"

    @invariant()
    def ids_are_unique_and_within_what_was_issued(self):
        s = self.g.state
        ids = [p.id for p in s.pieces] + [p.id for p in s.cut_out]
        assert len(ids) == len(set(ids))
        for p in s.pieces:
            assert 1 <= _number(p.id) <= s.pieces_made[p.owner] and p.id[0] == "AB"[p.owner]

    @invariant()
    def copies_never_exceed_the_deck_list(self):
        s = self.g.state
        for owner in range(len(s.players)):
            for card, copies in DECK.items():
                used = sum(1 for p in s.pieces if p.owner == owner and p.card == card)
                assert used + s.players[owner].discard.count(card) <= copies


BoardMachine.TestCase.settings = settings(max_examples=50, stateful_step_count=50, deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])
TestBackroomsBoard = BoardMachine.TestCase
