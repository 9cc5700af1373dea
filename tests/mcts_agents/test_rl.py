"""``mcts_agents.rl``: one AEC seat as a Gymnasium env, and policies as agents.

Truths checked from outside the wrapper: Gymnasium's own env checker, stone counts on the board
(the opponent's replies happen inside ``step``), scripted games whose winner is known, the
AEC env's own legal actions, and the live env left untouched by a refused action.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from pettingzoo import AECEnv
from pettingzoo.classic import connect_four_v3, tictactoe_v3
from pettingzoo.utils import BaseWrapper

from mcts_agents import HumanAgent, MCTSAgent, RandomAgent
from mcts_agents.adapters import legal_actions
from mcts_agents.envs import connect_four_v0, multi_mnk_v0, othello_v0, tic_tac_toe_v0
from mcts_agents.errors import GameOverError, IllegalActionError, InvalidOptionError, SpecError
from mcts_agents.rl import PolicyAgent, SingleAgentVsOpponent


class LowestLegal:
    """Deterministic opponent: the lowest legal action (Connect Four: the leftmost column)."""

    def __init__(self) -> None:
        self.resets: list[int | None] = []

    def act(self, env: Any) -> int:
        return legal_actions(env)[0]

    def reset(self, seed: int | None = None) -> None:
        self.resets.append(seed)


def first_legal(observation: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def stones(observation: np.ndarray) -> int:
    return int(np.asarray(observation, dtype=np.int64).sum())


def run_episode(env: SingleAgentVsOpponent, seed: int, pick: Callable[[np.ndarray], int]) -> Any:
    """Play one episode with ``pick(mask)``; return every observation, reward and info."""
    observation, info = env.reset(seed=seed)
    trace: list[Any] = [(observation.tobytes(), info["learner"])]
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(pick(env.action_masks()))
        done = terminated or truncated
        trace.append((observation.tobytes(), reward, terminated, truncated, info))
    return trace


# --------------------------------------------------------------------------- gymnasium checker
@pytest.mark.parametrize(
    ("make", "learner"),
    [
        (connect_four_v0.env, "player_0"),
        (connect_four_v0.env, "player_1"),
        (connect_four_v0.env, "random"),
        (tictactoe_v3.env, None),
        (tictactoe_v3.env, "player_2"),
        (tictactoe_v3.env, "random"),
    ],
)
def test_gymnasium_env_checker_passes_without_warnings(make: Any, learner: str | None) -> None:
    env = SingleAgentVsOpponent(make(), MCTSAgent(iterations=10), learner=learner, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    assert [str(w.message) for w in caught] == []
    assert env.observation_space == make().observation_space(env.seat)["observation"]
    assert env.action_space == make().action_space(env.seat)


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_gymnasium_checker_with_render_checks_gives_no_warnings(render_mode: str | None) -> None:
    """Through ``gymnasium.make`` (so the env has a spec and every render mode is tried), with
    the render checks on: no warning, the render-fps one included."""
    import gymnasium

    from mcts_agents.rl import gym_id

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(
            gym_id("tic_tac_toe"), opponent="mcts:iterations=5", seed=0, render_mode=render_mode
        )
        check_env(env.unwrapped)
        env.reset(seed=0)
        if render_mode is not None:
            env.render()
    assert env.unwrapped.metadata["render_fps"] == 1


# --------------------------------------------------------------------------- turns and rewards
@pytest.mark.parametrize("make", [connect_four_v0.env, connect_four_v3.env, tictactoe_v3.env])
@pytest.mark.parametrize("learner_moves_first", [True, False])
def test_opponent_replies_inside_step(make: Any, learner_moves_first: bool) -> None:
    """After reset and after each step it is the learner's turn again, two stones later."""
    aec = make()
    seat = aec.possible_agents[0 if learner_moves_first else 1]
    env = SingleAgentVsOpponent(aec, RandomAgent(), learner=seat)
    rng = random.Random(0)
    for episode in range(5):
        observation, info = env.reset(seed=episode)
        assert info["learner"] == seat
        expected = 0 if learner_moves_first else 1
        assert stones(observation) == expected
        while True:
            assert aec.agent_selection == seat
            observation, _, terminated, truncated, _ = env.step(
                rng.choice(np.flatnonzero(env.action_masks()).tolist())
            )
            if terminated or truncated:
                assert stones(observation) in (expected + 1, expected + 2)
                break
            expected += 2
            assert stones(observation) == expected


