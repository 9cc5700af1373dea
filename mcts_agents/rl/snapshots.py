"""Self-play snapshots: frozen copies of the learner as ``OpponentPool`` entries.

``add_snapshot(pool, policy)`` deep-copies the learner's current policy (a torch module mapping
a batch of observations to action logits, a Stable-Baselines3 model or its ``policy``, or any
callable ``policy(observation, action_mask) -> action``) into a ``FrozenPolicy`` and adds it to
the pool. A torch copy has ``requires_grad=False`` on every parameter and is in eval mode, so
later training of the learner does not change it. ``FrozenPolicy.batch`` plays many positions
in one forward pass (``agents.batch.act_batch`` groups the sub-envs of one policy into one
call). With ``cap`` the pool keeps at most ``cap`` snapshots: adding one more evicts the oldest
(``evict="oldest"``) or the one the learner beats most, the lowest PFSP weight
(``evict="pfsp"``; an unplayed snapshot counts a score of 1/2). ``rl.snapshot_callback`` does
this every K steps of a Stable-Baselines3 run.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from mcts_agents.checks import check_int
from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.rl.pool import OpponentPool

__all__ = ["EVICTIONS", "FrozenPolicy", "add_snapshot"]

#: How a full pool makes room for a new snapshot.
EVICTIONS = ("oldest", "pfsp")
SNAPSHOT_PREFIX = "snapshot-"


class FrozenPolicy:
    """A frozen copy of a policy: ``policy(observation, mask) -> action`` and
    ``batch(observations, masks) -> actions`` (masked argmax of the logits for torch modules
    and SB3 policies; the callable itself, position by position, otherwise).

    Attributes:
        name: the pool entry's name (``snapshot-<step>``); step: the learner's step it was taken.
    """

    def __init__(self, policy: Any, name: str, step: int, device: str | None = None) -> None:
        self.name, self.step = name, step
        self.kind, self.module = _freeze(policy)
        self.device = device
        if self.kind != "callable" and device is not None:
            self.module.to(device)

    def __call__(self, observation: Any, mask: np.ndarray) -> int:
        return int(self.batch(np.asarray(observation)[None], np.asarray(mask)[None])[0])

    def batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions of ``observations`` (``[B, ...]``) under ``masks`` (``[B, A]`` bool), in
        one forward pass (torch) or one call each (a plain callable)."""
        masks = np.asarray(masks, dtype=bool)
        if self.kind == "callable":
            return np.array(
                [self.module(o, m) for o, m in zip(observations, masks, strict=True)], np.int64
            )
        import torch

        with torch.no_grad():
            device = next(iter(self.module.parameters())).device
            batch = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=device)
            if self.kind == "sb3":
                logits = self.module.get_distribution(batch).distribution.logits
            else:
                logits = self.module(batch)
            logits = logits.masked_fill(~torch.as_tensor(masks, device=device), -torch.inf)
            return logits.argmax(dim=1).cpu().numpy().astype(np.int64)

    def __repr__(self) -> str:
        return f"FrozenPolicy({self.name}, {self.kind})"


def _freeze(policy: Any) -> tuple[str, Any]:
    """``(kind, copy)``: ``"sb3"`` (an SB3 policy), ``"torch"`` (a module) or ``"callable"``."""
    inner = getattr(policy, "policy", None)
    if callable(getattr(policy, "predict", None)) and inner is not None:
        policy = inner  # an SB3 model: its policy network
    is_module = callable(getattr(policy, "parameters", None)) and callable(
        getattr(policy, "eval", None)
    )
    if not is_module and not callable(policy):
        raise OptionTypeError(
            f"a snapshot's policy must be a torch module, an SB3 model or a callable "
            f"policy(observation, action_mask) -> action, got {type(policy).__name__}"
        )
    try:
        frozen = copy.deepcopy(policy)
    except Exception as error:  # (anything deepcopy raises: the object cannot be copied)
        message = f"cannot copy the policy {policy!r} for a snapshot: {error}"
        raise OptionTypeError(message) from None
    if not is_module:
        return "callable", frozen
    frozen.eval()
    for parameter in frozen.parameters():
        parameter.requires_grad_(False)
    sb3 = callable(getattr(frozen, "get_distribution", None))
    return ("sb3" if sb3 else "torch"), frozen


def snapshot_names(pool: OpponentPool) -> list[str]:
    """The pool's snapshots, oldest first."""
    found = [(e.step, n) for n, e in zip(pool.names, pool.entries, strict=True) if _is_snap(e)]
    return [name for _, name in sorted(found)]


def _is_snap(entry: Any) -> bool:
    return isinstance(entry, FrozenPolicy)


def add_snapshot(
    pool: OpponentPool,
    policy: Any,
    step: int = 0,
    cap: int | None = None,
    evict: str = "oldest",
    device: str | None = None,
) -> str:
    """Add a frozen copy of ``policy`` (see the module) to ``pool`` as ``snapshot-<step>``;
    with ``cap``, first evict snapshots (``evict``) until there is room. Its name.

    Raises:
        OptionTypeError: a policy that is neither a torch module, an SB3 model nor a callable;
            InvalidOptionError: a bad cap or eviction rule, or a step already snapshotted.
    """
    check_int(step, "step", low=0)
    if cap is not None:
        check_int(cap, "cap", low=1)
    if evict not in EVICTIONS:
        raise InvalidOptionError(f"evict must be one of {list(EVICTIONS)}, got {evict!r}")
    name = f"{SNAPSHOT_PREFIX}{step}"
    frozen = FrozenPolicy(policy, name, step, device)
    pool.add(frozen, name)  # (first: the pool is never left empty)
    older = [n for n in snapshot_names(pool) if n != name]
    while cap is not None and len(older) + 1 > cap:
        if evict == "oldest":
            victim = older[0]
        else:  # the lowest PFSP (hard) weight: the snapshot the learner scores best against
            stats = pool.stats()
            victim = max(older, key=lambda n: (_score(stats[n]), -older.index(n)))
        pool.remove(victim)
        older.remove(victim)
    return name


def _score(entry: dict[str, Any]) -> float:
    return 0.5 if entry["score"] is None else float(entry["score"])
