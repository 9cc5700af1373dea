"""The shared argument checks: what each accepts, what it refuses, with which class and words."""

from __future__ import annotations

import math
import re
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import pytest

from mcts_agents.checks import (
    check_bool,
    check_callable,
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_probability,
    check_seed,
    is_int,
    is_number,
)
from mcts_agents.errors import CloneError, InvalidOptionError, OptionTypeError, SpecError


def refused(error: type[Exception], message: str) -> AbstractContextManager[Any]:
    """``pytest.raises`` for the exact message (not a regular expression)."""
    return pytest.raises(error, match=f"^{re.escape(message)}$")


# ---------------------------------------------------------------------------- check_int


@pytest.mark.parametrize("value", [0, 1, 7, 10**20, -3])
def test_check_int_returns_ints_unchanged(value: int) -> None:
    assert check_int(value, "n") == value


@pytest.mark.parametrize("value", [True, False, 1.0, "1", None, 2.5, np.int64(3)])
def test_check_int_refuses_bools_floats_strings_none_and_numpy_ints(value: object) -> None:
    with refused(InvalidOptionError, f"n must be an int, got {value!r}"):
        check_int(value, "n")


def test_check_int_names_the_bounds_in_its_message() -> None:
    with refused(InvalidOptionError, "iterations must be an int >= 1, got 0"):
        check_int(0, "iterations", low=1)
    with refused(InvalidOptionError, "depth must be an int <= 9, got 10"):
        check_int(10, "depth", high=9)
    with refused(InvalidOptionError, "workers must be an int in [1, 256], got 257"):
        check_int(257, "workers", low=1, high=256)
    assert check_int(1, "iterations", low=1) == 1
    assert check_int(256, "workers", low=1, high=256) == 256


def test_check_int_optional_passes_none_and_says_so_when_refusing() -> None:
    assert check_int(None, "steps", low=0, optional=True) is None
    with refused(InvalidOptionError, "steps must be an int >= 0 or None, got -1"):
        check_int(-1, "steps", low=0, optional=True)


def test_check_int_takes_numpy_ints_only_when_asked() -> None:
    value = np.int32(5)
    assert check_int(value, "n", low=0, numpy_ints=True) == 5
    with refused(InvalidOptionError, "n must be an int >= 0, got True"):
        check_int(True, "n", low=0, numpy_ints=True)
    with refused(InvalidOptionError, f"n must be an int >= 0, got {np.bool_(True)!r}"):
        check_int(np.bool_(True), "n", low=0, numpy_ints=True)


def test_check_int_raises_the_class_it_is_given_with_its_note() -> None:
    with refused(SpecError, "seed must be an int (any int), got 'x'"):
        check_int("x", "seed", note="any int", error=SpecError)


# ------------------------------------------------------------------------- check_number


@pytest.mark.parametrize("value", [0, 0.5, -2, 1e300])
def test_check_number_returns_ints_and_floats_as_floats(value: float) -> None:
    result = check_number(value, "x")
    assert result == value and type(result) is float


@pytest.mark.parametrize("value", [True, "1.0", None, [1.0], complex(1, 0)])
def test_check_number_refuses_bools_strings_none_and_other_objects(value: object) -> None:
    with refused(InvalidOptionError, f"x must be a finite number, got {value!r}"):
        check_number(value, "x")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_check_number_refuses_nan_and_infinities_by_default(value: float) -> None:
    with refused(InvalidOptionError, f"c must be a finite number >= 0, got {value!r}"):
        check_number(value, "c", low=0)


def test_check_number_with_finite_false_takes_infinity_but_never_nan() -> None:
    assert check_number(math.inf, "seconds", low=0, low_open=True, finite=False) == math.inf
    with refused(InvalidOptionError, "seconds must be a number > 0, got nan"):
        check_number(math.nan, "seconds", low=0, low_open=True, finite=False)