def test_three_players_both_opponents_move_inside_step() -> None:
    aec = multi_mnk_v0.env()
    opponents = {"player_0": RandomAgent(seed=1), "player_2": RandomAgent(seed=2)}
    env = SingleAgentVsOpponent(aec, opponents, learner="player_1")
    observation, _ = env.reset(seed=0)
    assert stones(observation) == 1
    terminated = truncated = False
    count = 1
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step(
            first_legal(None, env.action_masks())
        )
        count += 3
        if not terminated:
            assert stones(observation) == count
    assert reward == info["returns"]["player_1"]
    assert set(info["returns"]) == {"player_0", "player_1", "player_2"}


def test_scripted_win_pays_plus_one() -> None:
    """The learner stacks column 6 while the opponent stacks column 0: a win on move four."""
    env = SingleAgentVsOpponent(connect_four_v0.env(), LowestLegal(), learner="player_0")
    env.reset(seed=0)
    for _ in range(3):
        assert env.step(6)[1:4] == (0.0, False, False)
    _, reward, terminated, truncated, info = env.step(6)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["returns"] == {"player_0": 1.0, "player_1": -1.0}


@pytest.mark.parametrize("make", [connect_four_v0.env, connect_four_v3.env])
def test_scripted_loss_inside_the_opponents_reply_pays_minus_one(make: Any) -> None:
    """As second player stacking column 6, the learner loses by the opponent's fourth stone."""
    aec = make()
    env = SingleAgentVsOpponent(aec, LowestLegal(), learner=aec.possible_agents[1])
    env.reset(seed=0)
    for _ in range(2):
        assert env.step(6)[1:4] == (0.0, False, False)
    observation, reward, terminated, truncated, info = env.step(6)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert stones(observation) == 7  # the opponent's winning stone is on the board
    assert info["returns"][aec.possible_agents[0]] == 1.0


def test_mcts_opponent_beats_a_column_stacker() -> None:
    env = SingleAgentVsOpponent(
        connect_four_v0.env(), MCTSAgent(iterations=300), learner="player_0"
    )
    trace = run_episode(env, 0, lambda mask: int(np.flatnonzero(mask)[0]))
    assert trace[-1][1:3] == (-1.0, True)


def test_tic_tac_toe_draw_pays_zero() -> None:
    """X: 0 2 3 7 5 against O's 4 1 6 8 (scripted through a dict opponent): a draw."""
    replies = iter([4, 1, 6, 8])

    class Scripted:
        def act(self, env: Any) -> int:
            return next(replies)

    env = SingleAgentVsOpponent(tic_tac_toe_v0.env(), {"player_1": Scripted()})
    env.reset(seed=0)
    rewards = [env.step(a)[1] for a in (0, 2, 3, 7)]
    _, reward, terminated, _, info = env.step(5)
    assert rewards == [0.0] * 4
    assert (reward, terminated, info["returns"]) == (0.0, True, {"player_0": 0.0, "player_1": 0.0})


class TruncateAfter(BaseWrapper[str, Any, int]):
    """Truncates the game for every agent after ``moves`` moves (a time limit)."""

    def __init__(self, env: Any, moves: int) -> None:
        super().__init__(env)
        self.moves = moves
        self.count = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.count = 0
        super().reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        super().step(action)
        self.count += 1
        raw = self.env.unwrapped
        if self.count >= self.moves and raw.agents and not any(raw.terminations.values()):
            raw.truncations = dict.fromkeys(raw.agents, True)


def test_aec_truncation_is_gymnasium_truncation() -> None:
    env = SingleAgentVsOpponent(TruncateAfter(connect_four_v0.raw_env(), 5), LowestLegal())
    env.reset(seed=0)
    assert env.step(6)[1:4] == (0.0, False, False)
    assert env.step(6)[1:4] == (0.0, False, False)
    _, reward, terminated, truncated, info = env.step(5)  # the fifth move hits the limit
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert info["returns"] == {"player_0": 0.0, "player_1": 0.0}
    env.reset(seed=0)  # and a new episode starts afresh
    assert env.step(6)[1:4] == (0.0, False, False)


