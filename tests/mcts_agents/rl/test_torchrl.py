"""TorchRL's routes to our envs (the extra ``torchrl``; skipped without it): the AEC envs
through ``PettingZooWrapper(use_mask=True)`` and the vector env through ``GymWrapper`` in
Gymnasium's ``Disabled`` autoreset mode (partial resets by ``reset_mask``), each with a
collector of a few thousand frames whose every action is checked against the mask it saw."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import pytest

pytest.importorskip("torchrl")

import torch
from tensordict import TensorDictBase
from torchrl.collectors import Collector
from torchrl.data import Binary
from torchrl.envs import GymWrapper, PettingZooWrapper
from torchrl.envs.gym_like import default_info_dict_reader

from mcts_agents.agents.specs import make_env
from mcts_agents.rl import gym_id


def masked_random(groups: list[str] | None, seed: int) -> Any:
    """A policy drawing a legal action uniformly from each group's (or the root's) mask."""
    generator = torch.Generator().manual_seed(seed)

    def policy(td: TensorDictBase) -> TensorDictBase:
        for prefix in [(group,) for group in groups] if groups else [()]:
            mask = td[(*prefix, "action_mask")]
            weights = mask.float() + (~mask.any(-1, keepdim=True)).float()  # (a waiting seat)
            draw = torch.multinomial(weights.reshape(-1, mask.shape[-1]), 1, generator=generator)
            td[(*prefix, "action")] = draw.reshape(mask.shape[:-1])
        return td

    return policy


def illegal_count(mask: torch.Tensor, action: torch.Tensor, acting: torch.Tensor) -> int:
    taken = mask.reshape(-1, mask.shape[-1]).gather(-1, action.reshape(-1, 1)).reshape(-1)
    return int((acting.reshape(-1) & ~taken).sum())


@pytest.mark.parametrize(("env", "frames"), [("tic_tac_toe", 3000), ("connect_four", 2000)])
def test_pettingzoo_wrapper_collects_our_aec_env_with_masks_respected(
    env: str, frames: int
) -> None:
    with warnings.catch_warnings():  # ("tested with PettingZoo 1.24.3")
        warnings.simplefilter("ignore", UserWarning)
        wrapped = PettingZooWrapper(make_env(env), use_mask=True, categorical_actions=True, seed=0)
    groups = list(wrapped.group_map)
    assert groups == ["player_0", "player_1"]
    collector = Collector(
        wrapped, masked_random(groups, 0), frames_per_batch=500, total_frames=frames
    )
    collected = illegal = ends = 0
    rewards = dict.fromkeys(groups, 0.0)
    for batch in collector:
        collected += batch.numel()
        acting = torch.zeros(batch.shape, dtype=torch.bool)
        for group in groups:
            moves = batch[group, "mask"].reshape(batch.shape)  # the seat to move
            assert not (acting & moves).any()  # one seat moves per step
            acting |= moves
            illegal += illegal_count(batch[group, "action_mask"], batch[group, "action"], moves)
            rewards[group] += float(batch["next", group, "reward"].sum())
        assert acting.all()
        ends += int(batch["next", "done"].sum())
    collector.shutdown()
    assert collected == frames and illegal == 0
    assert ends > frames // 50  # games end and restart (a game is at most 9 or 42 moves)
    assert rewards["player_0"] == -rewards["player_1"] != 0  # zero-sum, and someone wins


def test_gym_wrapper_collects_the_vector_env_with_partial_resets_and_masks() -> None:
    num_envs, frames = 8, 2000
    vector = gymnasium.make_vec(
        gym_id("tic_tac_toe"),
        num_envs=num_envs,
        opponent="mcts:iterations=2",
        autoreset_mode="Disabled",  # TorchRL resets finished sub-envs by reset_mask
        illegal_action="raise",  # an illegal action would raise, not just lose
        seed=0,
    )
    wrapped = GymWrapper(vector, categorical_action_encoding=True)
    mask_spec = Binary(n=9, shape=(num_envs, 9), dtype=torch.bool)
    wrapped.set_info_dict_reader(default_info_dict_reader(["action_mask"], spec=[mask_spec]))
    collector = Collector(
        wrapped, masked_random(None, 1), frames_per_batch=400, total_frames=frames
    )
    collected = illegal = ends = 0
    for batch in collector:
        collected += batch.numel()
        acting = torch.ones(batch.shape, dtype=torch.bool)
        illegal += illegal_count(batch["action_mask"], batch["action"], acting)
        ends += int(batch["next", "done"].sum())
        assert batch["action_mask"].any(-1).all()  # every sub-env has a game on at each step
    collector.shutdown()
    assert collected == frames and illegal == 0
    assert ends > frames // 9  # every game ends within 5 learner moves: many partial resets
