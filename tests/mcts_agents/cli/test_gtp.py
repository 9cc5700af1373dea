"""``mcts-agents gtp``: a GTP client speaks to the engine over pipes (a subprocess), and the
engine's commands one by one: replies and ids, errors, a short game, undo, final_score
against the rules core's area count, the clock."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest

from mcts_agents.cli.gtp import COMMANDS, DEFAULT_MOVE_TIME, GtpEngine, move_time
from mcts_agents.envs.games.go import Go, parse_vertex, vertex
from mcts_agents.errors import SpecError


class Client:
    """A GTP controller: one command out, one reply (up to the blank line) back."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcts_agents", "gtp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def send(self, command: str) -> tuple[bool, str, str]:
        """``(success, id, text)`` of the reply to ``command``."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            assert line, f"the engine closed its output; stderr: {self.process.stderr.read()}"
            if line == "\n" and lines:
                break
            lines.append(line.rstrip("\n"))
        head, *rest = lines
        assert head[0] in "=?", head
        status, _, first = head[1:].partition(" ")
        return head[0] == "=", status, "\n".join([first, *rest]).strip()

    def ok(self, command: str) -> str:
        success, _, text = self.send(command)
        assert success, f"{command}: {text}"
        return text

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


@pytest.fixture
def client() -> Any:
    started = Client("--size", "7", "--komi", "0.5", "mcts:iterations=30,seed=0")
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def test_a_short_game_over_pipes_with_ids_errors_undo_and_final_score(client: Client) -> None:
    assert client.ok("protocol_version") == "2"
    assert client.ok("name") == "mcts-agents"
    assert client.send("7 known_command genmove") == (True, "7", "true")
    assert client.send("8 known_command fly") == (True, "8", "false")
    assert set(client.ok("list_commands").split()) == set(COMMANDS)
    assert client.send("9 fly away") == (False, "9", "unknown command")
    assert client.send("play b Z9") == (False, "", "invalid vertex")
    assert client.send("play b I3") == (False, "", "invalid vertex")  # no I in GTP
    assert client.send("play purple D4") == (False, "", "invalid color")
    assert client.send("boardsize 25") == (False, "", "unacceptable size")
    assert client.ok("clear_board") == ""
    assert client.ok("play b D4") == ""
    assert client.send("play w D4") == (False, "", "illegal move")  # occupied
    game = Go(7, 0.5)
    state = game.apply(game.initial_state(), [parse_vertex("D4", 7)])
    rng = random.Random(0)
    for _ in range(6):  # the engine's moves and ours, all checked by our core
        reply = client.ok("genmove w")
        action = parse_vertex(reply, 7)
        assert action is not None and game.is_legal(state, action), reply
        state = game.next_state(state, action)
        mine = rng.choice(game.legal_actions(state)[:-1])
        client.ok(f"play b {vertex(mine, 7)}")
        state = game.next_state(state, mine)
    board = "".join(client.ok("showboard").splitlines()[1:-2])  # the rows: no header, status
    assert board.count("X") == state[0].bit_count() and board.count("O") == state[1].bit_count()
    score = game.score(state)
    expected = "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"
    assert client.ok("final_score") == expected
    assert client.ok("undo") == ""  # our last black move is gone
    board = "".join(client.ok("showboard").splitlines()[1:-2])
    assert board.count("X") == state[0].bit_count() - 1
    assert client.send("10 quit") == (True, "10", "")
    assert client.close() == 0


def test_a_suicide_and_a_ko_retake_are_illegal_moves() -> None:
    engine = GtpEngine(5, 0.5, agent_spec="random")
    for command in ("play b A4", "play b B5"):
        assert engine.handle(command) == "=\n\n"
    assert engine.handle("play w A5") == "? illegal move\n\n"  # suicide
    engine.handle("clear_board")
    for move in ("b B4", "w C4", "b A3", "w B3", "b B2", "w D3", "b E5", "w C2", "b C3"):
        assert engine.handle(f"play {move}") == "=\n\n", move
    assert engine.handle("play w B3") == "? illegal move\n\n"  # the ko
    assert engine.handle("undo") == "=\n\n"
    assert engine.handle("play w B3") == "? illegal move\n\n"  # occupied again
    assert engine.handle("undo") == engine.handle("undo") == "=\n\n"
    for _ in range(8):
        engine.handle("undo")
    assert engine.handle("undo") == "? cannot undo\n\n"


def test_input_is_cleaned_as_the_protocol_says() -> None:
    engine = GtpEngine(9, agent_spec="random")
    assert engine.handle("# a comment only") is None
    assert engine.handle("   ") is None
    assert engine.handle("3\tname # the name\x01") == "=3 mcts-agents\n\n"
    assert engine.handle("komi x") == "? syntax error\n\n"
    assert engine.handle("komi 6.5") == "=\n\n" and engine.game.komi == 6.5
    assert engine.handle("time_settings 60 x 1") == "? syntax error\n\n"
    assert engine.handle("time_left b 30 0") == "=\n\n"
    assert engine.handle("play b") == "? syntax error\n\n"


def test_the_clock_gives_each_move_its_share() -> None:
    assert move_time(None, 0, 0.0, 0, 40) == DEFAULT_MOVE_TIME
    assert move_time(60.0, 0, 0.0, 0, 30) == pytest.approx(2.0 - 0.1)
    assert move_time(10.0, 5, 10.0, 5, 30) == pytest.approx(2.0 - 0.1)  # in byo-yomi
    assert move_time(0.0, 0, 0.0, 0, 30) == 0.05  # never nothing
    engine = GtpEngine(9, agent_spec="mcts:seed=0")
    assert engine.clocked
    engine.handle("time_settings 0 1 1")  # one second a move, byo-yomi only
    engine.handle("time_left b 1 1")
    assert engine._move_time(0) == pytest.approx(0.9)
    reply = engine.handle("genmove b")
    assert reply is not None and reply.startswith("= ")
    result = engine.agent.last_result
    # stopped by the clock, not by the spec's hour-long fallback budget (the bound leaves room
    # for a loaded machine and a first compile of the playouts inside the search)
    assert result is not None and result.stopped and result.elapsed < 120.0


def on_first_line(reply: str, size: int) -> bool:
    action = parse_vertex(reply, size)
    assert action is not None and action < size * size, reply
    row, column = divmod(action, size)
    return row in (0, size - 1) or column in (0, size - 1)


def test_a_fresh_engines_first_genmove_is_a_searched_move() -> None:
    """The first ``genmove`` of a fresh process, its clock shorter than loading the kernels:
    a searched move (the search's floor), not the first legal point (a9, the 1-1 point)."""
    started = Client("--size", "9")
    try:
        assert started.ok("time_settings 0 0.05 1") == ""
        reply = started.ok("genmove b")
        assert not on_first_line(reply, 9), reply
        assert started.close() == 0
    finally:
        if started.process.poll() is None:
            started.process.kill()
            started.process.wait()
    engine = GtpEngine(9, agent_spec="mcts:seed=0")
    engine.handle("time_settings 0 0.05 1")
    reply = engine.handle("genmove b")
    assert reply is not None and not on_first_line(reply[2:].strip(), 9), reply
    result = engine.agent.last_result
    assert result is not None and result.iterations >= 1000  # GoOptions.min_simulations


def white_owns_the_board(engine: GtpEngine) -> None:
    """White stones on every point of the 5x5 board but the two eyes A1 and E5 (46 plies on
    the record): black's only legal move is the pass, and the game is lost by 25 + komi."""
    for row in range(1, 6):
        for column in "ABCDE":
            point = f"{column}{row}"
            if point not in ("A1", "E5"):
                assert engine.handle(f"play w {point}") == "=\n\n", point
                assert engine.handle("play b pass") == "=\n\n"


def test_genmove_resigns_a_lost_game_at_its_threshold() -> None:
    engine = GtpEngine(5, 7.5, agent_spec="mcts:iterations=2000,seed=0")
    white_owns_the_board(engine)
    before = len(engine.history)
    assert engine.handle("genmove b") == "= resign\n\n"
    assert len(engine.history) == before  # nothing played
    never = GtpEngine(5, 7.5, agent_spec="mcts:iterations=2000,seed=0", resign_threshold=0)
    white_owns_the_board(never)
    assert never.handle("genmove b") == "= pass\n\n"
    few = GtpEngine(5, 7.5, agent_spec="mcts:iterations=200,seed=0")  # too few simulations
    white_owns_the_board(few)
    assert few.handle("genmove b") == "= pass\n\n"
    with pytest.raises(ValueError, match="resign_threshold"):
        GtpEngine(5, agent_spec="random", resign_threshold=0.9)


def test_the_default_threshold_does_not_resign_an_even_game() -> None:
    """The engine against itself on 9x9 (1,000 simulations a move): 40 moves, no resignation."""
    engine = GtpEngine(9, 7.5, agent_spec="mcts:iterations=1000,seed=1")
    for ply in range(40):
        reply = engine.handle(f"genmove {'bw'[ply % 2]}")
        assert reply is not None and reply != "= resign\n\n", ply


def test_the_resign_threshold_option_is_a_win_probability() -> None:
    for bad in ("0.7", "-0.1", "nan", "x"):
        done = subprocess.run(
            [sys.executable, "-m", "mcts_agents", "gtp", "--resign-threshold", bad, "random"],
            input="name\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and done.stdout == "", bad
        assert "--resign-threshold" in done.stderr and "win probability" in done.stderr, bad


def test_bad_agent_specs_exit_with_code_2_before_reading_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcts_agents", "gtp", "mcts:nonsense=1"],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "" and "nonsense" in done.stderr


def test_the_engine_plays_with_go_kernel_options_and_refuses_unknown_ones() -> None:
    engine = GtpEngine(7, 0.5, True, "mcts:iterations=300,seed=0,kernel.defend=1")
    reply = engine.handle("genmove b")
    assert reply is not None and reply.startswith("=")
    assert engine.agent.searcher.options.defend is True
    done = subprocess.run(
        [sys.executable, "-m", "mcts_agents", "gtp", "mcts:iterations=300,kernel.defnd=1"],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "'defnd' (did you mean 'defend'?)" in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        "time_left b inf 0",
        "time_left b 1e999 0",
        "time_left b nan 0",
        "time_left b -1 0",
        "time_left b 30 -1",
        "time_left b \u0663\u0660 0",  # Arabic-Indic digits: float() reads them as 30
        "time_left b 30 0.5",
        "time_settings inf 0 0",
        "time_settings nan 0 0",
        "time_settings 60 1e999 1",
        "time_settings 60 -5 1",
        "time_settings 60 5",
        "komi nan",
        "komi inf",
        "komi -infinity",
        "komi \u0667",
        "komi 1_0",
        "boardsize \u00b2",  # passes str.isdigit(), and int() refuses it
        "boardsize \u0669",
        "boardsize -9",
        "boardsize 9.0",
        "boardsize",
        "play b D\u00b2",
        "play b D\u0663",
        "play b D-4",
        "play b 44",
    ],
)
def test_numbers_not_finite_ascii_and_in_their_sign_are_syntax_errors(command: str) -> None:
    engine = GtpEngine(7, 0.5, agent_spec="random")
    assert engine.handle(command) == "? syntax error\n\n"
    # nothing changed, and the engine goes on
    assert engine.clock == {} and engine.main_time is None
    assert engine.game.size == 7 and engine.game.komi == 0.5 and len(engine.history) == 1
    assert engine.handle("name") == "= mcts-agents\n\n"


def test_well_formed_numbers_out_of_range_are_refused_as_gtp_says() -> None:
    engine = GtpEngine(7, 0.5, agent_spec="random")
    assert engine.handle("boardsize " + "9" * 5000) == "? unacceptable size\n\n"
    assert engine.handle("boardsize 00000000000000000000000000009") == "=\n\n"
    assert engine.game.size == 9
    assert engine.handle("komi 1e300").startswith("? komi")
    assert engine.handle("komi -6.5") == "=\n\n" and engine.game.komi == -6.5
    assert engine.handle("komi +.5") == "=\n\n" and engine.game.komi == 0.5
    assert engine.handle("play b Z9") == "? invalid vertex\n\n"  # well formed, off the board
    assert engine.handle("play b D" + "9" * 5000) == "? invalid vertex\n\n"
    assert engine.handle("play b d4") == "=\n\n"
    assert engine.handle("time_left w 2.5 " + "1" * 5000) == "=\n\n"
    assert engine.handle("\u00b2 name") == "? unknown command\n\n"  # not an id


def test_the_engine_stays_up_after_numbers_it_cannot_read() -> None:
    started = Client("random")
    try:
        for command in ("boardsize \u00b2", "play b D\u00b2", "time_left b inf 0", "komi nan"):
            assert started.send(command) == (False, "", "syntax error"), command
        assert started.send("boardsize " + "9" * 5000) == (False, "", "unacceptable size")
        assert started.ok("name") == "mcts-agents"
        assert started.send("quit") == (True, "", "")
        assert started.close() == 0
    finally:
        if started.process.poll() is None:
            started.process.kill()
            started.process.wait()


def test_a_clock_of_no_end_does_not_buy_an_hour_of_search() -> None:
    engine = GtpEngine(7, agent_spec="mcts:seed=0")
    assert engine.clocked
    assert engine.handle("time_left b inf 0") == "? syntax error\n\n"
    assert engine.handle("time_settings 1e999 0 0") == "? syntax error\n\n"
    assert engine._move_time(0) == DEFAULT_MOVE_TIME


def test_an_agent_that_needs_a_person_is_refused_before_any_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcts_agents", "gtp", "human"],
        input="name\ngenmove b\nD4\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "'human'" in done.stderr and "unattended" in done.stderr


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Untrained networks saved for tic-tac-toe and for 7x7 Go."""
    pytest.importorskip("torch")
    from mcts_agents.alphazero.learn import NetConfig, build_net, save_net
    from mcts_agents.envs.games.mnk import MNK

    folder = tmp_path_factory.mktemp("models")
    small = NetConfig(channels=8, blocks=1, value_hidden=8)
    made = {}
    for name, game in (("ttt", MNK(3, 3, 3, name="tic_tac_toe")), ("go7", Go(7, 7.5))):
        made[name] = str(folder / f"{name}.pt")
        save_net(made[name], build_net(game, small, seed=0), game)
    return made


class TestModels:
    """``az:``/``policy:`` specs: a model of Go at the engine's board size, or refused."""

    @pytest.mark.parametrize("kind", ["az", "policy"])
    def test_a_model_of_another_game_or_size_exits_2_before_any_command(
        self, models: dict[str, str], kind: str
    ) -> None:
        for model, size in ((models["ttt"], "7"), (models["go7"], "9")):
            spec = f"{kind}:model={model}" + (",simulations=4" if kind == "az" else "")
            with pytest.raises(SpecError, match=r"(?s)agent spec .*Go"):
                GtpEngine(int(size), agent_spec=spec)
            done = subprocess.run(
                [sys.executable, "-m", "mcts_agents", "gtp", "--size", size, spec],
                input="name\ngenmove b\n",
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 2 and done.stdout == "", done.stdout
            assert model in done.stderr

    def test_a_go_model_plays_its_size_at_any_komi_and_refuses_other_sizes(
        self, models: dict[str, str]
    ) -> None:
        engine = GtpEngine(7, 0.5, agent_spec=f"az:model={models['go7']},simulations=4")
        assert engine.handle("boardsize 9") == "? unacceptable size\n\n"
        assert engine.game.size == 7
        assert engine.handle("boardsize 7") == "=\n\n"
        assert engine.handle("komi 6.5") == "=\n\n"
        reply = engine.handle("genmove b")
        assert reply is not None and reply.startswith("= "), reply
        assert parse_vertex(reply[2:].strip(), 7) is not None


@pytest.mark.parametrize("komi", ["nan", "inf", "\u0667", "1_0", "1e999"])
def test_the_komi_option_takes_only_finite_ascii_numbers(komi: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcts_agents", "gtp", "--komi", komi, "random"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "" and "--komi" in done.stderr