# --------------------------------------------------------------------------- seats and seeds
def test_random_learner_takes_both_seats() -> None:
    aec = connect_four_v0.env()
    env = SingleAgentVsOpponent(aec, RandomAgent(), learner="random", seed=3)
    seats = []
    for _ in range(20):
        _, info = env.reset()
        assert aec.agent_selection == info["learner"] == env.seat
        seats.append(info["learner"])
    assert set(seats) == {"player_0", "player_1"}


def test_same_seed_same_episode() -> None:
    def episode(seed: int, env_seed: int | None = None) -> Any:
        env = SingleAgentVsOpponent(
            othello_v0.env(), MCTSAgent(iterations=20), learner="random", seed=env_seed
        )
        rng = random.Random(seed)
        return run_episode(env, seed, lambda mask: rng.choice(np.flatnonzero(mask).tolist()))

    first = episode(5)
    assert episode(5) == first
    assert any(episode(seed) != first for seed in (6, 7, 8))


def test_constructor_seed_is_the_first_resets_seed() -> None:
    def first_reset(seed: int | None, reset_seed: int | None) -> Any:
        env = SingleAgentVsOpponent(othello_v0.env(), RandomAgent(), learner="random", seed=seed)
        observation, info = env.reset(seed=reset_seed)
        return observation.tobytes(), info

    assert first_reset(11, None) == first_reset(None, 11)


def test_opponents_are_reset_every_episode_and_reseeded_at_seeded_resets() -> None:
    opponent = LowestLegal()
    env = SingleAgentVsOpponent(connect_four_v0.env(), opponent, learner="player_1")
    env.reset(seed=1)
    env.reset()
    env.reset(seed=1)
    env.reset(seed=2)
    assert len(opponent.resets) == 4
    assert opponent.resets[1] is None  # an unseeded reset: the opponent's generator goes on
    assert all(isinstance(s, int) for s in opponent.resets[::2] + opponent.resets[3:])
    assert opponent.resets[0] == opponent.resets[2] != opponent.resets[3]


def test_a_seeded_first_reset_fixes_the_later_unseeded_episodes() -> None:
    """The opponent is not reseeded at an unseeded reset: its generator goes on, so two
    wrappers seeded alike play the same later episodes (and another seed other ones)."""

    def episodes(seed: int) -> list[Any]:
        env = SingleAgentVsOpponent(
            connect_four_v0.env(), MCTSAgent(iterations=20), learner="random", seed=seed
        )
        rng = random.Random(0)
        traces = []
        for _ in range(3):
            env.reset()
            trace, done = [], False
            while not done:
                action = rng.choice(np.flatnonzero(env.action_masks()).tolist())
                observation, reward, terminated, truncated, _ = env.step(action)
                trace.append((observation.tobytes(), reward))
                done = terminated or truncated
            traces.append(trace)
        return traces

    first = episodes(3)
    assert episodes(3) == first
    assert episodes(4) != first


def test_mcts_opponent_forgets_its_table_between_episodes() -> None:
    mcts = MCTSAgent(iterations=50)
    env = SingleAgentVsOpponent(connect_four_v0.env(), mcts, learner="player_0")
    env.reset(seed=0)
    env.step(3)
    assert mcts.searcher is not None and mcts.searcher.table_size()
    env.reset(seed=1)
    assert not mcts.searcher.table_size()  # learner moves first: no search yet this episode


# --------------------------------------------------------------------------- masks, illegal moves
@pytest.mark.parametrize("make", [connect_four_v0.env, othello_v0.env, tictactoe_v3.env])
def test_action_masks_are_the_envs_legal_actions(make: Any) -> None:
    env = SingleAgentVsOpponent(make(), RandomAgent(seed=0), learner="random")
    rng = random.Random(1)
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        while not done:
            mask = env.action_masks()
            assert mask.dtype == np.bool_ and mask.shape == (make().action_space(env.seat).n,)
            assert np.flatnonzero(mask).tolist() == legal_actions(env.aec_env)
            _, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(mask).tolist()))
            done = terminated or truncated
        assert not env.action_masks().any()


def fingerprint(aec: Any) -> Any:
    raw = aec.unwrapped
    return raw.save_state(), aec.agent_selection


