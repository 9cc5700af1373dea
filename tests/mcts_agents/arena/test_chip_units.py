"""Chip games' rating units: a duplicate match of deals (each dealt twice with the seats
swapped), scored by the agent's summed chips; ``rate`` on a ladder with ``hands`` > 1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcts_agents.agents.ladder import HANDS, Ladder, Level
from mcts_agents.agents.play import play_game
from mcts_agents.arena import rate
from mcts_agents.arena.entrants import build_agent, env_factory, make_entrant
from mcts_agents.arena.rating import unit_scores, unit_tasks
from mcts_agents.arena.tasks import run_game
from mcts_agents.errors import InvalidOptionError
from mcts_agents.seeding import derive_seed


def _record(index: int, seats: list[str], returns: list[float]) -> dict[str, Any]:
    best = max(returns)
    scores = [1.0 if r == best and returns.count(best) == 1 else 0.5 if r == best else 0.0
              for r in returns]  # fmt: skip
    return {"index": index, "seats": seats, "returns": returns, "scores": scores}


def _unit(start: int, chips: list[float]) -> list[dict[str, Any]]:
    """Hands ``start ..``: A's chips in each, A in seat 0 on even indices."""
    found = []
    for offset, won in enumerate(chips):
        index = start + offset
        seats = ["A", "B"] if index % 2 == 0 else ["B", "A"]
        returns = [won, -won] if index % 2 == 0 else [-won, won]
        found.append(_record(index, seats, returns))
    return found


def test_a_unit_scores_the_sign_of_its_chip_total_not_its_hands_won() -> None:
    records = [
        *_unit(0, [-1.0, -1.0, -1.0, 4.0]),  # 1 hand of 4 won, +1 chip: a win
        *_unit(4, [2.0, 2.0, 1.0, -5.0]),  # 3 hands won, 0 chips: a draw
        *_unit(8, [1.0, 1.0, 1.0, -4.0]),  # 3 hands won, -1 chip: a loss
    ]
    assert unit_scores(records, "A", 4) == [1.0, 0.5, 0.0]
    assert unit_scores(records, "B", 4) == [0.0, 0.5, 1.0]
    # one hand a unit: each hand's arena score, win/loss by its chips
    assert unit_scores(records[:4], "A", 1) == [0.0, 0.0, 0.0, 1.0]


def test_units_group_consecutive_indices_whatever_the_records_order() -> None:
    records = [*_unit(0, [3.0, -1.0]), *_unit(2, [-1.0, -1.0])]
    assert unit_scores(list(reversed(records)), "A", 2) == [1.0, 0.0]


def test_incomplete_or_gapped_units_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="whole units"):
        unit_scores(_unit(0, [1.0, 1.0, 1.0]), "A", 2)
    with pytest.raises(InvalidOptionError, match="not one unit"):
        unit_scores([*_unit(0, [1.0]), *_unit(2, [1.0])], "A", 2)


def test_unit_tasks_deal_each_pair_of_hands_alike_with_the_seats_swapped() -> None:
    a, b = make_entrant("random", "A"), make_entrant("random", "B")
    tasks = unit_tasks(None, "kuhn_poker", (a, b), 9, range(1, 3), 4)
    assert [t.index for t in tasks] == list(range(4, 12))
    assert [t.seed for t in tasks] == [derive_seed(9, k) for k in (2, 2, 3, 3, 4, 4, 5, 5)]
    assert [t.seats for t in tasks] == [(a, b), (b, a)] * 4
    single = unit_tasks(None, "tic_tac_toe", (a, b), 9, range(3), 1)
    assert [t.seed for t in single] == [derive_seed(9, i) for i in range(3)]


def _cards(game: str, seed: int, policy: Any) -> list[int]:
    """The chance outcomes (cards) of one hand from ``reset(seed)``, actions by ``policy``."""
    env = env_factory(game)()
    core = env.unwrapped._game
    drawn: list[int] = []
    original = core.sample_chance

    def sample(state: Any, rng: Any) -> int:
        drawn.append(original(state, rng))
        return drawn[-1]

    core.sample_chance = sample
    env.reset(seed=seed)
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(policy(env.observe(agent)["action_mask"]))
    return drawn


