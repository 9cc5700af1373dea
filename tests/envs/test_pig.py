"""Pig (envs/pig_v0.py over envs/games/pig.py): OpenSpiel move for move, exact values, the env's
dice (seeds, snapshots), hand-checked rules and errors."""

from __future__ import annotations

import random
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from mcts_agents.envs import IllegalActionError, InvalidParameterError
from mcts_agents.envs.core.game import CHANCE
from mcts_agents.envs.games.pig import DECIDING, OVER, ROLL, ROLLING, STOP, Pig
from mcts_agents.envs.pig_v0 import PigEnv, env
from tests.envs.conftest import assert_state_refused

pyspiel = pytest.importorskip("pyspiel")

#: OpenSpiel's defaults, and non-default sets that reach the horizon (draws), 3 to 10 players,
#: a 3- and a 4-sided die, and piglet.
PARAMS = [
    {},
    {"players": 3, "winscore": 20, "diceoutcomes": 4, "horizon": 40},
    {"players": 4, "winscore": 10, "diceoutcomes": 3, "horizon": 120, "piglet": True},
    {"players": 10, "winscore": 12, "horizon": 20},
]


# ---------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_matches_openspiel_move_for_move(params: dict[str, Any]) -> None:
    """Random games side by side (dice drawn here and applied to both); at every step the same
    terminal flag, node kind, player, legal actions, chance outcomes and probabilities, action
    names and observation (OpenSpiel's one-hot bins, rows rotated to the observer), then the
    same returns."""
    game = Pig(**params)
    reference = pyspiel.load_game("pig", params)
    assert game.return_range == (reference.min_utility(), reference.max_utility())
    assert game.num_actions == reference.num_distinct_actions()
    assert game.params() == {**reference.get_parameters(), **params}
    players, rng = game.num_players, random.Random(len(params))
    outcomes: dict[tuple[float, ...], int] = {}
    for _ in range(25 if not params else 150):
        state, spiel = game.initial_state(), reference.new_initial_state()
        while True:
            assert game.is_terminal(state) == spiel.is_terminal()
            for observer in range(players):
                ours = game.observation(state, observer)
                bins = np.array(spiel.observation_tensor(observer)).reshape(1 + players, -1)
                for j in range(players):
                    assert (ours[j] == bins[1 + (observer + j) % players]).all()
                turn_row = players + (state[1] - observer) % players
                assert (ours[turn_row] == bins[0]).all()
                assert ours[players:].sum() == 1
            if spiel.is_terminal():
                break
            assert game.is_chance(state) == spiel.is_chance_node()
            player = spiel.current_player()
            assert game.to_play(state) == (CHANCE if player == pyspiel.PlayerId.CHANCE else player)
            assert game.legal_actions(state) == spiel.legal_actions()
            if game.is_chance(state):
                assert game.chance_outcomes(state) == spiel.chance_outcomes()
                action = game.sample_chance(state, rng)
            else:
                action = rng.choice(game.legal_actions(state))
            assert game.action_to_string(state, action) == spiel.action_to_string(player, action)
            state = game.next_state(state, action)
            spiel.apply_action(action)
        assert game.returns(state) == tuple(spiel.returns())
        outcomes[game.returns(state)] = outcomes.get(game.returns(state), 0) + 1
    assert len(outcomes) >= 2  # wins for more than one seat (and draws where the horizon bites)
    if "horizon" in params:
        assert outcomes.get((0.0,) * players, 0) > 0


