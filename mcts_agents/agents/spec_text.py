"""Spec strings as text: ``"kind:key=value,..."`` split into its kind and raw options, and an
option's value read as a number, a flag, ``None`` or text. Below ``specs`` and ``ladder`` (which
``specs`` reads for ``ladder:GAME:LEVEL``), so both parse values the same way."""

from __future__ import annotations

from typing import Any

from mcts_agents.errors import SpecError

__all__ = ["kernel_options", "option_pairs", "parse_value", "split_spec"]

_BOOLS = {"on": True, "true": True, "yes": True, "off": False, "false": False, "no": False}


def parse_value(text: str) -> Any:
    """``"3"`` -> 3, ``"0.5"`` -> 0.5, ``"off"`` -> False, ``"none"`` -> None, else the text."""
    lowered = text.strip().lower()
    if lowered in _BOOLS:
        return _BOOLS[lowered]
    if lowered == "none":
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def split_spec(text: str, what: str) -> tuple[str, dict[str, str]]:
    """``"kind:a=1,b=x"`` -> ``("kind", {"a": "1", "b": "x"})`` (raw strings)."""
    if not isinstance(text, str):
        raise SpecError(f"{what} spec must be a string, got {text!r}")
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip()
    if not kind:
        raise SpecError(
            f"{what} spec {text!r} has no kind; expected 'kind' or 'kind:key=value,...'"
        )
    return kind, option_pairs(text, rest, what)


def option_pairs(text: str, rest: str, what: str) -> dict[str, str]:
    """``"a=1,b=x"`` (the options part of ``text``) -> ``{"a": "1", "b": "x"}``; an agent
    spec's key may be a dotted path (``kernel.defend``: ``specs`` reads which)."""
    pairs: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            key = key.strip()
            parts = key.split(".") if what == "agent" else [key]
            if not eq or not all(p.isidentifier() for p in parts) or not value.strip():
                raise SpecError(
                    f"{what} spec {text!r}: {item.strip()!r} is not of the form key=value"
                )
            if key in pairs:
                raise SpecError(f"{what} spec {text!r}: option {key!r} is given twice")
            pairs[key] = value.strip()
    return pairs


def kernel_options(text: str, options: dict[str, Any]) -> dict[str, Any]:
    """An ``mcts`` spec's ``kernel.NAME=VALUE`` options gathered into ``kernel_options``
    (``SearchConfig.kernel_options``: ``{"kernel.defend": 1}`` -> ``{"kernel_options":
    {"defend": 1}}``); any other dotted key is left as it is, for the names' check to refuse."""
    kernel = {}
    rest = {}
    for key, value in options.items():
        prefix, dot, name = key.partition(".")
        if prefix == "kernel" and dot and "." not in name:
            kernel[name] = value
        else:
            rest[key] = value
    if not kernel:
        return options
    if "kernel_options" in rest:
        raise SpecError(
            f"agent spec {text!r}: give the kernel's options as kernel.NAME=VALUE, not with "
            "kernel_options="
        )
    return {**rest, "kernel_options": kernel}