def test_check_number_open_and_closed_bounds() -> None:
    with refused(InvalidOptionError, "learning_rate must be a finite number > 0, got 0.0"):
        check_number(0.0, "learning_rate", low=0, low_open=True)
    with refused(InvalidOptionError, "momentum must be a finite number in [0, 1), got 1.0"):
        check_number(1.0, "momentum", low=0, high=1, high_open=True)
    with refused(InvalidOptionError, "cutoff must be a finite number in [-1, 1], got -1.5"):
        check_number(-1.5, "cutoff", low=-1, high=1)
    with refused(InvalidOptionError, "x must be a finite number < 0.5, got 0.5"):
        check_number(0.5, "x", high=0.5, high_open=True)
    assert check_number(0.0, "momentum", low=0, high=1, high_open=True) == 0.0
    assert check_number(-1, "cutoff", low=-1, high=1) == -1.0


def test_check_number_optional_and_note() -> None:
    assert check_number(None, "minutes", optional=True) is None
    message = "temperature must be a finite number >= 0 (0: the best move), got -1"
    with refused(InvalidOptionError, message):
        check_number(-1, "temperature", low=0, note="0: the best move")


# ---------------------------------------------------------------------- the others


@pytest.mark.parametrize("value", [0, 1, 0.25, 1.0])
def test_check_probability_accepts_zero_to_one(value: float) -> None:
    assert check_probability(value, "p") == float(value)


@pytest.mark.parametrize("value", [-0.1, 1.5, math.nan, math.inf, True, "0.5", None])
def test_check_probability_refuses_outside_nan_bool_and_strings(value: object) -> None:
    with refused(InvalidOptionError, f"p must be a probability in [0, 1], got {value!r}"):
        check_probability(value, "p")


def test_check_seed_takes_any_int_and_none_only_if_optional() -> None:
    assert check_seed(-5) == -5
    assert check_seed(None, optional=True) is None
    with refused(InvalidOptionError, "seed must be an int, got None"):
        check_seed(None)
    with refused(InvalidOptionError, "seed must be an int or None, got False"):
        check_seed(False, optional=True)
    with refused(InvalidOptionError, "seed must be an int or None, got 1.5"):
        check_seed(1.5, optional=True)


def test_check_bool_refuses_ints_and_strings() -> None:
    assert check_bool(True, "reuse") is True
    assert check_bool(False, "reuse") is False
    for value in (0, 1, "yes", None):
        with refused(InvalidOptionError, f"reuse must be True or False, got {value!r}"):
            check_bool(value, "reuse")
    with refused(CloneError, "env: perfect_information must be True or False, got 'yes'"):
        check_bool("yes", "env: perfect_information", error=CloneError)


def test_check_choice_lists_the_choices_and_tells_bools_from_ints() -> None:
    assert check_choice("value", "final_move", ("visits", "value")) == "value"
    assert check_choice(2, "k", (1, 2)) == 2
    with refused(InvalidOptionError, "final_move must be 'visits', 'value' or 'x', got 'v'"):
        check_choice("v", "final_move", ("visits", "value", "x"))
    with refused(InvalidOptionError, "k must be 1 or 2, got True"):
        check_choice(True, "k", (1, 2))
    with refused(InvalidOptionError, "mode must be 'on', got None"):
        check_choice(None, "mode", ["on"])


def test_check_instance_names_the_type_or_what_was_given() -> None:
    assert check_instance(3, "n", int) == 3
    assert check_instance(None, "config", dict, optional=True) is None
    with refused(InvalidOptionError, "config must be a dict or None, got []"):
        check_instance([], "config", dict, optional=True)
    with refused(InvalidOptionError, "items must be a list or a tuple, got 'ab'"):
        check_instance("ab", "items", (list, tuple))
    with refused(InvalidOptionError, "rng must be a numpy Generator, got 1"):
        check_instance(1, "rng", np.random.Generator, what="a numpy Generator")


def test_check_callable_refuses_what_cannot_be_called() -> None:
    assert check_callable(len, "policy") is len
    with refused(OptionTypeError, "policy must be a callable, got 3"):
        check_callable(3, "policy", error=OptionTypeError)


def test_option_type_error_is_caught_as_type_error_and_as_value_error() -> None:
    for caught in (TypeError, ValueError, InvalidOptionError):
        with pytest.raises(caught):
            raise OptionTypeError("x")