def spiel_positions(reference: Any) -> set[tuple[Any, ...]]:
    """Every position of an OpenSpiel pig game, in our layout, read from its state strings."""
    seen: set[tuple[Any, ...]] = set()
    pattern = re.compile(r"Scores: ([\d ]+), Turn total: (\d+)\nCurrent player: (\d+)( \(rolling)?")

    def walk(spiel: Any, moves: int) -> None:
        match = pattern.match(str(spiel))
        assert match is not None
        scores = tuple(int(score) for score in match.group(1).split())
        node = OVER if spiel.is_terminal() else ROLLING if match.group(4) else 0
        position = (moves, int(match.group(3)), int(match.group(2)), node, scores)
        if position in seen:
            return
        seen.add(position)
        if not spiel.is_terminal():
            step = 0 if spiel.is_chance_node() else 1
            for action in spiel.legal_actions():
                walk(spiel.child(action), moves + step)

    walk(reference.new_initial_state(), 0)
    return seen


def core_positions(game: Pig) -> set[Any]:
    seen, stack = set(), [game.initial_state()]
    while stack:
        state = stack.pop()
        if state not in seen:
            seen.add(state)
            stack.extend(game.next_state(state, a) for a in game.legal_actions(state))
    return seen


def expectimax(
    root: Any, key: Callable[[Any], Any], expand: Callable[[Any], Any], num_players: int
) -> tuple[float, ...]:
    """Value of ``root`` when every player maximises its own return (ties: the lower action)
    and chance averages. ``expand(node)`` is ``("end", returns)``, ``("chance", [(p, child),
    ...])`` or ``(player, [child, ...])``; nodes are memoised by ``key(node)``."""
    memo: dict[Any, tuple[float, ...]] = {}

    def value(node: Any) -> tuple[float, ...]:
        name = key(node)
        if name not in memo:
            kind, rest = expand(node)
            if kind == "end":
                memo[name] = rest
            elif kind == "chance":
                values = [(p, value(child)) for p, child in rest]
                memo[name] = tuple(sum(p * v[i] for p, v in values) for i in range(num_players))
            else:
                memo[name] = max((value(child) for child in rest), key=lambda v: v[kind])
        return memo[name]

    return value(root)


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2, "winscore": 8, "diceoutcomes": 3, "horizon": 12},
        {"players": 3, "winscore": 5, "diceoutcomes": 4, "horizon": 9},
        {"players": 2, "winscore": 6, "diceoutcomes": 3, "horizon": 14, "piglet": True},
    ],
)
def test_every_position_and_the_optimal_value_match_openspiel(params: dict[str, Any]) -> None:
    """Small games, solved exhaustively in both: the same positions (OpenSpiel's read from its
    strings plus the move counter) and the same expectimax value vector at the start."""
    game, reference = Pig(**params), pyspiel.load_game("pig", params)
    assert core_positions(game) == spiel_positions(reference)

    def ours(state: Any) -> Any:
        if game.is_terminal(state):
            return "end", game.returns(state)
        if game.is_chance(state):
            return "chance", [
                (p, game.next_state(state, a)) for a, p in game.chance_outcomes(state)
            ]
        return game.to_play(state), [game.next_state(state, a) for a in game.legal_actions(state)]

    def theirs(node: Any) -> Any:  # (OpenSpiel state, player decisions so far)
        spiel, moves = node
        if spiel.is_terminal():
            return "end", tuple(spiel.returns())
        if spiel.is_chance_node():
            return "chance", [(p, (spiel.child(a), moves)) for a, p in spiel.chance_outcomes()]
        return spiel.current_player(), [(spiel.child(a), moves + 1) for a in spiel.legal_actions()]

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        start = (reference.new_initial_state(), 0)
        expected = expectimax(start, lambda n: (str(n[0]), n[1]), theirs, game.num_players)
        found = expectimax(game.initial_state(), lambda s: s, ours, game.num_players)
    finally:
        sys.setrecursionlimit(limit)
    assert found == expected
    assert expected[0] > 0  # the first player's edge: a real game, not all draws