def test_illegal_action_raise_names_it_and_leaves_the_env_alone() -> None:
    aec = connect_four_v0.env()
    env = SingleAgentVsOpponent(aec, LowestLegal(), learner="player_1", illegal_action="raise")
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)  # column 0 now holds 6 stones (3 each): full; the opponent played 1
    before = fingerprint(aec)
    with pytest.raises(IllegalActionError, match=r"action 0 is not legal for player_1.*legal: \[1"):
        env.step(0)
    assert fingerprint(aec) == before
    assert env.step(np.int64(1))[1:3] == (0.0, False)  # the episode goes on


def test_illegal_action_lose_ends_the_episode_unseen_by_the_opponent() -> None:
    aec = connect_four_v0.env()
    env = SingleAgentVsOpponent(aec, LowestLegal(), learner="player_1")  # "lose" is the default
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    before = fingerprint(aec)
    observation, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == 0
    assert info["returns"] == {"player_0": 0.0, "player_1": -1.0}
    assert fingerprint(aec) == before  # never stepped: the opponent did not see the move
    assert stones(observation) == 7
    with pytest.raises(GameOverError, match="reset"):
        env.step(1)


@pytest.mark.parametrize("mode", ["lose", "raise"])
def test_actions_outside_the_space_always_raise(mode: Any) -> None:
    env = SingleAgentVsOpponent(connect_four_v0.env(), RandomAgent(), illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"7.*outside the action space Discrete"):
        env.step(7)
    with pytest.raises(TypeError, match=r"'3'"):
        env.step("3")
    with pytest.raises(TypeError, match="bool"):
        env.step(True)


def test_illegal_opponent_move_is_an_error_naming_the_opponent() -> None:
    class Stubborn:
        def act(self, env: Any) -> int:
            return 0

        def __repr__(self) -> str:
            return "Stubborn()"

    env = SingleAgentVsOpponent(connect_four_v0.env(), Stubborn(), learner="player_1")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"Stubborn\(\).*illegal action 0 for player_0"):
        for _ in range(4):
            env.step(0)


def test_step_before_reset_is_refused() -> None:
    env = SingleAgentVsOpponent(connect_four_v0.env(), RandomAgent())
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


# --------------------------------------------------------------------------- bad arguments
class SoloEnv(AECEnv[str, Any, int]):
    """Just enough of an AEC env for the constructor's checks."""

    def __init__(self, agents: list[str], space: spaces.Space[Any]) -> None:
        super().__init__()
        self.possible_agents = agents
        self._space = space

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return spaces.Discrete(3)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"opponent": object()}, TypeError, "opponent .*act"),
        ({"opponent": {"player_1": "mcts"}}, TypeError, "player_1.*act"),
        ({"opponent": {"player_0": RandomAgent()}}, ValueError, r"\['player_1'\]"),
        ({"opponent": {"seat_9": RandomAgent(), "player_1": RandomAgent()}}, ValueError, "seat_9"),
        ({"learner": "player_7"}, ValueError, "player_7"),
        ({"illegal_action": "ignore"}, ValueError, "ignore"),
        ({"illegal_reward": float("nan")}, InvalidOptionError, "illegal_reward .*nan"),
        ({"illegal_reward": float("-inf")}, InvalidOptionError, "illegal_reward .*-inf"),
        ({"illegal_reward": "-1"}, InvalidOptionError, "illegal_reward .*'-1'"),
        ({"illegal_reward": True}, InvalidOptionError, "illegal_reward .*True"),
        ({"opponent": HumanAgent()}, InvalidOptionError, "'human'.*unattended"),
        (
            {"opponent": {"player_1": HumanAgent(name="Ann")}},
            InvalidOptionError,
            "player_1.*'Ann'.*unattended",
        ),
        ({"aec_env": "connect_four"}, TypeError, "AECEnv.*str"),
        (
            {"aec_env": SoloEnv(["solo"], spaces.Dict({"observation": spaces.Discrete(2)}))},
            ValueError,
            r"1 seat.*\['solo'\]",
        ),
        (
            {"aec_env": SoloEnv(["a", "b"], spaces.Box(0, 1, (3,)))},
            TypeError,
            "seat 'a'.*dict observations",
        ),
    ],
)
def test_bad_arguments_are_named(kwargs: dict[str, Any], error: type, match: str) -> None:
    arguments: dict[str, Any] = {"aec_env": connect_four_v0.env(), "opponent": RandomAgent()}
    arguments.update(kwargs)
    with pytest.raises(error, match=match):
        SingleAgentVsOpponent(**arguments)


