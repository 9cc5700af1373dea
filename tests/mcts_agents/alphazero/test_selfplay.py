"""Self-play games (``mcts_agents.alphazero.selfplay``), checked by replaying their moves in the
rules core.

The evaluators are numpy functions of the observation planes written here: uniform priors and
a zero value, and a "pessimist" whose values make one player think it is lost (to drive the
resignation rule on small boards whose result is forced: 1x2 with k = 2 is always a draw, and
on 2x2 with k = 2 the first player's second stone always completes a line).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mcts_agents import SearchConfig
from mcts_agents.alphazero import (
    GameRecord,
    PlayoutCap,
    Resign,
    TemperatureSchedule,
    play_selfplay_game,
)
from mcts_agents.alphazero.selfplay import play_teacher_game
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError

TTT = MNK(3, 3, 3)


class Uniform:
    """Uniform priors over the legal moves, value 0."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return legal_masks.astype(np.float64), np.zeros(len(observations))


class Pessimist:
    """Value -0.95 when ``player`` is to move (read from the planes' stone counts), else 0.95."""

    def __init__(self, player: int) -> None:
        self.player = player

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        count = observations.reshape(len(observations), -1, 2).sum(axis=1)
        mover = np.where(count[:, 0] == count[:, 1], 0, 1)
        return legal_masks.astype(np.float64), np.where(mover == self.player, -0.95, 0.95)


def play(game: Any = TTT, evaluator: Any = None, seed: int = 0, **options: Any) -> GameRecord:
    options.setdefault("config", None)
    options.setdefault("simulations", 40)
    options.setdefault("temperature_schedule", (4, 1.0, 0.0))
    return play_selfplay_game(game, evaluator or Uniform(), seed=seed, **options)


def check_against_the_core(game: Any, record: GameRecord) -> None:
    """Replay the record's moves in the core; every field must agree with the rules."""
    state = game.initial_state()
    assert len(record) == len(record.observations) == len(record.values)
    for t in range(len(record)):
        mover = game.to_play(state)
        assert record.movers[t] == mover
        assert np.array_equal(record.observations[t], game.observation(state, mover))
        legal = np.zeros(game.num_actions, dtype=bool)
        legal[game.legal_actions(state)] = True
        assert np.array_equal(record.legal_masks[t], legal)
        policy = record.policies[t]
        assert policy.sum() == pytest.approx(1.0, abs=1e-6)
        assert (policy >= 0).all() and (policy[~legal] == 0).all()
        action = int(record.actions[t])
        if action == -1:  # resigned: the game ends here
            assert t == len(record) - 1
            break
        assert legal[action]
        state = game.next_state(state, action)
    if record.resigned is None:
        assert game.is_terminal(state)
        assert record.returns == game.returns(state)
    for t in range(len(record)):
        assert record.values[t] == record.returns[record.movers[t]]


@pytest.mark.parametrize("seed", range(4))
def test_tic_tac_toe_records_agree_with_the_rules(seed: int) -> None:
    record = play(seed=seed)
    check_against_the_core(TTT, record)
    assert record.full_search.all()
    assert record.seed == seed
    assert record.resigned is None and record.false_positive is None
    assert not record.resignation_enabled


def test_value_targets_are_plus_and_minus_one_from_each_movers_view() -> None:
    """A decided game: the winner's positions are worth +1, the loser's -1."""
    decided = [r for r in (play(seed=s, simulations=8) for s in range(12)) if r.returns[0] != 0]
    assert decided
    for record in decided:
        winner = int(np.argmax(record.returns))
        assert set(record.values[record.movers == winner].tolist()) == {1.0}
        assert set(record.values[record.movers != winner].tolist()) == {-1.0}


def test_connect_four_records_agree_with_the_rules() -> None:
    game = ConnectFour(5, 4, 3)
    check_against_the_core(game, play(game, simulations=16, seed=2))


def test_same_seed_same_record_and_other_seeds_differ() -> None:
    first, again = play(seed=7), play(seed=7)
    for name in ("observations", "legal_masks", "policies", "values", "movers", "actions"):
        assert np.array_equal(getattr(first, name), getattr(again, name))
    assert first.returns == again.returns
    others = [play(seed=s) for s in (8, 9, 10)]
    assert any(not np.array_equal(o.actions, first.actions) for o in others)