def test_is_int_and_is_number() -> None:
    assert is_int(3) and not is_int(True) and not is_int(3.0) and not is_int(np.int8(1))
    assert is_int(np.int8(1), numpy_ints=True) and not is_int(np.bool_(1), numpy_ints=True)
    assert is_number(3) and is_number(2.5) and not is_number(False) and not is_number("1")
    assert not is_number(math.nan) and not is_number(math.inf)
    assert is_number(math.inf, finite=False) and is_number(math.nan, finite=False)


# ---------------------------------------------------------------------------- files
def test_load_json_reads_json_and_refuses_depth_non_finite_numbers_and_syntax() -> None:
    from mcts_agents.checks import MAX_JSON_DEPTH, load_json
    from mcts_agents.errors import ResultsFileError

    assert load_json('{"a": [1, 2.5, null]}', "f.json") == {"a": [1, 2.5, None]}
    assert load_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "f") is not None
    for text, words in (
        ("[" * 200_000 + "]" * 200_000, "f.jsonl, line 3: nested deeper than 64 levels"),
        ("[" * 65 + "]" * 65, "f.jsonl, line 3: nested deeper than 64 levels"),
        ('{"a": ' * 65 + "1" + "}" * 65, "f.jsonl, line 3: nested deeper than 64 levels"),
        ('{"x": NaN}', "f.jsonl, line 3: the number NaN is not finite"),
        ("[-Infinity]", "f.jsonl, line 3: the number -Infinity is not finite"),
        ("1e999", "f.jsonl, line 3: the number 1e999 is not finite"),
        ("{", "f.jsonl, line 3: not valid JSON"),
        (b"\xff", "f.jsonl, line 3: not valid JSON"),
    ):
        with pytest.raises(ResultsFileError) as caught:
            load_json(text, "f.jsonl", line=3, error=ResultsFileError)
        assert str(caught.value).startswith(words), (text[:20], caught.value)


def test_read_json_names_the_file_it_cannot_read_or_that_is_too_big(tmp_path: Any) -> None:
    from mcts_agents.checks import read_json

    path = tmp_path / "run.json"
    path.write_text('{"iteration": 3}')
    assert read_json(path) == {"iteration": 3}
    with refused(InvalidOptionError, f"{path} is over 4 bytes; not read"):
        read_json(path, max_bytes=4)
    with pytest.raises(InvalidOptionError, match=r"cannot read .*none\.json"):
        read_json(tmp_path / "none.json")


def test_check_output_file_refuses_what_is_not_a_plain_file_to_write(tmp_path: Any) -> None:
    import os

    from mcts_agents.checks import check_output_file

    fine = tmp_path / "out.jsonl"
    assert check_output_file(str(fine), "--out") == fine and not fine.exists()
    fine.write_text("kept")
    check_output_file(str(fine), "--out")
    assert fine.read_text() == "kept"
    link = tmp_path / "to-fine"
    link.symlink_to(fine)
    assert check_output_file(str(link), "--out") == fine  # a link to a file: the file
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere" / "x")
    with refused(InvalidOptionError, f"--out {str(dangling)!r} is a link to "
                 f"{str(tmp_path / 'nowhere' / 'x')!r}, which does not exist; give the file "
                 "itself"):  # fmt: skip
        check_output_file(str(dangling), "--out", make_folders=True)
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        with refused(SpecError, f"--plot {str(fifo)!r} is a FIFO; give a file name"):
            check_output_file(str(fifo), "--plot", error=SpecError)
    with refused(InvalidOptionError, f"--out {str(tmp_path)!r} is a folder; give a file name"):
        check_output_file(str(tmp_path), "--out")
    with refused(InvalidOptionError, "--out is empty; give a file name"):
        check_output_file(" ", "--out")
    missing = tmp_path / "new" / "deeper" / "f.png"
    with pytest.raises(InvalidOptionError, match="does not exist"):
        check_output_file(str(missing), "--plot")
    assert check_output_file(str(missing), "--out", make_folders=True) == missing
    assert missing.parent.is_dir() and not missing.exists()