# ---------------------------------------------------------------------- a known value
def hold_at_win_probability(winscore: int, faces: int, hold: int) -> float:
    """P(player 0 wins) when both players roll until the turn total reaches ``hold`` (or would
    win), by value iteration on (mover's score, other's score, turn total), without the core.
    """
    states = [
        (i, j, t) for i in range(winscore) for j in range(winscore) for t in range(winscore - i)
    ]
    value = dict.fromkeys(states, 0.5)  # P(the player to move wins)

    def after_stop(i: int, j: int, t: int) -> float:
        return 1.0 if i + t >= winscore else 1.0 - value[(j, i + t, 0)]

    while True:
        change = 0.0
        for i, j, t in states:
            if t >= hold:
                new = after_stop(i, j, t)
            else:  # a 1 passes the turn with nothing; a face f adds f (banked at once if it wins)
                new = (1.0 - value[(j, i, 0)]) / faces
                for face in range(2, faces + 1):
                    total = t + face
                    won = i + total >= winscore
                    new += (1.0 if won else value[(i, j, total)]) / faces
            change = max(change, abs(new - value[(i, j, t)]))
            value[(i, j, t)] = new
        if change < 1e-14:
            return value[(0, 0, 0)]


def hold_at(game: Pig, hold: int) -> Callable[[Any], int]:
    def policy(state: Any) -> int:
        actions = game.legal_actions(state)
        return ROLL if ROLL in actions and state[2] < hold else STOP

    return policy


def test_hold_at_policy_value_matches_a_dynamic_program() -> None:
    """The core's transitions (value iteration on the positions it generates, move counter
    dropped, no horizon) and an independent DP agree to 1e-12."""
    winscore, faces, hold = 12, 6, 5
    game = Pig(winscore=winscore, diceoutcomes=faces, horizon=10**6)  # never reached
    policy = hold_at(game, hold)
    expected = hold_at_win_probability(winscore, faces, hold)

    def strip(state: Any) -> Any:  # without the move counter, so positions recur
        return state[1:]

    ends: dict[Any, float] = {}  # P(player 0 wins) at the end
    edges: dict[Any, list[tuple[float, Any]]] = {}  # (probability, next position)
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        if strip(state) in ends or strip(state) in edges:
            continue
        if game.is_terminal(state):
            ends[strip(state)] = float(game.returns(state)[0] > 0)
            continue
        if game.is_chance(state):
            kids = [(p, game.next_state(state, a)) for a, p in game.chance_outcomes(state)]
        else:
            kids = [(1.0, game.next_state(state, policy(state)))]
        edges[strip(state)] = [(p, strip(kid)) for p, kid in kids]
        stack.extend(kid for _, kid in kids)
    value = {**dict.fromkeys(edges, 0.5), **ends}
    change = 1.0
    while change > 1e-14:
        change = 0.0
        for key, out in edges.items():
            new = sum(p * value[kid] for p, kid in out)
            change, value[key] = max(change, abs(new - value[key])), new
    assert value[strip(game.initial_state())] == pytest.approx(expected, abs=1e-12)
    assert 0.5 < expected < 0.7  # the first player's edge


def test_env_dice_give_the_dynamic_program_value() -> None:
    """Games through the env (its own seeded dice) win for player 0 as often as the DP says."""
    winscore, faces, hold, games = 12, 6, 5, 6000
    expected = hold_at_win_probability(winscore, faces, hold)
    raw = PigEnv(winscore=winscore, diceoutcomes=faces)
    policy = hold_at(raw.game, hold)
    raw.reset(seed=2024)
    wins = 0
    for _ in range(games):
        raw.reset()
        while not raw.game.is_terminal(raw.state):
            raw.step(policy(raw.state))
        wins += raw.rewards["player_0"] > 0
    sigma = (expected * (1 - expected) / games) ** 0.5
    assert abs(wins / games - expected) < 4.5 * sigma


