"""RLlib's routes (the extra ``rllib``; skipped without it): our ids as RLlib envs with RLlib's
action-masking module, PPO with 2 env runners learning against ``mcts:iterations=2`` on one
local Ray instance, the multi-agent env with our MCTS as a fixed module, and no Ray process
left behind."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray's RLlib is not installed (the rllib extra)")
pytest.importorskip("torch", reason="RLlib's modules need torch (the rllib extra)")

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.tune.registry import ENV_CREATOR, _global_registry

from mcts_agents.errors import InvalidOptionError, SpecError
from mcts_agents.rl import gym_id
from mcts_agents.rl.rllib import (
    LearnerOutcomes,
    MaskedObservations,
    VectorMaskedObservations,
    make_rllib_env,
    masked_ppo_spec,
    register_rllib_envs,
)
from mcts_agents.rl.rllib_multi import AECMultiAgentEnv, MCTSRLModule

TIC_TAC_TOE = gym_id("tic_tac_toe")


# ------------------------------------------------------------------ the envs, without Ray
def test_the_ids_env_observes_the_masking_recipes_dict() -> None:
    env = make_rllib_env("tic_tac_toe", {"opponent": "random", "seed": 3})
    assert isinstance(env, MaskedObservations)
    observation, _ = env.reset()
    assert set(observation) == {"observations", "action_mask"}
    assert env.observation_space.contains(observation)
    for _ in range(9):
        legal = env.unwrapped.action_masks()
        assert np.array_equal(observation["action_mask"], legal.astype(np.float32))
        # the board's 18 planes, flat: a stone of either side where the mask forbids a move
        stones = observation["observations"].reshape(3, 3, 2).sum(-1).reshape(-1)
        assert np.array_equal(stones > 0, ~legal)
        observation, _, terminated, truncated, _ = env.step(int(np.flatnonzero(legal)[0]))
        if terminated or truncated:
            break
    assert terminated
    assert not observation["action_mask"].any()  # no move after the end


def test_rllibs_vector_mode_gets_the_native_vector_env_masked() -> None:
    env = make_rllib_env("connect_four", {"opponent": "random", "num_envs": 3, "seed": 0})
    assert isinstance(env, VectorMaskedObservations)
    observations, _ = env.reset()
    assert observations["observations"].shape == (3, 6 * 7 * 2)
    assert np.array_equal(observations["action_mask"], np.ones((3, 7), np.float32))
    assert env.observation_space.contains(observations)


@pytest.mark.parametrize(
    ("config", "error", "named"),
    [
        ({"opponent": "random", "oponent": "random"}, InvalidOptionError, "oponent"),
        ({"opponent": "mcts:iteration=3"}, SpecError, "iteration"),
        ({"fast_path": False}, InvalidOptionError, "vector_entry_point"),
    ],
)
def test_a_bad_env_config_is_refused_naming_it(
    config: dict[str, Any], error: type[Exception], named: str
) -> None:
    with pytest.raises(error, match=named):
        make_rllib_env("tic_tac_toe", config)


def test_every_id_is_in_rays_env_registry() -> None:
    ids = register_rllib_envs()
    assert TIC_TAC_TOE in ids and gym_id("connect_four") in ids
    assert all(_global_registry.contains(ENV_CREATOR, env_id) for env_id in ids)


def play_out(env: AECMultiAgentEnv, seed: int) -> tuple[list[str], dict[str, float], Any]:
    """A game of random legal moves through the MultiAgentEnv API: the seats asked, in order,
    the rewards summed, and the last step's flags."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    asked, returns = [], dict.fromkeys(env.possible_agents, 0.0)
    while True:
        assert len(observations) == 1  # one seat to move at a time
        ((seat, observation),) = observations.items()
        assert env.observation_spaces[seat].contains(observation)
        asked.append(seat)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, rewards, terminateds, truncateds, _ = env.step({seat: action})
        for agent, reward in rewards.items():
            returns[agent] += reward
        if terminateds["__all__"] or truncateds["__all__"]:
            assert set(observations) == set(env.possible_agents)  # every seat sees the end
            return asked, returns, (terminateds, truncateds)


def test_the_multi_agent_env_plays_turns_and_pays_the_games_returns() -> None:
    env = AECMultiAgentEnv({"env": "tic_tac_toe"})
    for seed in range(5):
        asked, returns, (terminateds, _) = play_out(env, seed)
        assert asked == [env.possible_agents[i % 2] for i in range(len(asked))]
        assert terminateds["__all__"] and 5 <= len(asked) <= 9
        # the AEC env's own returns: a win and a loss, or a draw
        core = env.aec_env
        assert returns == {seat: float(core.rewards[seat]) for seat in env.possible_agents}
        assert sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_the_multi_agent_env_refuses_a_bad_config_and_a_move_out_of_turn() -> None:
    with pytest.raises(InvalidOptionError, match="'env'"):
        AECMultiAgentEnv({"game": "tic_tac_toe"})
    env = AECMultiAgentEnv({"env": "tic_tac_toe"})
    env.reset(seed=0)
    with pytest.raises(InvalidOptionError, match="player_0"):
        env.step({"player_1": 4})


def test_the_mcts_module_plays_the_searchs_winning_move() -> None:
    env = AECMultiAgentEnv({"env": "tic_tac_toe", "seed": 0})
    space = env.observation_spaces["player_0"]
    module = MCTSRLModule(
        observation_space=space,
        action_space=env.action_spaces["player_0"],
        model_config={"agent": "mcts:iterations=300"},
    )
    observations, _ = env.reset(seed=1)
    for move in (0, 3, 1, 4):  # X on 0 and 1, O on 3 and 4: X wins on 2, O would on 5
        observations = env.step({env.aec_env.agent_selection: move})[0]
    (observation,) = observations.values()
    batch = {Columns.OBS: {key: value[None] for key, value in observation.items()}}
    assert module.forward_inference(batch)[Columns.ACTIONS].tolist() == [2]


