"""Every exception the library raises on purpose, in one place (import them from here).

Bad input from a caller raises a ``ValueError`` or ``TypeError`` subclass whose message names the
bad value and what was expected, so code that catches the built-in types keeps working. The
environments' own errors live in ``mcts_agents.envs.core.errors`` (the lowest layer, which
imports nothing of the planner) and are re-exported here.

=========================  ===============  ==================================================
exception                  base             raised for
=========================  ===============  ==================================================
``IllegalActionError``     ``ValueError``   an action not legal in the position, or out of range
``ActionTypeError``        ``TypeError``    an action that is not an integer
``GameOverError``          ``ValueError``   a move or a search in a finished game
``NotResetError``          ``ValueError``   an env used before ``reset()`` (also an
                                            ``AssertionError``, as PettingZoo's wrappers raise)
``InvalidParameterError``  ``ValueError``   a bad env constructor parameter
``InvalidSnapshotError``   ``TypeError``    ``restore_state`` given something else
``InvalidOptionError``     ``ValueError``   a bad agent, search or arena option
``OptionTypeError``        ``TypeError``    an option of the wrong kind of object (also an
                                            ``InvalidOptionError``, so a ``ValueError`` too)
``NoLegalActionError``     ``ValueError``   a live env whose agent to move has no legal action
``InvalidStateError``      ``ValueError``   a chance node as a search's root; hidden information
                                            searched as if it were visible; a snapshot whose
                                            state no play reaches (``restore_state``)
``EvaluatorError``         ``ValueError``   an evaluator's values or priors unfit for the search
``EmptyBufferError``       ``ValueError``   sampling a replay buffer that holds no position
``CheckpointError``        ``ValueError``   a checkpoint or training run folder that is not one,
                                            is damaged, or was made for another game or config
``ModelFileError``         ``ValueError``   a model file that is not one or is damaged (a
                                            ``CheckpointError``)
``CloneError``             ``TypeError``    an env that cannot be cloned faithfully
``UnpicklableError``       ``InvalidOption  a game, task, agent, env factory or search
                           Error`` and      configuration that cannot be sent to worker
                           ``TypeError``    processes (``UnpicklableGameError``: its old name)
``SpecError``              ``ValueError``   a bad agent or env spec string
``ResultsFileError``       ``ValueError``   an arena results file (``out=``) that is not one, is
                                            damaged, read-only where it must grow, or unwritable
``ResultsFileBusyError``   ``ValueError``   a results file another run is writing (it is locked)
``WorkerError``            ``RuntimeError`` a search or arena worker that died, hung or failed
``RayNotInstalledError``   ``ImportError``  ``backend="ray"`` without Ray installed
``TorchNotInstalledError`` ``ImportError``  ``mcts_agents.alphazero.learn`` without torch (the
``az`` extra), or
                                            a Stable-Baselines3 model without sb3-contrib
``WebNotInstalledError``   ``ImportError``  ``mcts_agents.web`` (``mcts-agents serve``) without
                                            Starlette and Uvicorn (the ``web`` extra)
``TooManyGamesError``      ``RuntimeError`` a new game in the web server while it holds its
                                            most games at once
=========================  ===============  ==================================================
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from mcts_agents.envs.core.errors import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    InvalidSnapshotError,
    InvalidStateError,
    NotResetError,
)


class InvalidOptionError(ValueError):
    """A bad agent or search option (names the option, the value and what was expected)."""


class OptionTypeError(InvalidOptionError, TypeError):
    """An option given the wrong kind of object (not a callable, not a sequence, not an agent):
    a ``TypeError`` as well as an ``InvalidOptionError``, so either ``except`` catches it."""


class NoLegalActionError(ValueError):
    """A live env whose agent to move has no legal action."""


class EvaluatorError(ValueError):
    """An evaluator returned something the search cannot use (names the evaluator and field)."""


class EmptyBufferError(ValueError):
    """A replay buffer sampled before any position was added."""


class CheckpointError(ValueError):
    """A checkpoint or training run folder that cannot be used: not one of ours, damaged, or
    made for another game or configuration (the message names the file and what differs)."""


class CloneError(TypeError):
    """An env that cannot be cloned faithfully (names the env class and why)."""


class UnpicklableError(InvalidOptionError, TypeError):
    """Something a caller gave that cannot be sent (faithfully) to worker processes: a game or
    its states, a task, an agent, an env factory, a search configuration. Raised by
    ``processes.check_picklable`` for every pool of the library (the arena, root parallelism,
    the AlphaZero loop and gate); an ``InvalidOptionError`` and a ``TypeError``, so code that
    caught either (the old errors for this fault) still catches it."""


#: The old name of ``UnpicklableError`` (root parallelism's game errors), kept for callers.
UnpicklableGameError = UnpicklableError


class SpecError(ValueError):
    """A bad agent or env spec; the message names the offending text and what is expected."""


class ResultsFileError(ValueError):
    """An arena results file (``out=``) that cannot be used: not a results file of ours, a
    damaged line (the message names the file, the line and what is wrong), another run's games,
    read-only where it must be repaired or extended, or a file that cannot be written."""


class ResultsFileBusyError(ResultsFileError):
    """A results file that another run is writing (it holds the file's lock)."""


class WorkerError(RuntimeError):
    """A search or arena worker process died, hung past its budget, or failed in its search."""


class RayNotInstalledError(ImportError):
    """``backend="ray"`` without Ray installed."""


class TorchNotInstalledError(ImportError):
    """``mcts_agents.alphazero.learn`` (the reference network and its trainer), or a model that
    needs it, without torch installed; or a Stable-Baselines3 model without sb3-contrib (the ``rl``
    extra). The message names what to install."""


class WebNotInstalledError(ImportError):
    """The web server (``mcts_agents.web``, ``mcts-agents serve``) without Starlette and
    Uvicorn installed; the message names the ``web`` extra."""


class TooManyGamesError(RuntimeError):
    """The web server already holds its most games at once (closed pages free theirs)."""


def describe_unknown(names: Iterable[str], valid: Iterable[str]) -> str:
    """Unknown names for an error message, each with the closest valid one if there is one:
    ``'iteration' (did you mean 'iterations'?), 'colour'``."""
    choices = list(valid)
    described = []
    for name in names:
        close = difflib.get_close_matches(name, choices, n=1)
        described.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return ", ".join(described)


__all__ = [
    "ActionTypeError",
    "CheckpointError",
    "CloneError",
    "EmptyBufferError",
    "EvaluatorError",
    "GameOverError",
    "IllegalActionError",
    "InvalidOptionError",
    "InvalidParameterError",
    "InvalidSnapshotError",
    "InvalidStateError",
    "NoLegalActionError",
    "NotResetError",
    "OptionTypeError",
    "RayNotInstalledError",
    "ResultsFileBusyError",
    "ResultsFileError",
    "SpecError",
    "TooManyGamesError",
    "TorchNotInstalledError",
    "UnpicklableError",
    "UnpicklableGameError",
    "WebNotInstalledError",
    "WorkerError",
]


class ModelFileError(CheckpointError):
    """A model file (``az:``/``policy:`` model, ``load_model``, ``load_checkpoint``, a
    Stable-Baselines3 ``.zip``) that is not one or is damaged: not an archive, truncated, a
    member whose CRC is wrong, or contents of the wrong keys, shapes or types, or not finite.
    The message names the file and what is wrong. (A ``CheckpointError``, so a ``ValueError``.)"""


__all__ += ["ModelFileError"]