# ---------------------------------------------------------------------- rules by hand
def test_rolling_ones_reaches_the_horizon_without_repeating_a_position() -> None:
    """Scores and turn totals recur when everyone rolls 1s; the move counter keeps positions
    apart, and the roll that reaches the horizon ends the game (no die) as a draw, as in
    OpenSpiel."""
    game = Pig(players=3, horizon=6)
    reference = pyspiel.load_game("pig", {"players": 3, "horizon": 6})
    spiel, state, seen = reference.new_initial_state(), game.initial_state(), set()
    for action in [ROLL, 0] * 5 + [ROLL]:
        seen.add(state)
        state = game.next_state(state, action)
        spiel.apply_action(action)
        assert state not in seen
    assert game.is_terminal(state) and spiel.is_terminal()
    assert game.returns(state) == tuple(spiel.returns()) == (0.0, 0.0, 0.0)
    assert state[4] == (0, 0, 0) and state[2] == 0


def test_turn_total_banks_and_reaching_winscore_forces_a_stop() -> None:
    game = Pig(winscore=10)
    state = game.apply(game.initial_state(), [ROLL, 5, ROLL, 3])  # a 6 and a 4
    assert state[2] == 10 and game.to_play(state) == 0
    assert game.legal_actions(state) == [STOP]
    assert not game.is_legal(state, ROLL)
    with pytest.raises(IllegalActionError, match="not legal"):
        game.check_action(state, ROLL)
    state = game.next_state(state, STOP)
    assert game.is_terminal(state) and game.returns(state) == (1.0, -1.0)
    three = Pig(players=3, winscore=4)
    state = three.apply(three.initial_state(), [ROLL, 0, ROLL, 3, STOP])  # p0 a 1, p1 a 4
    assert three.returns(state) == (-0.5, 1.0, -0.5)


def test_piglet_outcomes_score_one_point() -> None:
    game = Pig(diceoutcomes=4, piglet=True)
    state = game.next_state(game.initial_state(), ROLL)
    assert game.chance_outcomes(state) == [(0, 0.25), (1, 0.75)]
    assert game.next_state(state, 1)[2] == 1
    assert game.to_play(game.next_state(state, 0)) == 1


def test_chance_outcomes_are_checked_in_their_own_range() -> None:
    game = Pig()
    rolling = game.next_state(game.initial_state(), ROLL)
    assert game.check_action(rolling, np.int64(5)) == 5
    with pytest.raises(IllegalActionError, match=r"6 is not an outcome.*\[0, 1, 2, 3, 4, 5\]"):
        game.check_action(rolling, 6)
    with pytest.raises(TypeError, match=r"a chance outcome is 2.0 of type float; expected an int"):
        game.check_action(rolling, 2.0)
    with pytest.raises(TypeError, match="not a chance node"):
        game.chance_outcomes(game.initial_state())


def test_sample_chance_draws_every_face_fairly() -> None:
    game, rng = Pig(diceoutcomes=5), random.Random(3)
    rolling = game.next_state(game.initial_state(), ROLL)
    counts = np.bincount([game.sample_chance(rolling, rng) for _ in range(20_000)], minlength=5)
    assert np.all(np.abs(counts - 4000) < 4.5 * (20_000 * 0.2 * 0.8) ** 0.5)


@pytest.mark.parametrize(
    "params",
    [{}, {"players": 3, "winscore": 30, "horizon": 60}, {"piglet": True, "winscore": 12}],
    ids=["default", "three-players-horizon", "piglet"],
)
def test_rollout_is_the_generic_random_playout_draw_for_draw(params: dict[str, Any]) -> None:
    """The fast rollout draws where ``BoardGame.rollout`` draws: from every position of random
    games (chance nodes, forced stops, the horizon), the same seed ends the same way."""
    from mcts_agents.envs.core.game import BoardGame

    game = Pig(**params)
    walk = random.Random(7)
    outcomes = set()
    for _ in range(30):
        state = game.initial_state()
        while True:
            seed = walk.getrandbits(32)
            fast = game.rollout(state, random.Random(seed))
            assert fast == BoardGame.rollout(game, state, random.Random(seed)), (state, seed)
            outcomes.add(fast)
            if game.is_terminal(state):
                break
            state = game.next_state(state, walk.choice(game.legal_actions(state)))
    assert len(outcomes) == game.num_players + ("horizon" in params)  # wins by all, draws


