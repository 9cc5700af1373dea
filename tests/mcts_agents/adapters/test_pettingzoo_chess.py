"""PettingZoo's ``chess_v6`` searched on copies of its python-chess board (``pettingzoo_chess``).

Move for move against the env: random games and scripted ones that reach every way the env
ends a game (checkmate, stalemate, insufficient material, the fifty-move rule, threefold
repetition, claimed a move early as python-chess allows), castling, en passant and
under-promotions; at every step legal action ids, the player to move, the end and the returns,
the walked state against a fresh root read from the env (history included), and the live env
left as it was. The fast playout is replayed through ``next_state`` to the same end.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import chess
import pytest
from pettingzoo.classic.chess import chess_utils

from mcts_agents import MCTSAgent
from mcts_agents.adapters import EnvGame, game_from_env
from mcts_agents.adapters.pettingzoo_chess import ChessGame, ChessState
from mcts_agents.errors import GameOverError, IllegalActionError
from tests.mcts_agents.adapters.support import (
    adapted_root,
    fingerprint,
    is_over,
    mask_actions,
    new_classic,
)

Chooser = Callable[[ChessState, list[int]], int]


def action_of(board: chess.Board, uci: str) -> int:
    """PettingZoo's action id of the move ``uci`` on ``board`` (mirrored for black)."""
    move = chess.Move.from_uci(uci)
    if board.turn == chess.BLACK:
        move = chess_utils.mirror_move(move)
    chess_utils.legal_moves(board)  # fills PettingZoo's move <-> id tables
    return int(chess_utils.moves_to_actions[move.uci()])


def scripted(ucis: list[str], then: random.Random | None = None) -> Chooser:
    """Play ``ucis`` in order, then random moves from ``then``."""
    played = iter(ucis)

    def choose(state: ChessState, legal: list[int]) -> int:
        uci = next(played, None)
        if uci is None:
            assert then is not None, "the script ended before the game"
            return then.choice(legal)
        return action_of(state.board, uci)

    return choose


def env_at(fen: str | None = None) -> Any:
    env = new_classic("chess_v6")
    if fen is not None:
        env.unwrapped.board = chess.Board(fen)  # white to move, as player_0 is after reset
    return env


def play_and_compare(env: Any, choose: Chooser, plies: int = 10_000, every: int = 20) -> Any:
    """Play ``choose`` in ``env`` with the adapter beside it; returns the last walked state."""
    walked: ChessState | None = None
    for ply in range(plies):
        game, root, legal = adapted_root(env, ChessGame, ply % every == 0, 2, ply)
        if walked is not None:  # the walked state is the fresh root, history and all
            assert walked.board.fen() == root.board.fen()
            assert (walked.keys, walked.repeated) == (root.keys, root.repeated)
            assert game.key(walked) == game.key(root)
        action = choose(root, legal)
        walked = game.next_state(root, action)
        env.step(action)
        assert walked.board.fen() == env.unwrapped.board.fen()
        if is_over(env):
            assert game.is_terminal(walked) and game.legal_actions(walked) == []
            expected = tuple(float(env.rewards[a]) for a in env.possible_agents)
            assert game.returns(walked) == expected
            with pytest.raises(GameOverError):
                game_from_env(env)
            return walked
        assert not game.is_terminal(walked)
    return walked


def termination(state: ChessState) -> str:
    """How a finished game ended (python-chess's name; over the walked history)."""
    board = state.board
    if board.is_checkmate():
        return "checkmate"
    if board.is_insufficient_material():
        return "insufficient"
    if not any(board.generate_legal_moves()):
        return "stalemate"
    return "fifty" if board.can_claim_fifty_moves() else "threefold"


def test_random_games_move_for_move() -> None:
    ends = Counter()
    for seed in range(4):
        env = new_classic("chess_v6", seed=seed)
        last = play_and_compare(env, scripted([], random.Random(seed)), every=60)
        ends[termination(last)] += 1
    assert sum(ends.values()) == 4


def test_random_endgames_reach_repetitions_and_the_fifty_move_rule() -> None:
    """Few pieces, many quiet moves: the draws by history, move for move with the env."""
    ends = Counter()
    for fen in [
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        "r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1",
        "4k3/3n4/8/8/8/8/3N4/4K3 w - - 0 1",
    ]:
        for seed in range(8):
            last = play_and_compare(env_at(fen), scripted([], random.Random(seed)), every=40)
            ends[termination(last)] += 1
    assert {"threefold", "fifty", "insufficient"} <= set(ends), ends