def test_random_learner_with_a_mapping_needs_an_agent_for_every_seat() -> None:
    with pytest.raises(ValueError, match=r"\['player_0'\]"):
        SingleAgentVsOpponent(connect_four_v0.env(), {"player_1": RandomAgent()}, learner="random")


# --------------------------------------------------------------------------- PolicyAgent
@pytest.mark.parametrize("make", [connect_four_v0.env, tictactoe_v3.env])
def test_policy_agent_plays_legal_games_in_the_aec_loop(make: Any) -> None:
    env = make()
    first, second = env.possible_agents
    agents: dict[str, Any] = {first: PolicyAgent(first_legal), second: RandomAgent(seed=0)}
    for seed in range(3):
        env.reset(seed=seed)
        moves = 0
        for agent in env.agent_iter():
            _, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
                assert reward in (-1, 0, 1)
            else:
                action = agents[agent].act(env)
                if agent == first:
                    assert action == legal_actions(env)[0]
                moves += 1
            env.step(action)
        assert moves >= 5


def test_policy_agent_in_the_arena() -> None:
    arena = pytest.importorskip("mcts_agents.arena")
    result = arena.play_match(
        "tic_tac_toe", [PolicyAgent(first_legal, name="first"), RandomAgent()], games=4, seed=0
    )
    assert [r["index"] for r in result.records] == [0, 1, 2, 3]
    assert all(r["length"] >= 5 for r in result.records)  # tic-tac-toe: five moves at least
    assert {s.name: s.games for s in result.standings()}["first"] == 4


def test_policy_agent_refuses_an_illegal_choice_by_name() -> None:
    env = connect_four_v0.env()
    env.reset()
    for _ in range(6):
        env.step(2)
    agent = PolicyAgent(lambda observation, mask: 2, name="always_two")
    with pytest.raises(
        IllegalActionError, match=r"'always_two' chose the illegal action 2.*\[0, 1, 3"
    ):
        agent.act(env)