def test_is_reachable_follows_scores_and_moves() -> None:
    game, rng = Pig(winscore=20), random.Random(7)
    states = [game.initial_state()]
    while not game.is_terminal(states[-1]):
        state = states[-1]
        if game.is_chance(state):
            states.append(game.next_state(state, game.sample_chance(state, rng)))
        else:
            states.append(game.next_state(state, rng.choice(game.legal_actions(state))))
    for i, earlier in enumerate(states):
        for later in states[i:]:
            assert game.is_reachable(earlier, later)
    banked = [i for i in range(1, len(states)) if states[i][4] != states[i - 1][4]]
    assert banked
    assert not game.is_reachable(states[banked[-1]], states[0])
    assert not game.is_reachable(states[-1], states[-2])


def test_observation_and_rendering_by_hand() -> None:
    game = Pig(players=3, winscore=10)
    state = game.apply(game.initial_state(), [ROLL, 3, STOP, ROLL, 5])  # p0 banks 4; p1 rolls 6
    assert state == (3, 1, 6, 0, (4, 0, 0))
    planes = game.observation(state, 2)  # rows: p2, p0, p1 scores; then turn-total rows
    assert planes.shape == (6, 11) and planes.dtype == np.int8
    assert [int(np.argmax(row)) for row in planes[:3]] == [0, 4, 0]
    assert planes[3:].sum() == 1 and planes[5, 6] == 1  # p1's turn, two seats after p2
    assert (
        game.render_text(state) == "Scores: 4 0 0\nTurn total: 6, move 3 of 1000\nplayer 1 to play"
    )
    grid = game.grid(state)
    assert grid.shape == (4, 20)
    assert list((grid > 0).sum(axis=1)) == [8, 0, 0, 12] and set(grid[3][:12]) == {2}


# ---------------------------------------------------------------------- the env
def test_pettingzoo_api_test_passes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(winscore=30), num_cycles=300)
        api_test(env(players=4, winscore=20), num_cycles=300)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: env(winscore=30), num_cycles=100)


def play_seeded(raw: PigEnv, seed: int, moves: int) -> list[Any]:
    """States and observations along a line of random actions after ``reset(seed=seed)``."""
    rng, trace = random.Random(0), []
    raw.reset(seed=seed)
    for _ in range(moves):
        if raw.game.is_terminal(raw.state):
            break
        trace.append((raw.state, raw.observe(raw.agent_selection)["observation"].tobytes()))
        raw.step(rng.choice(raw.legal_actions()))
    return trace


def test_same_seed_same_dice_and_observations() -> None:
    one, two = PigEnv(winscore=40), PigEnv(winscore=40)
    assert play_seeded(one, 11, 200) == play_seeded(two, 11, 200)
    assert play_seeded(one, 11, 200) != play_seeded(one, 12, 200)


def test_agents_never_act_at_chance_and_rewards_are_the_core_returns() -> None:
    raw, rng = PigEnv(players=3, winscore=15, horizon=18), random.Random(5)
    draws = wins = 0
    for seed in range(60):
        raw.reset(seed=seed)
        while True:
            state = raw.state
            assert not raw.game.is_chance(state)
            if raw.game.is_terminal(state):
                break
            assert raw.agent_selection == f"player_{raw.game.to_play(state)}"
            mask = raw.observe(raw.agent_selection)["action_mask"]
            assert list(np.flatnonzero(mask)) == raw.legal_actions() and set(mask) <= {0, 1}
            raw.step(rng.choice(raw.legal_actions()))
        returns = raw.game.returns(raw.state)
        assert tuple(raw.rewards[a] for a in raw.possible_agents) == returns
        assert all(raw.terminations.values())
        draws += returns == (0.0, 0.0, 0.0)
        wins += 1.0 in returns
    assert draws and wins