def test_late_moves_at_temperature_zero_are_the_most_visited() -> None:
    config = SearchConfig(selection="puct", root_noise=(0.3, 0.25), solver=False)
    for seed in range(3):
        record = play(seed=seed, config=config, temperature_schedule=(2, 1.0, 0.0))
        for t in range(2, len(record)):
            policy = record.policies[t]
            assert policy[record.actions[t]] == policy.max()


def test_early_moves_at_high_temperature_spread_out() -> None:
    """At temperature 1e6 the first move is uniform over the visited moves: over 40 games it
    takes at least 5 different cells (all 9 are visited with 40 simulations and uniform
    priors); at temperature 0 it would be one cell, as the second test shows."""
    first = {int(play(seed=s, temperature_schedule=(1, 1e6, 0.0)).actions[0]) for s in range(40)}
    assert len(first) >= 5
    config = SearchConfig(selection="puct")  # no noise: the same search in every game
    greedy = {
        int(play(seed=s, config=config, temperature_schedule=(0, 1.0, 0.0)).actions[0])
        for s in range(10)
    }
    assert len(greedy) == 1


def test_playout_cap_flags_and_simulations() -> None:
    config = SearchConfig(selection="puct", root_noise=(0.3, 0.25), solver=False)
    flags = []
    for seed in range(6):
        record = play(seed=seed, config=config, playout_cap=PlayoutCap(0.5, 5), simulations=30)
        check_against_the_core(TTT, record)
        assert (record.iterations[record.full_search] == 30).all()
        assert (record.iterations[~record.full_search] == 5).all()
        flags.extend(record.full_search.tolist())
    assert 0.25 < np.mean(flags) < 0.75  # ~50 draws of a fair coin
    always = play(config=config, playout_cap=PlayoutCap(1.0, 5))
    never = play(config=config, playout_cap=PlayoutCap(0.0, 5))
    assert always.full_search.all() and not never.full_search.any()


def test_no_resignation_game_records_nothing_about_it() -> None:
    record = play(game=MNK(2, 2, 2), evaluator=Pessimist(1), simulations=3)
    assert record.resignation_ply is None and record.resignation_player is None
    assert record.false_positive is None and record.resigned is None


def test_a_would_be_resignation_in_a_drawn_game_is_a_false_positive() -> None:
    game = MNK(1, 2, 2)  # always a draw
    record = play(game, Pessimist(0), simulations=2, resign=Resign(-0.9, disabled_fraction=1.0))
    check_against_the_core(game, record)
    assert record.returns == (0.0, 0.0)
    assert not record.resignation_enabled
    assert (record.resignation_ply, record.resignation_player) == (0, 0)
    assert record.resigned is None
    assert record.false_positive is True


def test_a_would_be_resignation_in_a_lost_game_is_no_false_positive() -> None:
    game = MNK(2, 2, 2)  # the first player always wins
    record = play(game, Pessimist(1), simulations=3, resign=Resign(-0.9, disabled_fraction=1.0))
    check_against_the_core(game, record)
    assert record.returns == (1.0, -1.0)
    assert (record.resignation_ply, record.resignation_player) == (1, 1)
    assert record.false_positive is False


def test_an_enabled_resignation_ends_the_game_and_sets_the_targets() -> None:
    game = MNK(2, 2, 2)
    record = play(game, Pessimist(1), simulations=3, resign=Resign(-0.9, disabled_fraction=0.0))
    check_against_the_core(game, record)
    assert record.resignation_enabled and record.resigned == 1
    assert record.actions.tolist() == [record.actions[0], -1]
    assert record.returns == (1.0, -1.0)
    assert record.values.tolist() == [1.0, -1.0]
    assert record.false_positive is None  # nobody can tell: the game was not played out