def test_policy_agent_accepts_numpy_actions_and_sees_the_movers_view() -> None:
    env = tic_tac_toe_v0.env()
    env.reset()
    env.step(4)
    seen = []

    def policy(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        seen.append((observation.copy(), mask.copy()))
        return np.array(8)

    assert PolicyAgent(policy).act(env) == 8
    observation, mask = seen[0]
    expected = env.observe("player_1")
    assert np.array_equal(observation, expected["observation"])
    assert mask.dtype == np.bool_ and np.array_equal(mask, expected["action_mask"].astype(bool))


def test_policy_agent_from_sb3_passes_masks_to_maskable_models() -> None:
    class Maskable:
        def __init__(self) -> None:
            self.calls: list[Any] = []
            self.seeds: list[int] = []

        def predict(
            self,
            observation: Any,
            state: Any = None,
            episode_start: Any = None,
            deterministic: bool = False,
            action_masks: Any = None,
        ) -> tuple[np.ndarray, None]:
            self.calls.append((deterministic, action_masks))
            return np.array(int(np.flatnonzero(action_masks)[-1])), None

        def set_random_seed(self, seed: int) -> None:
            self.seeds.append(seed)

    class Plain:
        def predict(self, observation: Any, deterministic: bool = False) -> tuple[Any, None]:
            return np.array([5]), None

    env = connect_four_v0.env()
    env.reset()
    model = Maskable()
    agent = PolicyAgent.from_sb3(model)
    assert agent.act(env) == 6 and repr(agent) == "PolicyAgent(Maskable)"
    assert model.calls[0][0] is True and model.calls[0][1].dtype == np.bool_
    agent.reset(seed=3)
    assert model.seeds == []  # deterministic: nothing to seed
    sampling = PolicyAgent.from_sb3(model, deterministic=False)
    sampling.act(env)
    sampling.reset(seed=3)
    assert model.calls[-1][0] is False and model.seeds == [3]
    assert PolicyAgent.from_sb3(Plain(), name="plain").act(env) == 5


def test_policy_agent_bad_arguments() -> None:
    with pytest.raises(TypeError, match=r"callable.*int"):
        PolicyAgent(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"predict.*str"):
        PolicyAgent.from_sb3("model.zip")


# --------------------------------------------------------------------------- gymnasium.make
def test_gymnasium_make_builds_a_registered_setup_with_its_spec() -> None:
    """The audit: SingleAgentVsOpponent was not registered, so gymnasium.make could not build it."""
    import gymnasium

    from mcts_agents.rl import gym_id

    env = gymnasium.make(gym_id("tic_tac_toe"), opponent="mcts:iterations=20", seed=3)
    assert env.spec is not None and env.spec.id == "mcts_agents/tic_tac_toe-vs-agent-v0"
    assert isinstance(env.unwrapped, SingleAgentVsOpponent)
    check_env(env.unwrapped, skip_render_check=True)
    env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    _, _, _, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert info["learner"] == "player_0" and not truncated
    registered = [i for i in gymnasium.registry if i.startswith("mcts_agents/")]
    assert "mcts_agents/leduc_holdem-vs-agent-v0" in registered and len(registered) >= 14
    with pytest.raises(ValueError, match="unknown kind 'wizard'"):
        gymnasium.make(gym_id("connect_four"), opponent="wizard")


def test_an_rl_env_refuses_a_human_opponent_and_a_reward_that_is_not_finite() -> None:
    """The audit: ``opponent="human"`` prompted on stdout at the first reset and died with
    EOFError; ``illegal_reward=nan`` gave the learner NaN rewards."""
    import gymnasium

    from mcts_agents.rl import gym_id, make_vs_agent

    with pytest.raises(SpecError, match=r"'human'.*unattended"):
        make_vs_agent("tic_tac_toe", opponent="human")
    with pytest.raises(SpecError, match=r"'human:name=Ann'.*'Ann'.*unattended"):
        gymnasium.make(gym_id("tic_tac_toe"), opponent="human:name=Ann")
    with pytest.raises(InvalidOptionError, match=r"illegal_reward .*nan"):
        make_vs_agent("tic_tac_toe", opponent="random", illegal_reward=float("nan"))
    env = make_vs_agent("tic_tac_toe", opponent="random")
    with pytest.raises(InvalidOptionError, match=r"illegal_reward .*inf"):
        env.illegal_reward = float("inf")
    env.illegal_reward = -2
    assert env.illegal_reward == -2.0


class ThreadsSeen(LowestLegal):
    """``LowestLegal`` that notes numba's thread count at each of its turns."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def act(self, env: Any) -> int:
        import numba

        self.seen.append(numba.get_num_threads())
        return super().act(env)


def test_the_opponents_search_on_one_numba_thread_unless_told() -> None:
    """A vector of single envs (Gymnasium's sync or async) searches its opponents one after
    another: each turn gets one of numba's threads by default, the caller's count after it;
    ``search_threads=None`` leaves numba's count as it is."""
    numba = pytest.importorskip("numba")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread on this machine: nothing to limit")
    numba.set_num_threads(2)
    for threads, expected in ((1, 1), (None, 2)):
        opponent = ThreadsSeen()
        env = SingleAgentVsOpponent(
            connect_four_v0.env(), opponent, learner="player_1", search_threads=threads
        )
        env.reset(seed=0)
        env.step(first_legal(None, env.action_masks()))
        assert opponent.seen and set(opponent.seen) == {expected}
        assert numba.get_num_threads() == 2  # the caller's again
    with pytest.raises(InvalidOptionError, match="search_threads"):
        SingleAgentVsOpponent(connect_four_v0.env(), LowestLegal(), search_threads=0)


def test_the_gymnasium_ids_single_envs_default_to_one_search_thread() -> None:
    import gymnasium

    from mcts_agents.rl import gym_id

    one = gymnasium.make(gym_id("tic_tac_toe"), opponent="random")
    assert one.unwrapped.search_threads == 1
    vector = gymnasium.make_vec(
        gym_id("tic_tac_toe"), 2, vectorization_mode="sync", opponent="random",
        search_threads=None,
    )  # fmt: skip
    assert vector.get_attr("search_threads") == (None, None)