def test_restore_rolls_the_same_dice_again() -> None:
    raw, rng = PigEnv(winscore=50), random.Random(9)
    raw.reset(seed=3)
    for _ in range(15):
        raw.step(rng.choice(raw.legal_actions()))
    snapshot = raw.save_state()
    line, actions = [], []
    while not raw.game.is_terminal(raw.state):
        actions.append(rng.choice(raw.legal_actions()))
        raw.step(actions[-1])
        line.append(raw.state)
    raw.reset(seed=99)  # a different generator state in between
    raw.restore_state(snapshot)
    assert [raw.step(action) or raw.state for action in actions] == line
    assert len(line) > 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "players must be in \\[2, 10\\], got 1"),
        ({"players": 11}, "players must be in \\[2, 10\\], got 11"),
        ({"players": 2.0}, "players must be an int, got 2.0"),
        ({"winscore": 0}, r"winscore must be in \[1, 10000\], got 0"),
        ({"winscore": True}, "winscore must be an int, got True"),
        ({"diceoutcomes": 1}, r"diceoutcomes must be in \[2, 100\], got 1"),
        ({"horizon": 0}, r"horizon must be in \[1, 1000000\], got 0"),
        ({"piglet": "yes"}, "piglet must be a bool, got 'yes'"),
    ],
)
def test_bad_parameters_are_refused_naming_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        Pig(**kwargs)
    with pytest.raises(InvalidParameterError, match=message):
        env(**kwargs)


def test_env_metadata_and_spaces() -> None:
    raw = PigEnv(players=3, winscore=20)
    assert raw.metadata["name"] == "pig_v0"
    assert raw.game.has_chance and raw.game.perfect_information and raw.game.acyclic
    assert raw.observation_space("player_2")["observation"].shape == (6, 21)
    assert raw.action_space("player_0").n == 2
    assert raw.game == Pig(3, 20) and raw.game != Pig(3, 20, piglet=True)


def test_decisive_rollout_holds_at_a_fifth_of_winscore() -> None:
    """The mover rolls below ``hold`` and banks at ``hold``, or when banking wins: each
    playout equals the one from the state after that decision, with the decision's draw spent."""
    game = Pig(winscore=50)
    assert game.hold == 10 and Pig().hold == 20 and Pig(winscore=3).hold == 1
    winning = (4, 0, 7, DECIDING, (45, 0))
    assert all(game.decisive_rollout(winning, random.Random(s)) == (1.0, -1.0) for s in range(20))
    for total, decision in ((10, STOP), (9, ROLL), (25, STOP), (0, ROLL)):
        state = (4, 0, total, DECIDING, (12, 30))
        after = game.next_state(state, decision)
        for seed in range(20):
            skipped = random.Random(seed)
            skipped.random()
            assert game.decisive_rollout(state, random.Random(seed)) == game.decisive_rollout(
                after, skipped
            ), (total, seed)


def test_forged_pig_states_are_refused_naming_the_problem() -> None:
    raw = PigEnv()  # two players, to 100, a six-sided die
    raw.reset(seed=0)
    forged = [
        ((0, 0, 0, DECIDING, (-5, 0)), r"scores\[0\]"),
        ((30, 0, 0, OVER, (100, 100)), "only one, in a finished game"),
        ((30, 0, 0, DECIDING, (100, 0)), "only one, in a finished game"),
        ((20, 0, 10, ROLLING, (95, 0)), "a roll at 105 points"),
        ((5, 0, 0, DECIDING, (1, 0)), "1 point"),
        ((1, 0, 0, DECIDING, (50, 0)), "cannot score 50 points"),
        ((1000, 0, 0, DECIDING, (0, 0)), "not over at the horizon"),
        ((3, 2, 0, DECIDING, (0, 0)), "player must be in"),
        ((0, 0, 0, DECIDING), "tuple of 5 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)