def test_resignation_is_disabled_in_about_the_asked_fraction_of_games() -> None:
    game = MNK(1, 2, 2)
    enabled = [
        play(
            game, Pessimist(0), seed=s, simulations=2, resign=Resign(-0.9, 0.3)
        ).resignation_enabled
        for s in range(200)
    ]
    # binomial(200, 0.7): mean 140, standard deviation 6.5
    assert 115 <= sum(enabled) <= 165


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"simulations": 0}, "simulations"),
        ({"temperature_schedule": (2, 1.0)}, "temperature_schedule"),
        ({"temperature_schedule": (-1, 1.0, 0.0)}, "moves"),
        ({"temperature_schedule": (2, -1.0, 0.0)}, "t_early"),
        ({"temperature_schedule": (2, 1.0, float("nan"))}, "t_late"),
        ({"config": SearchConfig()}, "puct"),
        ({"config": SearchConfig(selection="puct", evaluator=Pessimist(0))}, "evaluator"),
        ({"playout_cap": PlayoutCap(0.5, 50), "simulations": 10}, "fast_simulations"),
        ({"playout_cap": (0.5, 5)}, "PlayoutCap"),
        ({"resign": -0.9}, "Resign"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidOptionError, match=words):
        play(**options)


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: PlayoutCap(1.5, 5), "full_probability"),
        (lambda: PlayoutCap(0.5, 0), "fast_simulations"),
        (lambda: Resign(-1.5), "threshold"),
        (lambda: Resign(-0.9, 2.0), "disabled_fraction"),
        (lambda: TemperatureSchedule(True), "moves"),
    ],
)
def test_bad_option_objects_are_refused(build: Any, words: str) -> None:
    with pytest.raises(InvalidOptionError, match=words):
        build()


def test_a_position_evaluator_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="batch evaluator"):
        play_selfplay_game(TTT, lambda game, state: ((0.0, 0.0), None), None, 10, (0, 1, 0), 0)


def test_the_teachers_games_are_recorded_as_self_play_is() -> None:
    record = play_teacher_game(TTT, 2000, (0, 1.0, 0.0), seed=4)
    assert record.returns == (0.0, 0.0)  # strong play from the start: tic-tac-toe is a draw
    assert len(record) == 9 and record.full_search.all()
    assert np.allclose(record.policies.sum(axis=1), 1.0)
    assert not (record.policies * ~record.legal_masks).any()  # no mass on illegal moves
    assert (record.values == 0.0).all()
    assert record.iterations[0] == 2000 and (record.iterations <= 2000).all()  # proofs stop early
    again = play_teacher_game(TTT, 2000, (0, 1.0, 0.0), seed=4)
    assert (again.actions == record.actions).all()
    drawn = play_teacher_game(TTT, 50, (9, 1.0, 0.0), seed=5)  # moves drawn from weak searches
    lost = [m for m in (0, 1) if drawn.returns[m] < 0]
    assert all(drawn.values[drawn.movers == m][0] == -1.0 for m in lost)


def test_a_teacher_with_an_evaluator_or_no_iterations_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="without an evaluator"):
        play_teacher_game(TTT, 10, (0, 1.0, 0.0), 0, SearchConfig(evaluator=lambda g, s: None))
    with pytest.raises(InvalidOptionError, match="iterations"):
        play_teacher_game(TTT, 0, (0, 1.0, 0.0), 0)


@pytest.mark.parametrize("env", ["phantom_ttt", "kuhn_poker"])
def test_self_play_teacher_and_gate_refuse_hidden_information_games(env: str) -> None:
    """Their searches read the true state; a hidden-information game would be learnt from
    what the player to move cannot see (phantom tic-tac-toe's hidden stones, poker cards)."""
    from mcts_agents.adapters import game_from_env
    from mcts_agents.agents.specs import parse_env_spec
    from mcts_agents.alphazero.gate import against_mcts, gate
    from mcts_agents.errors import InvalidStateError

    live = parse_env_spec(env)()
    live.reset(seed=0)
    game, _ = game_from_env(live)
    hidden = r"has hidden information \(perfect_information is False\).*ismcts"
    with pytest.raises(InvalidStateError, match="self-play plays perfect-information games only"):
        play(game)
    with pytest.raises(InvalidStateError, match=hidden):
        play_teacher_game(game, 10, (4, 1.0, 0.0), seed=0)
    with pytest.raises(InvalidStateError, match="the gate plays perfect-information games only"):
        gate(game, Uniform(), Uniform(), games=2, simulations=4, seed=0)
    with pytest.raises(InvalidStateError, match=hidden):
        against_mcts(game, Uniform(), 4, 4, games=2, seed=0)