@pytest.mark.parametrize("game", sorted(HANDS))
def test_a_duplicate_pair_deals_the_same_cards_whatever_is_played(game: str) -> None:
    passive = lambda mask: 1 if mask[1] else 0  # noqa: E731 (check/call; Kuhn's bet)
    aggressive = lambda mask: max(i for i, legal in enumerate(mask) if legal)  # noqa: E731
    deals = set()
    for k in range(12):
        seed = derive_seed(5, k)
        first, second = _cards(game, seed, passive), _cards(game, seed, aggressive)
        assert first == second and len(first) >= 2
        deals.add(tuple(first))
    assert len(deals) > 1  # the seed draws the cards: other seeds, other deals


def _kuhn_ladder(hands: int) -> Ladder:
    specs = ["random", "mcts:iterations=2,information=mo_ismcts",
             "mcts:iterations=32,information=mo_ismcts"]  # fmt: skip
    levels = tuple(
        Level(f"L{i}", spec, 150.0 * i, 150.0 * i - 30 * min(i, 1), 150.0 * i + 30 * min(i, 1))
        for i, spec in enumerate(specs)
    )
    return Ladder("kuhn_poker", levels, "today", "test", "by hand", 0, "made up", hands)


def test_rate_on_a_chip_ladder_counts_units_and_is_seeded(tmp_path: Path) -> None:
    tiny = _kuhn_ladder(4)
    agent = "mcts:iterations=8,information=mo_ismcts"
    first = rate(agent, "kuhn_poker", games=30, seed=3, batch=10, levels=tiny)
    again = rate(agent, "kuhn_poker", games=30, seed=3, batch=10, levels=tiny)
    assert first == again
    assert first.hands == 4 and first.games == 30
    assert sum(games for _, games in first.scores.values()) == 30
    assert all(points * 2 == int(points * 2) for points, _ in first.scores.values())
    # resumed from its results file (4 hands a unit, the pairs' seeds shared), the same rating
    out = tmp_path / "rate.jsonl"
    rate(agent, "kuhn_poker", games=10, seed=3, batch=10, levels=tiny, out=out)
    resumed = rate(agent, "kuhn_poker", games=30, seed=3, batch=10, levels=tiny, out=out)
    assert resumed == first
    assert len(out.read_text().splitlines()) == 1 + 30 * 4


def test_one_hand_a_unit_is_the_old_per_hand_rating() -> None:
    per_hand = rate("random", "kuhn_poker", games=20, seed=1, batch=10, levels=_kuhn_ladder(1))
    assert per_hand.hands == 1 and per_hand.games == 20
    make = env_factory("kuhn_poker")
    pair = (make_entrant("random", "A"), make_entrant("random", "B"))
    records = [run_game(task) for task in unit_tasks(make, "kuhn_poker", pair, 1, range(2), 1)]
    assert [r["seed"] for r in records] == [derive_seed(1, 0), derive_seed(1, 1)]
    assert records[1]["seats"] == ["B", "A"]


def _final_cards(game: str, seed: int, seats: tuple[Any, Any]) -> tuple[int, ...]:
    """The cards of a hand played as ``run_game`` plays it (env reset with ``seed``, agents
    seeded by seat): the final state's dealt cards, in seat order (and Leduc's board card)."""
    env = env_factory(game)()
    env.reset(seed=seed)
    players = {
        agent: build_agent(seats[seat], derive_seed(seed, seat))
        for seat, agent in enumerate(env.possible_agents)
    }
    play_game(env, players)
    return tuple(env.unwrapped._state[1:])


@pytest.mark.parametrize("game", sorted(HANDS))
def test_searching_agents_do_not_change_the_deal_of_a_duplicate_pair(game: str) -> None:
    strong = make_entrant("mcts:iterations=40,information=mo_ismcts", "S")
    weak = make_entrant("random", "R")
    for k in range(6):
        seed = derive_seed(8, k)
        one, other = (
            _final_cards(game, seed, (strong, weak)),
            _final_cards(game, seed, (weak, strong)),
        )
        # private cards always; Leduc's board card where both hands reached round 2
        assert one[:2] == other[:2]
        if len(one) > 2 and min(one[2], other[2]) >= 0:
            assert one[2] == other[2]


def test_a_level_rated_against_itself_draws_every_duplicate_unit() -> None:
    # the same agent in the same seat with the same seed plays the same hand: the two plays of
    # a deal mirror each other and the chips cancel
    tiny = _kuhn_ladder(4)
    middle = tiny.levels[1]
    rating = rate(middle.spec, "kuhn_poker", games=10, seed=4, batch=10, levels=tiny)
    assert rating.scores == {"L1": (5.0, 10)}
    assert rating.elo == pytest.approx(middle.elo, abs=1e-6)