def test_the_mcts_module_refuses_a_position_of_another_process_and_a_bad_spec() -> None:
    env = AECMultiAgentEnv({"env": "tic_tac_toe"})
    kwargs = {"observation_space": env.observation_spaces["player_0"]}
    kwargs["action_space"] = env.action_spaces["player_0"]
    module = MCTSRLModule(**kwargs, model_config={"agent": "random"})
    elsewhere = (os.getpid() + 1) << 24
    batch = {Columns.OBS: {"position": np.array([[elsewhere]])}}
    with pytest.raises(InvalidOptionError, match="env runner that holds the env"):
        module.forward_inference(batch)
    with pytest.raises(SpecError, match="iteration"):
        MCTSRLModule(**kwargs, model_config={"agent": "mcts:iteration=2"})
    with pytest.raises(NotImplementedError, match="policies_to_train"):
        module.forward_train({})


# ------------------------------------------------------------------ on a local Ray instance
def ray_processes() -> list[str]:
    """This process's descendants that are Ray's (GCS, raylet, workers, actors)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            names[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    mine, found = {os.getpid()}, True
    while found:
        found = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                found = True
    mine.discard(os.getpid())
    return [f"{pid} {names[pid][:80]}" for pid in mine if is_rays(names.get(pid, ""))]


def is_rays(command: str) -> bool:
    """Whether a command line is a Ray process's: a worker or actor (``ray::...``), or a
    program or script of the ``ray`` package (raylet, GCS, monitors, ``default_worker.py``).
    Not any process whose arguments name Ray: a multiprocessing forkserver started by other
    tests carries the interpreter's whole ``sys.path``, Ray's folders included."""
    words = command.split()
    return command.startswith("ray::") or any("/ray/" in word for word in words[:2])


def wait_until_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while pids and time.monotonic() < deadline:
        pids = {pid for pid in pids if Path(f"/proc/{pid}").exists()}
        time.sleep(0.2)
    return pids


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """One local Ray instance of 2 CPUs (bound to 127.0.0.1) for the module's tests; at the
    end it is shut down and no process of it is left."""
    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
    ray.init(
        address="local", num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
        log_to_driver=False,
    )  # fmt: skip
    register_rllib_envs()  # this instance's registry (a process may have started Ray before)
    try:
        yield ray
    finally:
        ray.shutdown()
    deadline = time.monotonic() + 30
    while ray_processes() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert ray_processes() == []


def runner_pids(algo: Any) -> set[int]:
    return set(
        algo.env_runner_group.foreach_env_runner(lambda _: os.getpid(), local_env_runner=False)
    )


def test_ppo_with_two_env_runners_learns_against_mcts(local_ray: Any) -> None:
    """PPO on the id, 2 env runners, RLlib's action-masking module, 5 iterations: the learner's
    win rate (episodes of each iteration) rises. Measured with this config (seeds 0-5, first
    iteration -> mean of the last two): 0.31 -> 0.48, 0.34 -> 0.45, 0.37 -> 0.42,
    0.35 -> 0.48, 0.27 -> 0.49, 0.34 -> 0.48; the smallest rise 0.054. An illegal move would
    raise (``illegal_action="raise"``): the mask is respected."""
    config = (
        PPOConfig()
        .environment(
            TIC_TAC_TOE, env_config={"opponent": "mcts:iterations=2", "illegal_action": "raise"}
        )
        .env_runners(num_env_runners=2)
        .training(train_batch_size_per_learner=1000, minibatch_size=128, num_epochs=5, lr=1e-3)
        .rl_module(rl_module_spec=masked_ppo_spec({"fcnet_hiddens": [64, 64]}))
        .callbacks(LearnerOutcomes)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        pids = runner_pids(algo)
        assert len(pids) == 2
        rates = [LearnerOutcomes.win_rate(algo.train()) for _ in range(5)]
    finally:
        algo.stop()
    assert all(episodes >= 200 for _, episodes in rates), rates
    first, last_two = rates[0][0], (rates[3][0] + rates[4][0]) / 2
    assert last_two >= first + 0.04, rates
    assert wait_until_gone(pids, 30) == set()  # the env runners are gone with the algorithm


def test_self_play_with_our_mcts_as_a_fixed_module(local_ray: Any) -> None:
    """Two modules in the multi-agent env, seats drawn per episode: the learner and our MCTS
    (not trained). One iteration: both played, and the search (even at 2 iterations) beats
    the untrained learner."""

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        return "learner" if hash(episode.id_) % 2 == int(agent_id[-1]) else "mcts"

    mcts = RLModuleSpec(module_class=MCTSRLModule, model_config={"agent": "mcts:iterations=2"})
    config = (
        PPOConfig()
        .environment(AECMultiAgentEnv, env_config={"env": "tic_tac_toe"})
        .env_runners(num_env_runners=2)
        .multi_agent(
            policies={"learner", "mcts"}, policy_mapping_fn=mapping, policies_to_train=["learner"]
        )
        .training(train_batch_size_per_learner=600, minibatch_size=200, num_epochs=1)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={"learner": masked_ppo_spec({"fcnet_hiddens": [32]}), "mcts": mcts}
            )
        )
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    returns = runners["module_episode_returns_mean"]
    assert set(returns) == {"learner", "mcts"}
    assert runners["num_episodes"] >= 30
    assert returns["mcts"] > returns["learner"], returns
