"""Any sequential OpenSpiel game as a PettingZoo AEC environment that plays to the end.

``openspiel_v0.env(game="kuhn_poker", **params)``: the params go to ``pyspiel.load_game`` and
are checked first (an unknown game names the closest ones, an unknown parameter lists the
game's parameters with their defaults, a game with simultaneous moves is refused; each an
``InvalidParameterError``). Called from Python it loads every game and parameter OpenSpiel
has, those that read files included (``efg_game``'s ``filename``): a spec
(``openspiel:GAME``, the CLI, the arena, the web server) admits less, through
``mcts_agents.agents.openspiel_specs`` (no file read, a size under its caps).
Agents ``player_0 .. player_{n-1}`` are OpenSpiel's players
``0 .. n-1``; actions are OpenSpiel's action ids (``Discrete(num_distinct_actions)``).

Unlike Shimmy's ``OpenSpielCompatibilityV0`` (2.0.1), which counts dealt cards towards
OpenSpiel's ``max_game_length`` and so truncates card games early, this env counts nothing: a
game ends exactly where OpenSpiel's state is terminal. Chance outcomes (deals, dice) are drawn
by the env's own generator, seeded by ``reset(seed=...)`` (same seed, same game) and kept by
``save_state``, so agents only ever act at decisions.

Observations: ``{"observation": float32, "action_mask": int8}``. The observation is OpenSpiel's
``information_state_tensor(player)`` where the game provides one (``kuhn_poker``,
``leduc_poker``, ``euchre``, ``hearts``, ``bridge``, ``oh_hell``), else its
``observation_tensor(player)`` (``gin_rummy``, ``pig``, ``backgammon``), flattened;
``env.unwrapped.game.observation_kind`` says which. Rewards are OpenSpiel's returns, paid at
the end. Renders as text (``ansi``, ``human``): OpenSpiel's ``str(state)``, which shows every
hidden card.

The rules core (``mcts_agents.envs.games.openspiel.OpenSpielCore``) keys a state by its action
history; searches read it directly, with Information Set MCTS through OpenSpiel's
``information_state_string`` and ``resample_from_infostate``. OpenSpiel is optional: without it,
making an env raises ``ModuleNotFoundError`` naming ``pip install open_spiel``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.openspiel import OpenSpielCore

__all__ = ["OpenSpielEnv", "env", "raw_env"]


class OpenSpielEnv(BoardGameEnv):
    """An OpenSpiel game by name (default ``kuhn_poker``) with its parameters as keywords."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "openspiel_v0",
        "render_modes": ["ansi", "human"],
    }

    def __init__(
        self, game: str = "kuhn_poker", render_mode: str | None = None, **params: Any
    ) -> None:
        core = OpenSpielCore(game, **params)
        super().__init__(core, render_mode=render_mode)
        space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -np.inf, np.inf, shape=core.observation_shape, dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(core.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)


raw_env = OpenSpielEnv
env = env_fn(OpenSpielEnv)
