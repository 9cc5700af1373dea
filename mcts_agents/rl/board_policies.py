"""``BoardPolicies``: learned opponents of the boards on the rules' words (``rl.boards``).

A sub-env whose opponent is a ``PolicyAgent`` over a policy with ``batch(observations,
masks) -> actions`` (a frozen snapshot of the learner: ``rl.snapshots.FrozenPolicy``) stays on
the words: at each round of the opponents' moves the boards waiting for such an opponent are
observed from its seat in one compiled call (``BoardRules.observe``, the same planes and masks
its AEC env's ``observe`` gives), each distinct policy plays all its boards in one call (one
forward pass), and the replies are checked against the masks and played with the searches'
in one more compiled call (``FastBoards.advance``). No Python loop over the boards: the boards
of one policy are found by an integer code per board.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.agents.policy import PolicyAgent
from mcts_agents.compiled.boards import BoardRules
from mcts_agents.errors import IllegalActionError

__all__ = ["BoardPolicies", "batch_policy"]


def batch_policy(agent: Any) -> Any:
    """The policy of ``agent`` if it plays many boards in one call (a ``PolicyAgent`` whose
    policy has ``batch``), else ``None``."""
    policy = getattr(agent, "policy", None) if isinstance(agent, PolicyAgent) else None
    return policy if callable(getattr(policy, "batch", None)) else None


class BoardPolicies:
    """The learned opponents of ``num_boards`` boards of one game (see the module)."""

    def __init__(self, rules: BoardRules, game: Any, num_boards: int) -> None:
        n = num_boards
        self.rules = rules
        self.shape = tuple(game.observation_shape)
        self.on = np.zeros(n, np.bool_)  # board i's opponent is a policy here
        self.codes = np.full(n, -1, np.int64)  # its policy's code
        self._agents: list[Any] = [None] * n
        self._policies: dict[int, Any] = {}  # code -> policy
        self._code_of: dict[int, int] = {}  # id(policy) -> code
        cells = rules.index.shape[0]
        self._planes = np.zeros((n, cells, 2), np.int8)
        self._masks = np.zeros((n, game.num_actions), np.bool_)
        self._movers = np.zeros(n, np.int64)
        self._size = game.num_actions

    def attach(self, i: int, agent: Any) -> bool:
        """Play board ``i``'s opponent ``agent`` here if it is a batched policy; whether it is."""
        policy = batch_policy(agent)
        if policy is None:
            self.detach(i)
            return False
        code = self._code_of.get(id(policy))
        if code is None or self._policies.get(code) is not policy:
            code = self._new_code(i, policy)
        self.on[i], self.codes[i], self._agents[i] = True, code, agent
        return True

    def _new_code(self, i: int, policy: Any) -> int:
        """A code for a policy not seen yet; the codes no board uses any more are dropped (a
        pool's evicted snapshots are not kept alive here)."""
        self.on[i] = False
        used = set(self.codes[self.on].tolist())
        self._policies = {c: p for c, p in self._policies.items() if c in used}
        self._code_of = {id(p): c for c, p in self._policies.items()}
        code = max(self._policies, default=-1) + 1
        self._policies[code] = policy
        self._code_of[id(policy)] = code
        return code

    def detach(self, i: int) -> None:
        self.on[i] = False
        self.codes[i] = -1
        self._agents[i] = None

    def moves(
        self, words: np.ndarray, values: np.ndarray, seats: np.ndarray, boards: np.ndarray
    ) -> np.ndarray:
        """The replies of the policies of ``boards`` (their opponents to move; two players:
        the opponent is seat ``1 - seats[i]``): one compiled observation call, one ``batch``
        call per distinct policy.

        Raises:
            IllegalActionError: a policy's action is not legal, naming the sub-env.
        """
        count = len(boards)
        planes, masks = self._planes[:count], self._masks[:count]
        self.rules.observe(
            words[boards], values[boards], 1 - seats[boards], planes, masks, self._movers[:count]
        )
        replies = np.empty(count, np.int64)
        codes = self.codes[boards]
        first = int(codes[0])
        if np.count_nonzero(codes != first) == 0:  # (the common case: one policy)
            found = self._policies[first].batch(planes.reshape((-1, *self.shape)), masks)
            replies[:] = np.asarray(found).reshape(-1)
        else:
            for code in np.unique(codes).tolist():
                chosen = (codes == code).nonzero()[0]
                found = self._policies[code].batch(
                    planes[chosen].reshape((-1, *self.shape)), masks[chosen]
                )
                replies[chosen] = np.asarray(found).reshape(-1)
        inside = (replies >= 0) & (replies < self._size)
        legal = inside & masks[np.arange(count), np.where(inside, replies, 0)]
        if np.count_nonzero(legal) < count:
            j = int((~legal).nonzero()[0][0])
            i = int(boards[j])
            raise IllegalActionError(
                f"{self._agents[i]!r} played the illegal action {int(replies[j])} for its seat "
                f"in sub-env {i}; legal: {np.flatnonzero(masks[j]).tolist()}"
            )
        return replies
