"""Envs that are not this library's variants, named by text, as import paths that pickle.

``specs.parse_env_spec`` comes here for any env name that is not one of ours:

- a PettingZoo registry id (``classic/connect_four-v3``, ``mcts_agents/connect_four-v0``, any
  id in ``pettingzoo.aec_registry``; an id without its version means the latest);
- a module with an ``env()`` function (``pettingzoo.classic.connect_four_v3``);
- ``module:factory``, a callable returning a PettingZoo AEC env (``mygames:make_env``).

Each resolves to an import path ``"module:attribute"`` and default keyword arguments, never to
the function itself, so an ``EnvSpec`` built from it pickles and builds the env again in a
worker process (where the module is imported afresh).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from typing import Any

import pettingzoo

from mcts_agents.errors import OptionTypeError, SpecError

__all__ = [
    "check_aec_env",
    "checked_factory",
    "factory_form",
    "is_dotted",
    "load_factory",
    "registry_entry",
    "resolve_env_name",
]

#: what an env name may be, for messages.
FORMS = (
    "a PettingZoo registry id (e.g. 'classic/connect_four-v3'), a module with env() "
    "(e.g. 'pettingzoo.classic.connect_four_v3') or 'module:factory'"
)


def is_dotted(text: str) -> bool:
    """``"a.b_c.d"``: dot-separated Python identifiers."""
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def factory_form(text: str) -> tuple[str, str] | None:
    """``"module:factory[:key=value,...]"`` -> ``("module:factory", "key=value,...")``, else
    ``None`` (``"connect_four:width=8"`` is a name with options, not a factory)."""
    module, sep, rest = text.strip().partition(":")
    attribute, _, options = rest.partition(":")
    module, attribute = module.strip(), attribute.strip()
    if sep and is_dotted(module) and is_dotted(attribute):
        return f"{module}:{attribute}", options
    return None


def load_factory(path: str) -> Callable[..., Any]:
    """The callable named by ``"module:attribute"`` (``attribute`` may be dotted).

    Raises:
        ImportError: the module cannot be imported.
        AttributeError: the module has no such attribute.
        OptionTypeError: the attribute is not callable (a ``TypeError``).
    """
    module_name, _, attribute = path.partition(":")
    found: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        found = getattr(found, part)
    if not callable(found):
        raise OptionTypeError(f"{path} is a {type(found).__name__}, not a callable")
    return found


def checked_factory(path: str, text: str) -> Callable[..., Any]:
    """``load_factory(path)`` with a ``SpecError`` naming ``text`` and ``path`` if it fails."""
    try:
        return load_factory(path)
    except ImportError as error:
        raise SpecError(f"env spec {text!r}: cannot import {path!r} ({error})") from None
    except AttributeError:
        module, _, attribute = path.partition(":")
        raise SpecError(f"env spec {text!r}: module {module!r} has no {attribute!r}") from None
    except TypeError as error:
        raise SpecError(f"env spec {text!r}: {error}") from None
    except Exception as error:  # the module's own code failed while it was imported
        raise SpecError(
            f"env spec {text!r}: importing {path!r} failed ({type(error).__name__}: {error})"
        ) from error


def _entry_point_path(entry_point: Any, env_id: str, text: str) -> str:
    """A registry entry point as an import path (a registered function must be importable)."""
    if isinstance(entry_point, str):
        return entry_point
    module = getattr(entry_point, "__module__", None)
    name = getattr(entry_point, "__qualname__", None)
    path = f"{module}:{name}"
    if module and name and "<" not in name:
        try:
            if load_factory(path) is entry_point:
                return path
        except Exception:
            pass
    raise SpecError(
        f"env spec {text!r}: {env_id!r} is registered with {entry_point!r}, which cannot be "
        "imported by name in a worker process; register it with an entry point string "
        "'module:function'"
    )


def registry_entry(name: str) -> Any:
    """The AEC registry's spec for ``name``, or ``None``."""
    try:
        return pettingzoo.spec("aec", name)
    except Exception:  # not an id, or not registered
        return None


def resolve_env_name(name: str, text: str, ours: list[str]) -> tuple[str, dict[str, Any]]:
    """The import path and default keyword arguments of env ``name`` (the part of ``text``
    before its options): a registry id, else a dotted module with ``env()``.

    Raises:
        SpecError: neither, naming ``text``, what was tried and a close name if there is one.
    """
    entry = registry_entry(name)
    if entry is not None:
        kwargs = dict(entry.kwargs)
        if entry.max_cycles is not None:
            kwargs["max_cycles"] = entry.max_cycles
        return _entry_point_path(entry.entry_point, entry.id, text), kwargs
    if "." in name and is_dotted(name):
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise SpecError(
                f"env spec {text!r}: {name!r} is not a registered env id, and importing it as "
                f"a module failed ({error})"
            ) from None
        except Exception as error:  # the module's own code failed while it was imported
            raise SpecError(
                f"env spec {text!r}: importing {name!r} failed ({type(error).__name__}: {error})"
            ) from error
        path = f"{name}:env"
        checked_factory(path, text)
        return path, {}
    ids = sorted(pettingzoo.aec_registry)
    by_name = {pettingzoo.aec_registry[entry_id].name: entry_id for entry_id in ids}
    close = difflib.get_close_matches(name, [*ours, *ids, *by_name], n=1)
    suggestion = close and (close[0] if close[0] in ours else by_name.get(close[0], close[0]))
    hint = f"; did you mean {suggestion!r}?" if suggestion else ""
    raise SpecError(f"unknown env {name!r} in {text!r}; expected one of {ours}, {FORMS}{hint}")


def check_aec_env(env: Any, text: str) -> None:
    """Refuse anything but a PettingZoo AEC env, naming ``text``."""
    if isinstance(env, pettingzoo.AECEnv):
        return
    hint = ""
    if isinstance(env, pettingzoo.ParallelEnv):
        hint = " (a parallel env: wrap it with pettingzoo.utils.conversions.parallel_to_aec)"
    raise SpecError(
        f"env spec {text!r} made a {type(env).__name__}, not a PettingZoo AEC env{hint}"
    )