@pytest.mark.parametrize(
    ("fen", "ucis", "end", "returns"),
    [
        (None, ["f2f3", "e7e5", "g2g4", "d8h4"], "checkmate", (-1.0, 1.0)),
        ("k7/8/1Q6/8/8/8/8/7K w - - 0 1", ["b6c7"], "stalemate", (0.0, 0.0)),
        ("8/8/8/4k3/8/8/3r4/4K3 w - - 0 1", ["e1d2"], "insufficient", (0.0, 0.0)),
        # the clock reaches 99 and white can claim with a quiet move
        ("8/8/8/4k3/8/8/R7/4K3 w - - 97 80", ["e1f1", "e5e6"], "fifty", (0.0, 0.0)),
        # the start position would come a third time with black's next move: claimed now
        (None, ["g1f3", "g8f6", "f3g1", "f6g8"] * 2, "threefold", (0.0, 0.0)),
    ],
    ids=["checkmate", "stalemate", "insufficient", "fifty", "threefold"],
)
def test_every_end_of_the_env(
    fen: str | None, ucis: list[str], end: str, returns: tuple[float, float]
) -> None:
    env = env_at(fen)
    last = play_and_compare(env, scripted(ucis), every=1)
    assert termination(last) == end
    assert ChessGame().returns(last) == returns
    if end == "threefold":
        assert len(last.board.move_stack) == 0 and last.repeated  # counted from keys, no stack
        assert env.unwrapped.board.ply() == 7  # ended a move early, as the env claims


@pytest.mark.parametrize(
    ("fen", "ucis"),
    [
        (None, ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6", "c7d6"]),  # en passant
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1g1", "e8c8", "f1f8"]),  # castling
        ("8/P6k/8/8/8/8/6Kp/8 w - - 0 1", ["a7a8n", "h2h1r", "g2h1", "h7g6"]),  # under-promotion
        ("8/P6k/8/8/8/8/6Kp/8 w - - 0 1", ["a7a8q", "h2h1b", "g2h1"]),  # queen, bishop
    ],
    ids=["en-passant", "castling", "under-promotion", "promotion"],
)
def test_special_moves_then_random_play(fen: str | None, ucis: list[str]) -> None:
    env = env_at(fen)
    play_and_compare(env, scripted(ucis, random.Random(len(ucis))), plies=60, every=15)


def test_playout_replayed_through_next_state_ends_the_same(monkeypatch: Any) -> None:
    """The fast playout's moves (pushes net of the look-ahead's pops), replayed through
    ``next_state`` (which the env checks), end at the same ply with the same returns."""
    game = ChessGame()
    push, pop = chess.Board.push, chess.Board.pop
    moves: list[chess.Move] = []

    def pushed(board: chess.Board, move: chess.Move) -> None:
        moves.append(move)
        push(board, move)

    def popped(board: chess.Board) -> chess.Move:
        moves.pop()
        return pop(board)

    lengths = []
    for seed, fen in enumerate(
        [None, "8/8/8/4k3/8/8/R7/4K3 w - - 90 80", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"] * 4
    ):
        env = env_at(fen)
        _, root = game_from_env(env)
        moves.clear()
        monkeypatch.setattr(chess.Board, "push", pushed)
        monkeypatch.setattr(chess.Board, "pop", popped)
        returns = game.rollout(root, random.Random(seed))
        monkeypatch.undo()
        lengths.append(len(moves))
        state = root
        for move in moves:
            assert not game.is_terminal(state)
            state = game.next_state(state, action_of(state.board, move.uci()))
        assert game.is_terminal(state)
        assert game.returns(state) == returns
    assert min(lengths) >= 2 and max(lengths) > 100


def test_transposed_move_orders_share_a_key_and_positions_repeat() -> None:
    env = new_classic("chess_v6")
    game, root = game_from_env(env)

    def walk(ucis: list[str]) -> ChessState:
        state = root
        for uci in ucis:
            state = game.next_state(state, action_of(state.board, uci))
        return state

    assert game.key(walk(["g1f3", "b8c6", "b1c3"])) == game.key(walk(["b1c3", "b8c6", "g1f3"]))
    back = walk(["g1f3", "g8f6", "f3g1", "f6g8"])
    assert game.key(back) == game.key(root) and back.repeated
    assert game.key(walk(["e2e4"])) != game.key(walk(["e2e3"]))
    with pytest.raises(IllegalActionError, match="not legal"):
        game.next_state(root, 0)  # a1 to the south-west: never legal


def test_boards_the_env_would_have_ended_or_another_side_to_move_go_generic() -> None:
    env = env_at("4k3/8/8/8/8/8/8/4K3 w - - 0 1")  # kings only: the env ends it after a move
    assert isinstance(game_from_env(env)[0], EnvGame)
    env = env_at("4k3/8/8/8/8/8/8/R3K3 b - - 0 1")  # black to move but player_0 to act
    assert isinstance(game_from_env(env)[0], EnvGame)


def test_agent_searches_pettingzoo_chess_fast_and_leaves_it_unchanged() -> None:
    env = new_classic("chess_v6")
    env.step(action_of(env.unwrapped.board, "e2e4"))
    mask_actions(env)
    before = fingerprint(env)
    result = MCTSAgent(iterations=30, seed=0).search(env)
    assert fingerprint(env) == before
    assert result.iterations == 30 and result.best_action in mask_actions(env)
    assert result.backend == "python"


def test_root_parallel_search_sends_states_whose_ids_the_worker_knows() -> None:
    """A worker process has not filled PettingZoo's move <-> id tables: unpickling fills them."""
    env = new_classic("chess_v6")
    for uci in ("e2e4", "e7e5"):
        env.step(action_of(env.unwrapped.board, uci))
    with MCTSAgent(iterations=8, seed=0, workers=2) as agent:
        result = agent.search(env)
    assert result.iterations == 8 and result.best_action in mask_actions(env)
