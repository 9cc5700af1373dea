"""``OpponentPool`` on scripted results: PFSP weights as AlphaStar's formulas give them, the
curriculum's moves, the same seed giving the same draws, stats against a hand count (Wilson
intervals from ``ratings``), the learner's Elo with the levels held fixed, and bad entries,
rules, weights and bands refused naming them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from mcts_agents.agents.ladder import load_ladder
from mcts_agents.errors import InvalidOptionError, OptionTypeError, SpecError
from mcts_agents.ratings import bradley_terry_elo, wilson_interval
from mcts_agents.rl.pool import RECENT_GAMES, OpponentPool
from tests.mcts_agents.rl.vector_play import random_play

A, B, C = "mcts:iterations=2", "mcts:iterations=4", "random"


def first_legal(observation: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play(pool: OpponentPool, name: str, wins: int, draws: int, losses: int) -> None:
    for score, count in ((1.0, wins), (0.5, draws), (0.0, losses)):
        for _ in range(count):
            pool.record(name, score)


def test_fixed_weights_are_the_draw_probabilities() -> None:
    pool = OpponentPool([A, B, C], weights=[1, 3, 0], seed=0)
    assert pool.probabilities().tolist() == [0.25, 0.75, 0.0]
    play(pool, A, 5, 0, 0)  # results do not move a fixed mix
    assert pool.probabilities().tolist() == [0.25, 0.75, 0.0]
    drawn = Counter(pool.draw() for _ in range(4000))
    assert drawn[C] == 0 and 0.70 < drawn[B] / 4000 < 0.80


def test_pfsp_weights_follow_the_learners_scores() -> None:
    for rule, form in (("pfsp_hard", lambda p: (1 - p) ** 2), ("pfsp_even", lambda p: p * (1 - p))):
        pool = OpponentPool([A, B, C], rule=rule, seed=1)
        assert pool.probabilities() == pytest.approx([1 / 3] * 3)  # unplayed: p = 1/2 each
        play(pool, A, 3, 0, 1)  # p = 0.75
        play(pool, B, 0, 1, 3)  # p = 0.5 / 4 = 0.125
        expected = np.array([form(0.75), form(0.125), form(0.5)])  # C unplayed: 1/2
        assert pool.probabilities() == pytest.approx(expected / expected.sum())


def test_pfsp_hard_against_entries_all_beaten_draws_uniformly() -> None:
    pool = OpponentPool([A, B], rule="pfsp_hard", weights=[1, 1])
    play(pool, A, 2, 0, 0)
    play(pool, B, 1, 0, 0)
    assert pool.probabilities().tolist() == [0.5, 0.5]


def test_the_same_seed_gives_the_same_draws() -> None:
    def draws(seed: int) -> list[str]:
        pool = OpponentPool([A, B, C], rule="pfsp_hard", seed=seed)
        found = []
        for i in range(60):
            name = pool.draw()
            found.append(name)
            pool.record(name, (1.0, 0.5, 0.0)[i % 3])
        return found

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


def test_stats_against_a_hand_count() -> None:
    pool = OpponentPool([A, B, first_legal])
    for name, score in [(A, 1), (A, 0.5), (A, 0), (A, 1), (B, 0), ("first_legal", 0.5)]:
        pool.record(name, score)
    stats = pool.stats()
    assert set(stats) == {A, B, "first_legal"}
    low, high = wilson_interval(2.5, 4)
    assert stats[A] == {
        "games": 4, "wins": 2, "draws": 1, "losses": 1, "score": 2.5 / 4, "low": low, "high": high,
    }  # fmt: skip
    assert stats[B]["games"] == 1 and stats[B]["losses"] == 1 and stats[B]["score"] == 0.0
    assert stats["first_legal"]["draws"] == 1
    pool2 = OpponentPool([C])
    assert pool2.stats()[C] == {
        "games": 0, "wins": 0, "draws": 0, "losses": 0, "score": None, "low": 0.0, "high": 1.0,
    }  # fmt: skip


def test_the_curriculum_moves_the_level_to_keep_the_score_in_the_band() -> None:
    pool = OpponentPool.curriculum("connect_four", start="L2", band=(0.4, 0.7), window=4)
    assert pool.draw() == "L2" and pool.probabilities()[2] == 1.0
    play(pool, "L2", 3, 0, 0)
    assert pool.level == 2  # only 3 of 4 games
    pool.record("L2", 1.0)  # 4/4 > 0.7: up
    assert pool.level == 3 and pool.draw() == "L3"
    play(pool, "L3", 2, 1, 1)  # 2.5/4 = 0.625: inside the band, stays
    assert pool.level == 3
    play(pool, "L3", 1, 0, 3)  # the last 4: 1/4 < 0.4: down
    assert pool.level == 2
    play(pool, "L3", 0, 0, 10)  # games against another level do not move it
    assert pool.level == 2
    for _ in range(4):  # at L0 it can go no lower
        play(pool, pool.draw(), 0, 0, 4)
    assert pool.level == 0
    assert pool.entries[0] == "ladder:connect_four:L0"


def test_the_curriculum_shares_episodes_with_the_entries_beyond_the_ladder() -> None:
    pool = OpponentPool.curriculum("connect_four", start="L2", window=4, others=0.25, seed=3)
    ladder = len(pool.names)
    assert pool.probabilities()[2] == 1.0  # nothing beyond the ladder yet: the level only
    pool.add(first_legal, "snap-a")
    pool.add(first_legal, "snap-b")
    chances = pool.probabilities()  # neither played (p = 1/2 each): 0.25 split evenly
    assert chances[2] == 0.75 and list(chances[ladder:]) == [0.125, 0.125]
    play(pool, "snap-a", 3, 0, 1)  # p = 3/4: (1/4)^2 = 1/16; snap-b unplayed: (1/2)^2 = 1/4
    chances = pool.probabilities()
    assert chances[ladder:] == pytest.approx([0.25 * (1 / 16) / (5 / 16), 0.25 * 0.8])
    assert chances.sum() == pytest.approx(1.0)
    play(pool, "snap-a", 10, 0, 0)  # games against the others never move the level
    assert pool.level == 2
    draws = [pool.draw() for _ in range(4000)]
    assert abs(draws.count("L2") / 4000 - 0.75) < 0.03  # 4.4 sigma
    again = OpponentPool.curriculum("connect_four", start="L2", window=4, others=0.25, seed=3)
    again.add(first_legal, "snap-a")
    again.add(first_legal, "snap-b")
    play(again, "snap-a", 13, 0, 1)
    assert [again.draw() for _ in range(4000)] == draws  # same seed, same results: same draws
    with pytest.raises(InvalidOptionError, match="a level of the curriculum's ladder"):
        pool.remove("L0")
    pool.remove("snap-a")
    assert pool.probabilities()[ladder] == 0.25 and pool.draw() in ("L2", "snap-b")


def test_elo_of_the_last_games_follows_a_learner_that_changes() -> None:
    L3, L5 = "ladder:connect_four:L3", "ladder:connect_four:L5"
    pool = OpponentPool([L3, L5, first_legal])
    play(pool, L3, 1, 0, 19)  # early: weak
    play(pool, L5, 0, 0, 10)
    play(pool, L3, 9, 0, 1)  # late: strong
    play(pool, "first_legal", 0, 0, 5)  # not a ladder entry: in no fit, nor in the last K
    play(pool, L5, 6, 0, 4)
    levels = load_ladder("connect_four")
    fixed = {L3: levels.level("L3").elo, L5: levels.level("L5").elo}
    late = bradley_terry_elo(
        ["learner", L3, L5], [("learner", L3, 9, 10), ("learner", L5, 6, 10)], fixed=fixed
    )["learner"]
    assert pool.elo(last=20) == late
    everything = pool.elo()
    assert everything is not None and everything[0] < late[0] - 200
    assert pool.elo(last=1_000) == everything  # more than were played: all of them
    for last in (0, RECENT_GAMES + 1, 2.5):
        with pytest.raises(InvalidOptionError, match="last"):
            pool.elo(last=last)  # type: ignore[arg-type]


def test_the_curriculum_stops_at_the_top() -> None:
    top = len(load_ladder("connect_four").levels) - 1
    pool = OpponentPool.curriculum("connect_four", start=top, window=1)
    pool.record(f"L{top}", 1.0)
    assert pool.level == top


def test_elo_is_fitted_with_the_levels_held_fixed() -> None:
    pool = OpponentPool(["ladder:connect_four:L3", "ladder:connect_four:L5", first_legal])
    assert pool.elo() is None
    play(pool, "ladder:connect_four:L3", 6, 2, 2)
    assert pool.elo() is not None  # one level, won and lost: finite
    play(pool, "ladder:connect_four:L5", 2, 0, 8)
    play(pool, "first_legal", 10, 0, 0)  # no ladder entry: not in the fit
    levels = load_ladder("connect_four")
    fixed = {f"ladder:connect_four:{n}": levels.level(n).elo for n in ("L3", "L5")}
    expected = bradley_terry_elo(
        ["learner", *fixed],
        [("learner", name, points, 10) for name, points in zip(fixed, (7.0, 2.0), strict=True)],
        fixed=fixed,
    )["learner"]
    assert pool.elo() == pytest.approx(expected)
    assert fixed["ladder:connect_four:L3"] < pool.elo()[0] < fixed["ladder:connect_four:L5"]


def test_add_and_remove_entries() -> None:
    pool = OpponentPool([A])
    assert pool.add(first_legal) == "first_legal"
    pool.record("first_legal", 1.0)
    pool.remove(A)
    assert pool.names == ["first_legal"] and pool.stats()["first_legal"]["wins"] == 1
    agent = pool.opponent("first_legal")
    assert agent is pool.opponent("first_legal")  # one agent per policy: batched together
    with pytest.raises(InvalidOptionError, match="only entry"):
        pool.remove("first_legal")


@pytest.mark.parametrize(
    ("entries", "error", "named"),
    [
        (["mcts:iterations=2", "nonsense:x=1"], SpecError, "nonsense"),
        (["human"], SpecError, "human"),
        (["ladder:connect_four:L99"], SpecError, "L99"),
        ([A, 42], OptionTypeError, "42"),
        ([A, A], InvalidOptionError, "twice"),
        ([], InvalidOptionError, "at least one"),
        ("mcts:iterations=2", OptionTypeError, "entries"),
    ],
)
def test_bad_entries_are_refused_naming_them(entries: Any, error: type, named: str) -> None:
    with pytest.raises(error, match=named):
        OpponentPool(entries)


def test_bad_rules_weights_scores_and_bands_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="'pfsp'"):
        OpponentPool([A], rule="pfsp")
    with pytest.raises(InvalidOptionError, match="weights"):
        OpponentPool([A, B], weights=[1])
    with pytest.raises(InvalidOptionError, match="weights"):
        OpponentPool([A, B], weights=[0, 0])
    with pytest.raises(InvalidOptionError, match="weights"):
        OpponentPool([A, B], weights=[1, -1])
    for band in [(0.7, 0.4), (0.4,), (-0.1, 0.5), (0.2, 1.5), "ab"]:
        with pytest.raises(InvalidOptionError, match="band"):
            OpponentPool.curriculum("connect_four", band=band)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="window"):
        OpponentPool.curriculum("connect_four", window=0)
    for others in (-0.1, 1.0, "half", None):
        with pytest.raises(InvalidOptionError, match="others must be a share"):
            OpponentPool.curriculum("connect_four", others=others)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="L42"):
        OpponentPool.curriculum("connect_four", start="L42")
    with pytest.raises(InvalidOptionError, match="no entry 'nobody'"):
        OpponentPool([A]).record("nobody", 1.0)
    with pytest.raises(InvalidOptionError, match=r"0\.3"):
        OpponentPool([A]).record(A, 0.3)


@pytest.fixture
def counted_network(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[int]]:
    """The tests' tiny AlphaZero network for tic-tac-toe, saved; every call of a
    ``TorchEvaluator`` counted (its rows), each row evaluated on its own (a row's numbers then
    never depend on the others of its call, so both paths below see the same numbers)."""
    pytest.importorskip("torch")
    from mcts_agents.alphazero.learn import NetConfig, TorchEvaluator, build_net, save_net
    from mcts_agents.envs.games.mnk import MNK

    game = MNK(3, 3, 3, name="tic_tac_toe")
    path = tmp_path / "ttt.pt"
    save_net(path, build_net(game, NetConfig(channels=8, blocks=1, value_hidden=8), seed=0), game)
    calls: list[int] = []
    batch = TorchEvaluator.evaluate_batch

    def row_by_row(self: Any, observations: np.ndarray, masks: np.ndarray) -> Any:
        calls.append(len(observations))
        rows = [batch(self, observations[i : i + 1], masks[i : i + 1]) for i in range(len(masks))]
        return np.concatenate([p for p, _ in rows]), np.concatenate([v for _, v in rows])

    monkeypatch.setattr(TorchEvaluator, "evaluate_batch", row_by_row)
    return str(path), calls


def test_the_sub_envs_of_an_az_entry_search_in_lockstep_as_each_alone(
    counted_network: tuple[str, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six sub-envs drawing one ``az:`` entry: their opponents share the network opened once,
    and each round of replies searches all their trees in lockstep, one forward pass a round
    (the root's, then one a simulation at K = 1): at most 1 + 8 calls a round, where searching
    sub-env by sub-env (``joins_lockstep`` off) makes them per sub-env. The games are the same."""
    from mcts_agents.agents import batch as agent_batch
    from mcts_agents.rl import VectorVsOpponent, aec_path

    path, calls = counted_network
    rounds: list[int] = []
    act = aec_path.act_batch

    def counted(agents: Any, envs: Any, keep_results: bool = True) -> Any:
        rounds.append(len(agents))
        return act(agents, envs, keep_results)

    monkeypatch.setattr(aec_path, "act_batch", counted)

    def run() -> list[Any]:
        entry = f"az:model={path},simulations=8,batch_size=1"
        env = VectorVsOpponent(6, "tic_tac_toe", opponent=OpponentPool([entry], seed=0), seed=3)
        found = random_play(env, 12, 3)
        evaluators = {id(s.opponent.config.evaluator) for s in env._subs}
        assert len(evaluators) == 1  # one network for the six sub-envs
        return found

    together = run()
    calls_together, rounds_together = len(calls), list(rounds)
    calls.clear()
    rounds.clear()
    monkeypatch.setattr(agent_batch, "joins_lockstep", lambda searcher: False)
    alone = run()
    assert len(together) == len(alone)
    assert all(np.array_equal(a, b) for a, b in zip(together, alone, strict=True))
    assert rounds_together == rounds and sum(rounds) > 2 * len(rounds)  # several trees a round
    assert calls_together <= (1 + 8) * len(rounds)
    assert len(calls) > 2 * calls_together


def test_an_az_spec_given_as_the_opponent_is_one_network_searched_in_lockstep(
    counted_network: tuple[str, list[int]],
) -> None:
    """``opponent="az:..."`` (not a pool): the sub-envs' agents share the model opened once,
    so a round of replies is one lockstep search (at most 1 + 8 forward passes a round), as
    for a pool's entry; ``set_opponent`` keeps sharing it."""
    from mcts_agents.rl import VectorVsOpponent

    path, calls = counted_network
    spec = f"az:model={path},simulations=8,batch_size=1"
    env = VectorVsOpponent(4, "tic_tac_toe", opponent=spec, seed=3)
    assert len({id(s.opponent.model) for s in env._subs}) == 1
    env.reset()
    before = len(calls)
    env.step(np.zeros(4, np.int64) + 4)
    assert 0 < len(calls) - before <= 1 + 8  # one lockstep round for the four trees
    env.set_opponent(spec)
    env.reset()
    assert len({id(s.opponent.model) for s in env._subs}) == 1
